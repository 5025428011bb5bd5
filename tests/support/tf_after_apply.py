"""The clouds `cluster create --terraform DIR --apply` talks to once terraform apply is done.

Handed to the CLI as Dependencies(terraform_connections=Connections(...)): the real container
and TPU clients (REST, fake credentials) answered by `responses` (FakeGke serves clusters.get;
a small stateful TPU API serves queued resources and nodes), the real KubeApi over FakeKube,
the release-manifest fixture in place of the JobSet and Kueue downloads, and a clock whose
sleep only advances it. Nothing reaches any outside host.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import responses

from tests.support.fake_gke import FakeGke, as_json
from tests.support.fakekube import FakeKube
from xcli.gateways.kube.api import KubeApi
from xcli.plan.gke import incluster
from xcli.providers import terraform_live

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "release-manifest.yaml"
ENDPOINT = "203.0.113.9"
CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="
TPU = re.compile(r"https://tpu\.googleapis\.com/v2/(projects/[^/]+/locations/[^/]+)/(.*)")
HOST_KEY = "AAAAC3NzaC1lZDI1NTE5AAAAIHOSTKEY"


def release(url: str) -> str:
    """The fixture manifest, renamed to look like the JobSet or Kueue release at `url`."""
    component = url.split("/")[4]
    text = FIXTURE.read_text()
    return text.replace("gadget", component).replace("Gadget", component.capitalize())


@dataclass
class FakeTpu:
    """Queued resources (ACTIVE, one node each) and their nodes, as the TPU v2 API shows them."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)  # path -> node JSON
    requests: list[tuple[str, str, Any]] = field(default_factory=list)

    def add(self, parent: str, name: str, workers: int) -> None:
        self.nodes[f"{parent}/nodes/{name}"] = {
            "name": f"{parent}/nodes/{name}",
            "state": "READY",
            "metadata": {"ssh-keys": "bob:ssh-rsa AAAAB3OTHER bob"},
            "networkEndpoints": [
                {"ipAddress": f"10.0.{len(self.nodes)}.{i}"} for i in range(workers)
            ],
        }

    def answer(self, request: Any) -> tuple[int, dict[str, str], str]:
        found = TPU.match(request.url.split("?")[0])
        assert found, request.url
        parent, rest = found.groups()
        body = as_json(request.body)
        self.requests.append((request.method, rest, body))
        kind, _, name = rest.partition("/")
        data: Any
        if kind == "queuedResources":
            nodes = [{"parent": parent, "nodeId": name}]
            data = {
                "name": f"{parent}/{rest}",
                "tpu": {"nodeSpec": nodes},
                "state": {"state": "ACTIVE"},
            }
        elif name.endswith(":getGuestAttributes"):
            node = self.nodes[f"{parent}/nodes/{name.split(':')[0]}"]
            items = [{"namespace": "hostkeys", "key": "ssh-ed25519", "value": HOST_KEY}]
            data = {
                "guestAttributes": [{"queryValue": {"items": items}}]
                * len(node["networkEndpoints"])
            }
        elif kind == "operations":  # the metadata update, polled until done
            data = {"name": f"{parent}/{rest}", "done": True}
        elif request.method == "PATCH":
            self.nodes[f"{parent}/{rest}"]["metadata"] = body["metadata"]
            data = {"name": f"{parent}/operations/patch-{name}"}
        else:
            data = self.nodes[f"{parent}/{rest}"]
        return 200, {"content-type": "application/json"}, json.dumps(data)


@dataclass
class Clouds:
    gke: FakeGke
    kube: FakeKube
    tpu: FakeTpu
    fetched: list[str]
    connected: list[tuple[str, str | None]]
    sleeps: list[float]
    projects_read: list[str] = field(default_factory=list)  # compute.projects.get (OS Login)
    # what the CLI is handed (Dependencies(terraform_connections=...)) to reach these fakes
    connections: terraform_live.Connections | None = None

    def add_cluster(self, project: str, region: str, name: str) -> None:
        """The regional cluster the gke-cluster module made (with its endpoint and CA)."""
        key = f"projects/{project}/locations/{region}/clusters/{name}"
        self.gke.clusters[key] = {
            "_key": key,
            "name": name,
            "status": "RUNNING",
            "location": region,
            "endpoint": ENDPOINT,
            "masterAuth": {"clusterCaCertificate": CA},
        }

    def controllers_ready(self) -> None:
        """What the JobSet and Kueue controllers would report once running."""
        for crd in incluster.CRDS:
            self.kube.put(
                f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}",
                {"status": {"conditions": [{"type": "Established", "status": "True"}]}},
            )
        for ref in incluster.CONTROLLERS:
            namespace, name = ref.split("/")
            self.kube.put(
                f"/apis/apps/v1/namespaces/{namespace}/deployments/{name}",
                {"status": {"conditions": [{"type": "Available", "status": "True"}]}},
            )

    def applied(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.kube.patches(dry_run=False)]


@contextmanager
def clouds() -> Iterator[Clouds]:
    from google.auth.credentials import AnonymousCredentials
    from google.oauth2.credentials import Credentials

    from xcli.gateways.google.container import ContainerGateway
    from xcli.gateways.tpu.api import TpuGateway

    made = Clouds(FakeGke(), FakeKube(auto_ready=True), FakeTpu(), [], [], [])

    def gke_answer(request: Any) -> tuple[int, dict[str, str], str]:
        status, data = made.gke.handle(request.method, request.path_url, as_json(request.body))
        return status, {"content-type": "application/json"}, json.dumps(data)

    def kube(endpoint: str, ca: str | None) -> KubeApi:
        made.connected.append((endpoint, ca))
        return KubeApi(endpoint, ca, lambda: "tok", transport=made.kube.transport())

    def fetch(url: str) -> str:
        made.fetched.append(url)
        return release(url)

    def sleep(seconds: float, *_: Any) -> None:
        made.sleeps.append(seconds)

    def project_answer(request: Any) -> tuple[int, dict[str, str], str]:
        """A project without OS Login in its common instance metadata."""
        project = request.url.rsplit("/", 1)[-1]
        made.projects_read.append(project)
        data = {"name": project, "commonInstanceMetadata": {"items": []}}
        return 200, {"content-type": "application/json"}, json.dumps(data)

    connections = terraform_live.Connections(
        container=lambda: ContainerGateway(credentials=AnonymousCredentials()),
        kube=kube,
        tpu=lambda zone: TpuGateway(zone, credentials=Credentials(token="t")),
        fetch=fetch,
        sleep=sleep,
        tpu_sleep=sleep,
    )
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        container = re.compile(r"https://container\.googleapis\.com/.*")
        rsps.add_callback("GET", container, callback=gke_answer)
        compute = re.compile(r"https://compute\.googleapis\.com/compute/v1/projects/[^/]+$")
        rsps.add_callback("GET", compute, callback=project_answer)
        for method in ("GET", "PATCH", "POST"):
            rsps.add_callback(method, TPU, callback=made.tpu.answer)
        made.connections = connections
        yield made
