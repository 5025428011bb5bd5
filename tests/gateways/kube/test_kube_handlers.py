"""Live handlers for k8s_apply, k8s_install and k8s_wait, run by the real live executor."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import responses

from tests.plan.test_incluster import CASES, CLUSTER, plan_for
from tests.support.fakekube import FakeKube, status, webhook_down
from xcli.errors import CloudError
from xcli.execute.live import LiveExecutor
from xcli.execute.result import RunResult
from xcli.gateways.kube.api import KubeApi
from xcli.gateways.kube.handlers import KubeHandlers, fetch_manifest, parse_manifest
from xcli.plan.contract import StepContext
from xcli.plan.gke import incluster, kueue_objects
from xcli.plan.gke.kube_steps import K8sDelete, K8sInstall, K8sWait
from xcli.plan.model import Plan, Step, resolve
from xcli.plan.steps import K8sApply, LocalAction

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "release-manifest.yaml"
URL = "https://github.com/example/gadget/releases/download/v1.2.3/manifests.yaml"


class Clock:
    """Fake time: sleeping advances the clock, and every sleep is recorded."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float, *_cancelled: object) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def handlers(fake: FakeKube, clock: Clock, **kwargs: Any) -> KubeHandlers:
    connected: list[str] = []

    def connect(cluster: str) -> KubeApi:
        connected.append(cluster)
        assert cluster == CLUSTER
        return KubeApi("203.0.113.9", None, lambda: "tok", transport=fake.transport())

    # a fixed jitter (x1.0): the waits grow as the policy says, in every run
    kwargs.setdefault("rand", lambda: 0.5)
    made = KubeHandlers(connect, sleep=clock.sleep, clock=clock, **kwargs)
    made.connected = connected  # type: ignore[attr-defined]
    return made


def run(kube: KubeHandlers, *steps: Step) -> RunResult:
    first = LocalAction(id="cluster", summary="the cluster", action="noop")
    table: dict[str, Any] = {**kube.handlers(), "local": lambda step, ctx: {}}
    return LiveExecutor(table).run(Plan("t", (first, *steps)))


def apply_step(obj: Mapping[str, Any], sid: str = "a") -> K8sApply:
    return K8sApply(id=sid, summary=sid, after=("cluster",), cluster=CLUSTER, manifest=obj)


def test_apply_retries_while_the_webhook_is_not_serving() -> None:
    fake, clock = FakeKube(), Clock()
    probe = incluster.webhook_probes()[0]
    path = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/xcli-webhook-probe"
    fake.script("PATCH", path, webhook_down(), webhook_down())
    result = run(handlers(fake, clock), apply_step(probe))
    assert result.ok, result.results["a"].error
    assert [r.url.path for r in fake.patches()] == [path] * 3
    assert len(clock.sleeps) == 2 and clock.sleeps[1] > clock.sleeps[0]
    assert result.results["a"].outputs == {"uid": "uid-1", "resource_version": ""}
    assert json.loads(fake.patches()[-1].content) == probe


def test_apply_fails_at_once_on_an_error_waiting_cannot_fix() -> None:
    fake, clock = FakeKube(), Clock()
    path = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/xcli-cluster-queue"
    fake.script("PATCH", path, status(422, "Invalid", 'ClusterQueue "x" is invalid'))
    queue = kueue_objects.cluster_queue(CASES["tpu7x-8"])
    # b applies another object, so which step meets the scripted 422 does not depend on
    # which thread sends first
    flavor = kueue_objects.resource_flavor(CASES["tpu7x-8"])
    result = run(handlers(fake, clock), apply_step(queue), apply_step(flavor, "b"))
    assert result.results["a"].status == "failed"
    assert "422" in str(result.results["a"].error)
    assert result.results["b"].status == "ok"  # independent steps still run
    assert clock.sleeps == []


def test_apply_gives_up_at_its_deadline() -> None:
    fake, clock = FakeKube(), Clock()
    path = "/apis/kueue.x-k8s.io/v1beta2/resourceflavors/tpu7x-8"
    fake.script("PATCH", path, *[webhook_down("mresourceflavor.kb.io")] * 50)
    kube = handlers(fake, clock, apply_timeout=60)
    result = run(kube, apply_step(kueue_objects.resource_flavor(CASES["tpu7x-8"])))
    error = result.results["a"].error
    assert isinstance(error, CloudError) and "failed calling webhook" in error.message
    assert 0 < clock.now <= 60
    assert kube.connected == [CLUSTER]  # type: ignore[attr-defined]


def test_parse_manifest_orders_and_flattens() -> None:
    objects = parse_manifest(FIXTURE.read_text(), "fixture")
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("Namespace", "gadget-system"),
        ("CustomResourceDefinition", "gadgets.example.xcli.dev"),
        ("Deployment", "gadget-controller-manager"),
        ("ServiceAccount", "gadget-controller"),
        ("Gadget", "default-gadget"),
        ("ConfigMap", "gadget-manager-config"),
    ]
    with pytest.raises(CloudError, match="not valid YAML"):
        parse_manifest("a: [", "broken")
    with pytest.raises(CloudError, match=r"no metadata\.name"):
        parse_manifest("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "nameless")


@responses.activate
def test_install_downloads_and_applies_every_object_in_order() -> None:
    responses.get(URL, body=FIXTURE.read_text())
    fake, clock = FakeKube(), Clock()
    limits = {"cpu": "3", "memory": "5000Mi"}
    requests = {"cpu": "3", "memory": "5000Mi"}
    step = K8sInstall(
        id="install",
        summary="install gadget",
        after=("cluster",),
        cluster=CLUSTER,
        component="gadget",
        version="v1.2.3",
        url=URL,
        limits={
            "deployment": "gadget-system/gadget-controller-manager",
            "container": "manager",
            "limits": limits,
            "requests": requests,
        },
    )
    result = run(handlers(fake, clock, fetch=fetch_manifest), step)
    assert result.ok, result.results["install"].error
    assert [c.request.url for c in responses.calls] == [URL]
    assert [r.url.path for r in fake.patches()] == [
        "/api/v1/namespaces/gadget-system",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.xcli.dev",
        "/apis/apps/v1/namespaces/gadget-system/deployments/gadget-controller-manager",
        "/api/v1/namespaces/gadget-system/serviceaccounts/gadget-controller",
        "/apis/example.xcli.dev/v1/gadgets/default-gadget",  # learnt from the CRD above
        "/api/v1/namespaces/gadget-system/configmaps/gadget-manager-config",
    ]
    expected = parse_manifest(FIXTURE.read_text(), "f")
    resources = {"limits": limits, "requests": requests}
    expected[2]["spec"]["template"]["spec"]["containers"][0]["resources"] = resources
    for request, obj in zip(fake.patches(), expected, strict=True):
        assert json.loads(request.content) == obj
        assert request.url.params["fieldManager"] == "xcli"
        assert request.url.params["force"] == "true"
    assert result.results["install"].outputs == {
        "objects": 6,
        "crds": ["gadgets.example.xcli.dev"],
        "version": "v1.2.3",
    }


@responses.activate
def test_install_reports_a_failed_download() -> None:
    responses.get(URL, status=404)
    result = run(
        handlers(FakeKube(), Clock(), fetch=fetch_manifest),
        K8sInstall(
            id="i",
            summary="i",
            after=("cluster",),
            cluster=CLUSTER,
            component="g",
            version="v1",
            url=URL,
        ),
    )
    error = result.results["i"].error
    assert isinstance(error, CloudError) and URL in error.message


def wait_step(timeout: int = 300) -> K8sWait:
    return K8sWait(
        id="wait",
        summary="wait",
        after=("cluster",),
        cluster=CLUSTER,
        crds=("jobsets.jobset.x-k8s.io",),
        deployments=("jobset-system/jobset-controller-manager",),
        probes=incluster.webhook_probes()[:1],
        timeout_seconds=timeout,
    )


CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/jobsets.jobset.x-k8s.io"
DEPLOY_PATH = "/apis/apps/v1/namespaces/jobset-system/deployments/jobset-controller-manager"
PROBE_PATH = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/xcli-webhook-probe"


def seed(fake: FakeKube, path: str, kind: str, condition: str, value: str) -> None:
    fake.objects[path] = {
        "apiVersion": "apiextensions.k8s.io/v1" if kind == "CRD" else "apps/v1",
        "kind": "CustomResourceDefinition" if kind == "CRD" else "Deployment",
        "metadata": {"name": path.rsplit("/", 1)[-1]},
        "status": {"conditions": [{"type": condition, "status": value}]},
    }


def test_wait_until_crds_controllers_and_webhooks_are_ready() -> None:
    fake, clock = FakeKube(), Clock()
    seed(fake, CRD_PATH, "CRD", "Established", "True")
    seed(fake, DEPLOY_PATH, "Deployment", "Available", "False")
    original = fake.handle
    polls = {"n": 0}

    def handle(request: Any) -> Any:  # the Deployment becomes Available on the third poll
        if request.method == "GET" and request.url.path == DEPLOY_PATH:
            polls["n"] += 1
            if polls["n"] == 3:
                seed(fake, DEPLOY_PATH, "Deployment", "Available", "True")
        return original(request)

    fake.handle = handle  # type: ignore[method-assign]
    fake.script("PATCH", PROBE_PATH, webhook_down(), webhook_down())
    result = run(handlers(fake, clock), wait_step())
    assert result.ok, result.results["wait"].error
    probes = fake.patches()
    assert len(probes) == 3 and all(p.url.params["dryRun"] == "All" for p in probes)
    assert polls["n"] == 3
    assert PROBE_PATH not in fake.objects  # a dry run stores nothing
    assert len(clock.sleeps) == 4


def test_wait_times_out_naming_what_is_not_ready() -> None:
    fake, clock = FakeKube(), Clock()
    seed(fake, DEPLOY_PATH, "Deployment", "Available", "True")
    result = run(handlers(fake, clock), wait_step(timeout=60))
    error = result.results["wait"].error
    assert isinstance(error, CloudError)
    assert "crd/jobsets.jobset.x-k8s.io" in error.message
    assert "deployment" not in error.message
    assert clock.now <= 60


def test_whole_setup_live_sends_what_the_dry_run_printed() -> None:
    """Every object the live run applies equals the manifest in the plan, byte for byte."""
    fake, clock = FakeKube(auto_ready=True), Clock()
    text = FIXTURE.read_text()
    fetched: list[str] = []

    def fetch(url: str) -> str:  # the fixture, renamed to look like each release
        fetched.append(url)
        component = url.split("/")[4]
        return text.replace("gadget", component).replace("Gadget", component.capitalize())

    plan = plan_for(CASES["h100-80gb-8 flex-start"])
    table: dict[str, Any] = {
        **handlers(fake, clock, fetch=fetch).handlers(),
        "local": lambda step, ctx: {},
    }
    # The fixture stands in for both releases; the wait then looks for the real CRD names.
    for name in incluster.CRDS:
        seed(
            fake,
            f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}",
            "CRD",
            "Established",
            "True",
        )
    for ref in incluster.CONTROLLERS:
        ns, name = ref.split("/")
        seed(
            fake,
            f"/apis/apps/v1/namespaces/{ns}/deployments/{name}",
            "Deployment",
            "Available",
            "True",
        )
    result = LiveExecutor(table).run(plan)
    assert result.ok, {k: r.error for k, r in result.results.items() if r.error}
    assert sorted(fetched) == sorted(
        incluster.release_url(c, v) for c, v in (("jobset", "v0.12.0"), ("kueue", "v0.19.2"))
    )
    sent = [json.loads(r.content) for r in fake.patches(dry_run=False)]
    outputs = {sid: r.outputs for sid, r in result.results.items()}
    assert outputs["k8s-cohort-read"] == {"chips": 32, "teams": {}}  # no team: all chips
    planned = [dict(resolve(s.manifest, outputs)) for s in plan.steps if isinstance(s, K8sApply)]
    for obj in planned:
        assert obj in sent
    assert sent[-1]["kind"] == "ConfigMap"  # written last
    kueue = fake.objects[
        "/apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager"
    ]
    resources = kueue["spec"]["template"]["spec"]["containers"][0]["resources"]
    (install,) = [s for s in plan.steps if isinstance(s, K8sInstall) and s.component == "kueue"]
    assert resources["limits"] == install.limits["limits"]
    assert resources["requests"] == install.limits["requests"]  # request = limit, as XPK


def test_handler_context_reports_progress() -> None:
    fake, clock = FakeKube(), Clock()
    messages: list[str] = []

    class Reporter:
        def started(self, step: Step) -> None:
            pass

        def progress(self, step: Step, message: str) -> None:
            messages.append(message)

        def finished(self, result: Any) -> None:
            pass

    fake.script("PATCH", PROBE_PATH, webhook_down())
    kube = handlers(fake, clock)
    import threading

    ctx = StepContext(apply_step({}), Reporter(), threading.Event(), {})
    kube.apply_with_retry(kube.api(CLUSTER), incluster.webhook_probes()[0], ctx)
    assert any("retrying" in m for m in messages)


def test_install_refuses_a_manifest_without_the_controller_to_resize() -> None:
    fake = FakeKube()
    step = K8sInstall(
        id="i",
        summary="i",
        after=("cluster",),
        cluster=CLUSTER,
        component="g",
        version="v1",
        url=URL,
        limits={"deployment": "g-system/missing", "container": "manager", "limits": {}},
    )
    result = run(handlers(fake, Clock(), fetch=lambda url: FIXTURE.read_text()), step)
    error = result.results["i"].error
    assert isinstance(error, CloudError) and "g-system/missing" in error.message
    assert fake.patches() == []  # nothing half-installed


def delete_step(timeout: int = 600) -> K8sDelete:
    return K8sDelete(
        id="del",
        summary="delete",
        after=("cluster",),
        cluster=CLUSTER,
        api_version="jobset.x-k8s.io/v1alpha2",
        resource="jobsets",
        namespace="default",
        name="xcli-webhook-probe",
        timeout_seconds=timeout,
    )


def test_delete_in_the_foreground_and_wait_until_gone() -> None:
    fake, clock = FakeKube(), Clock()
    api = KubeApi("203.0.113.9", None, lambda: "t", transport=fake.transport())
    api.apply(incluster.webhook_probes()[0])
    stored = fake.objects[PROBE_PATH]
    gets = {"n": 0}
    original = fake.handle

    def handle(request: Any) -> Any:  # the JobSet lingers for two polls after the DELETE
        if request.method == "DELETE":
            response = original(request)
            fake.objects[PROBE_PATH] = stored
            return response
        if request.method == "GET":
            gets["n"] += 1
            if gets["n"] == 3:
                fake.objects.pop(PROBE_PATH)
        return original(request)

    fake.handle = handle  # type: ignore[method-assign]
    result = run(handlers(fake, clock), delete_step())
    assert result.ok, result.results["del"].error
    assert result.results["del"].outputs == {"existed": True}
    (delete,) = [r for r in fake.requests if r.method == "DELETE"]
    assert delete.url.path == PROBE_PATH
    assert delete.url.params["propagationPolicy"] == "Foreground"
    assert gets["n"] == 3 and len(clock.sleeps) == 2


def test_delete_of_a_missing_object_is_success_and_a_stuck_one_times_out() -> None:
    result = run(handlers(FakeKube(), Clock()), delete_step())
    assert result.ok and result.results["del"].outputs == {"existed": False}
    fake = FakeKube()
    KubeApi("203.0.113.9", None, lambda: "t", transport=fake.transport()).apply(
        incluster.webhook_probes()[0]
    )
    stored = fake.objects[PROBE_PATH]
    original = fake.handle

    def never_gone(request: Any) -> Any:
        response = original(request)
        fake.objects[PROBE_PATH] = stored
        return response

    fake.handle = never_gone  # type: ignore[method-assign]
    result = run(handlers(fake, Clock()), delete_step(timeout=30))
    error = result.results["del"].error
    assert isinstance(error, CloudError) and "still exists" in error.message
