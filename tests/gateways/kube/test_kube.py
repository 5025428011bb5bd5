"""The Kubernetes gateway at the HTTP level: SSA requests, URLs, auth, reads, errors."""

from __future__ import annotations

import json
from itertools import count

import httpx2
import pytest

from tests.plan.test_incluster import CASES
from tests.support.fakekube import FakeKube, status, webhook_down
from xcli.errors import CloudError
from xcli.gateways.kube.api import KubeApi
from xcli.gateways.kube.auth import build_client
from xcli.plan.gke import incluster, kueue_objects


def api_for(fake: FakeKube, token: str = "tok") -> KubeApi:
    return KubeApi("203.0.113.9", None, lambda: token, transport=fake.transport())


def test_server_side_apply_request() -> None:
    fake = FakeKube()
    queue = kueue_objects.cluster_queue(CASES["v6e-256 x2 spot"])
    stored = api_for(fake).apply(queue)
    (request,) = fake.requests
    assert request.method == "PATCH"
    assert str(request.url).split("?")[0] == (
        "https://203.0.113.9/apis/kueue.x-k8s.io/v1beta2/clusterqueues/xcli-cluster-queue"
    )
    assert request.headers["Content-Type"] == "application/apply-patch+yaml"
    assert request.headers["Authorization"] == "Bearer tok"
    assert dict(request.url.params) == {
        "fieldManager": "xcli",
        "force": "true",
        "fieldValidation": "Strict",
    }
    assert json.loads(request.content) == queue
    assert stored["metadata"]["uid"] == "uid-1"
    assert stored["spec"] == queue["spec"]


@pytest.mark.parametrize(
    ("obj", "path"),
    [
        (incluster.metadata_configmap(CASES["tpu7x-8"]), "/api/v1/namespaces/default/configmaps/"),
        (kueue_objects.priority_classes()[2], "/apis/scheduling.k8s.io/v1/priorityclasses/"),
        (
            kueue_objects.local_queue(),
            "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/",
        ),
        (
            incluster.webhook_probes()[0],
            "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/",
        ),
        (
            kueue_objects.resource_flavor(CASES["tpu7x-8"]),
            "/apis/kueue.x-k8s.io/v1beta2/resourceflavors/",
        ),
    ],
)
def test_urls_per_kind(obj: dict[str, object], path: str) -> None:
    fake = FakeKube()
    api_for(fake).apply(obj)
    name = obj["metadata"]["name"]  # type: ignore[index]
    assert fake.requests[0].url.path == path + name
    assert json.loads(fake.requests[0].content) == obj


def test_dry_run_apply_and_update_status_codes() -> None:
    fake = FakeKube()
    api = api_for(fake)
    flavor = kueue_objects.resource_flavor(CASES["tpu7x-8"])
    api.apply(flavor, dry_run=True)
    assert fake.requests[-1].url.params["dryRun"] == "All"
    assert fake.objects == {}
    api.apply(flavor)
    api.apply(flavor)
    assert len(fake.objects) == 1
    assert "dryRun" not in fake.requests[-1].url.params


def test_token_is_asked_for_every_request() -> None:
    fake = FakeKube()
    tokens = (f"t{n}" for n in count())
    api = KubeApi("203.0.113.9", None, lambda: next(tokens), transport=fake.transport())
    api.apply(kueue_objects.local_queue())
    api.get("kueue.x-k8s.io/v1beta2", "LocalQueue", "xcli-queue", "default")
    assert [r.headers["Authorization"] for r in fake.requests] == ["Bearer t0", "Bearer t1"]


def test_get_list_delete_and_logs() -> None:
    fake = FakeKube()
    api = api_for(fake)
    cm = incluster.metadata_configmap(CASES["v6e-256 x2 spot"])
    assert api.get("v1", "ConfigMap", "xcli-cluster-metadata", "default") is None
    api.apply(cm)
    got = api.get("v1", "ConfigMap", "xcli-cluster-metadata", "default")
    assert got is not None and got["data"]["slices"] == "2"
    listed = api.list("kueue.x-k8s.io/v1beta2", "LocalQueue", "default")
    assert listed == []
    api.apply(kueue_objects.local_queue())
    listed = api.list("kueue.x-k8s.io/v1beta2", "LocalQueue", "default")
    assert [o["metadata"]["name"] for o in listed] == ["xcli-queue"]
    api.list("v1", "Event", "default", fields={"involvedObject.name": "w-0"}, labels={"a": "b"})
    assert fake.requests[-1].url.path == "/api/v1/namespaces/default/events"
    assert fake.requests[-1].url.params["fieldSelector"] == "involvedObject.name=w-0"
    assert fake.requests[-1].url.params["labelSelector"] == "a=b"
    api.list("v1", "Pod", "*")
    assert fake.requests[-1].url.path == "/api/v1/pods"
    assert api.delete("v1", "ConfigMap", "xcli-cluster-metadata", "default") is True
    assert api.delete("v1", "ConfigMap", "xcli-cluster-metadata", "default") is False
    assert fake.requests[-1].method == "DELETE"
    assert fake.requests[-1].url.params["propagationPolicy"] == "Foreground"
    fake.logs["w-0"] = "step 1\nstep 2\n"
    assert list(api.logs("w-0", tail_lines=10)) == ["step 1", "step 2"]
    assert fake.requests[-1].url.path == "/api/v1/namespaces/default/pods/w-0/log"
    assert fake.requests[-1].url.params["tailLines"] == "10"


@pytest.mark.parametrize(
    ("answer", "retryable", "hint"),
    [
        (webhook_down(), True, "webhook"),
        (status(403, "Forbidden", 'configmaps is forbidden: User "u" cannot patch'), False, "Dev"),
        (status(422, "Invalid", "spec.x: unknown field"), False, "bug"),
        (status(429, "TooManyRequests", "slow down"), True, ""),
        (status(404, "NotFound", "the server could not find the requested resource"), True, ""),
        (httpx2.Response(502, text="<html>bad gateway</html>"), False, ""),
    ],
)
def test_errors_become_cloud_errors(answer: httpx2.Response, retryable: bool, hint: str) -> None:
    fake = FakeKube()
    path = "/apis/kueue.x-k8s.io/v1beta2/resourceflavors/tpu7x-8"
    fake.script("PATCH", path, answer)
    with pytest.raises(CloudError) as err:
        api_for(fake).apply(kueue_objects.resource_flavor(CASES["tpu7x-8"]))
    assert err.value.retryable is retryable
    assert "apply ResourceFlavor tpu7x-8" in err.value.message
    assert hint in err.value.hint


def test_unreachable_endpoint_is_a_retryable_cloud_error() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    api = KubeApi("203.0.113.9", None, lambda: "t", transport=httpx2.MockTransport(refuse))
    with pytest.raises(CloudError, match="cannot reach the cluster") as err:
        api.get("v1", "ConfigMap", "x", "default")
    assert err.value.retryable


def test_bad_ca_certificate_is_reported() -> None:
    with pytest.raises(CloudError, match="CA certificate"):
        build_client("203.0.113.9", "not base64 at all!", lambda: "t")


def test_credentials_are_looked_up_only_when_a_request_is_sent() -> None:
    asked: list[int] = []

    def token() -> str:
        asked.append(1)
        return "t"

    fake = FakeKube()
    api = KubeApi("203.0.113.9", "Zm9v", token, transport=fake.transport())
    assert asked == [] and fake.requests == []
    api.get("v1", "ConfigMap", "x", "default")
    assert asked == [1]


def test_list_follows_pagination() -> None:
    fake = FakeKube()
    path = "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads"

    def page(name: str, cont: str) -> httpx2.Response:
        item = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload"}
        item["metadata"] = {"name": name}  # type: ignore[assignment]
        return httpx2.Response(200, json={"metadata": {"continue": cont}, "items": [item]})

    fake.script("GET", path, page("w1", "next-page"), page("w2", ""))
    found = api_for(fake).list("kueue.x-k8s.io/v1beta2", "Workload", "default")
    assert [w["metadata"]["name"] for w in found] == ["w1", "w2"]
    assert "continue" not in fake.requests[0].url.params
    assert fake.requests[1].url.params["continue"] == "next-page"


def test_get_path_reads_an_aggregated_api_and_maps_404_to_none() -> None:
    fake = FakeKube()
    path = (
        "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/q/pendingworkloads"
    )
    api = api_for(fake)
    assert api.get_path(path, "pending workloads") is None
    fake.objects[path] = {"kind": "PendingWorkloadsSummary", "items": []}
    assert api.get_path(path, "pending workloads") == fake.objects[path]
    assert [str(r.url) for r in fake.requests] == [f"https://203.0.113.9{path}"] * 2
    assert fake.requests[0].headers["Authorization"] == "Bearer tok"
    fake.script("GET", path, status(403, "Forbidden", "cannot get resource"))
    with pytest.raises(CloudError) as err:
        api.get_path(path, "pending workloads")
    assert "pending workloads: 403" in err.value.message
