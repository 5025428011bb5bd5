from __future__ import annotations

import json

import pytest

from xcli.errors import InternalError
from xcli.plan.model import Fmt, Plan, Ref, resolve, symbolic
from xcli.plan.render import plan_document, plan_json, plan_text
from xcli.plan.steps import ApiCall, K8sApply, LocalAction, SshFanout, Wait, WorkerCommand

BASE = "https://container.googleapis.com/v1/projects/p/locations/r"


def sample_plan() -> Plan:
    create = ApiCall(
        id="cluster",
        summary="create cluster c",
        api="container.projects.locations.clusters.create",
        method="POST",
        url=f"{BASE}/clusters",
        body={"cluster": {"name": "c"}},
    )
    wait = Wait(
        id="cluster-ready",
        summary="wait for the cluster",
        after=("cluster",),
        api="container.projects.locations.operations.get",
        url=Fmt(BASE + "/operations/{}", Ref("cluster", "operation")),
        until="status == DONE",
        timeout_seconds=1800,
    )
    apply = K8sApply(
        id="queue",
        summary="apply LocalQueue",
        after=("cluster-ready",),
        cluster=Ref("cluster-ready", "endpoint"),
        manifest={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}},
    )
    ssh = SshFanout(
        id="hello",
        summary="say hello",
        after=("cluster-ready",),
        workers=(WorkerCommand("w0", Ref("cluster-ready", "ip0"), ("bash", "-c", "echo 'hi'")),),
    )
    return Plan("create cluster c", (create, wait, apply, ssh), notes=("assumes nothing exists",))


def test_refs_print_symbolically_and_resolve_to_values() -> None:
    plan = sample_plan()
    doc = plan_document(plan)
    wait = doc["plan"][1]
    assert wait["request"]["url"] == BASE + "/operations/${cluster.operation}"
    assert doc["plan"][2]["cluster"] == "${cluster-ready.endpoint}"
    outputs = {"cluster": {"operation": "op-1"}, "cluster-ready": {"endpoint": "https://1.2.3.4"}}
    real = plan.steps[1].resolved(outputs)
    assert isinstance(real, Wait)
    assert real.url == BASE + "/operations/op-1"
    assert resolve({"a": [Ref("cluster", "operation")]}, outputs) == {"a": ["op-1"]}
    assert symbolic((Ref("x", "y"), 1)) == ["${x.y}", 1]


def test_json_contract_fields() -> None:
    doc = json.loads(plan_json(sample_plan()))
    assert doc["format"] == "xcli.plan/v1"
    first = doc["plan"][0]
    assert set(first) >= {"id", "kind", "summary", "after", "request"}
    assert first["request"] == {
        "method": "POST",
        "url": f"{BASE}/clusters",
        "body": {"cluster": {"name": "c"}},
    }
    assert doc["plan"][2]["manifest"]["kind"] == "ConfigMap"
    assert doc["plan"][3]["workers"][0]["argv"] == ["bash", "-c", "echo 'hi'"]
    assert [s["after"] for s in doc["plan"]] == [
        [],
        ["cluster"],
        ["cluster-ready"],
        ["cluster-ready"],
    ]


def test_text_form_is_numbered_and_readable() -> None:
    text = plan_text(sample_plan())
    assert text.startswith("Plan: create cluster c (4 steps)\n  note: assumes nothing exists\n")
    assert "  1. [cluster] create cluster c" in text
    assert "  2. [cluster-ready] wait for the cluster  (after 1)" in text
    assert f"GET {BASE}/operations/${{cluster.operation}}" in text
    assert "[w0] ${cluster-ready.ip0}: bash -c 'echo '\"'\"'hi'\"'\"''" in text


def test_plan_rejects_bad_wiring() -> None:
    a = LocalAction(id="a", summary="a", action="noop")
    with pytest.raises(InternalError, match="used twice"):
        Plan("p", (a, a))
    with pytest.raises(InternalError, match="unknown or later"):
        Plan("p", (LocalAction(id="b", summary="b", action="noop", after=("a",)), a))
    uses_ref = LocalAction(id="b", summary="b", action="noop", args={"x": Ref("a", "out")})
    with pytest.raises(InternalError, match="does not run after"):
        Plan("p", (a, uses_ref))
    # a ref to an indirect ancestor is fine
    c = LocalAction(id="c", summary="c", action="noop", after=("a",))
    d = LocalAction(id="d", summary="d", action="noop", after=("c",), args={"x": Ref("a", "o")})
    assert Plan("p", (a, c, d)).dependents("a") == {"c", "d"}
