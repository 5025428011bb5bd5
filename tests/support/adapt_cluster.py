"""A foreign GKE cluster for `cluster adapt`: the real container.v1 client (REST, against
FakeGke through `responses`) reads it, its in-cluster setup goes to an in-memory Kubernetes API,
releases come from the test fixture. The registry's GKE provider is `provider` below
(`DEFAULT.with_target("gke", "tests.support.adapt_cluster:provider")`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.gateways.kube.test_kube_handlers import FIXTURE, Clock, seed
from tests.providers.gke.test_adapt import cluster_json
from tests.support.crd import validate
from tests.support.fake_gke import FakeGke
from tests.support.fakekube import FakeKube
from tests.support.gke_live import live
from xcli.gateways.kube.api import KubeApi
from xcli.gateways.kube.handlers import KubeHandlers
from xcli.plan.gke import incluster
from xcli.plan.model import resolve
from xcli.providers import DEFAULT, Registry
from xcli.providers.gke.provider import GkeProvider
from xcli.workload.team import objects as team_objects
from xcli.workload.team.spec import TeamSpec, parse_quotas

KEY = "projects/my-proj/locations/us-east5/clusters/tk-v6e"
KUEUE = "/apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager"
REGISTRY: Registry = DEFAULT.with_target("gke", f"{__name__}:provider")


@dataclass
class World:
    gke: FakeGke
    kube: FakeKube
    fetched: list[str]


CURRENT: dict[str, Any] = {}


def provider() -> GkeProvider:
    """The registry's GKE provider in these tests: real client to FakeGke, Kubernetes steps to
    the in-memory API, releases from the test fixture (renamed per component)."""
    world: World = CURRENT["world"]
    made: GkeProvider = CURRENT["provider"]

    def fetch(url: str) -> str:
        world.fetched.append(url)
        component = url.split("/")[4]
        return (
            FIXTURE.read_text()
            .replace("gadget", component)
            .replace("Gadget", component.capitalize())
        )

    clock = Clock()
    kube = KubeHandlers(
        lambda _cluster: api(world.kube), fetch=fetch, sleep=clock.sleep, clock=clock
    )
    return GkeProvider(made.container, made.compute, extra_handlers=kube.handlers())


def api(fake: FakeKube) -> KubeApi:
    return KubeApi("203.0.113.9", None, lambda: "tok", transport=fake.transport())


@pytest.fixture
def world() -> Iterator[World]:
    gke, kube = FakeGke(), FakeKube(auto_ready=True)
    data = cluster_json("foreign-v6e-cluster")
    gke.clusters[KEY] = {
        **{k: v for k, v in data.items() if k != "nodePools"},
        "_key": KEY,
        "_system": data["nodePools"],
    }
    for name in incluster.CRDS:
        crd = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
        seed(kube, crd, "CRD", "Established", "True")
    made = World(gke, kube, [])
    with live(gke) as env:
        CURRENT.update(world=made, provider=env.provider)
        yield made
    CURRENT.clear()


def installed(world: World, version: str) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "kueue-controller-manager", "namespace": "kueue-system"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"name": "manager", "image": f"registry.k8s.io/kueue/kueue:{version}"}
                    ]
                }
            }
        },
        "status": {"conditions": [{"type": "Available", "status": "True"}]},
    }
    world.kube.put(KUEUE, deployment)


OWN_QUEUE = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/xcli-cluster-queue"
TEAM_QUEUE = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/xcli-team-research"


def quota(queue: dict[str, Any], flavor: str = "v6e-256") -> Any:
    (group,) = queue["spec"]["resourceGroups"]
    (found,) = [f for f in group["flavors"] if f["name"] == flavor]
    return next(r["nominalQuota"] for r in found["resources"] if r["name"] == "google.com/tpu")


def team_queue(chips: int) -> dict[str, Any]:
    """Team research's ClusterQueue as `xcli team create --quota v6e=<chips>` applied it."""
    spec = TeamSpec("tk-v6e", "research", parse_quotas(f"v6e={chips}", None, None))
    queue = resolve(
        team_objects.cluster_queue(spec, "team-read"), {"team-read": {"flavor_0": "v6e-256"}}
    )
    validate(queue)
    return dict(queue)
