"""The Terraform-mode plan: which steps, in which order, and the seam for after apply."""

from __future__ import annotations

from dataclasses import replace

from tests.terraform.cases import CASES
from xcli.plan.model import Ref, Step
from xcli.plan.steps import K8sApply
from xcli.providers.gke.terraform import TERRAFORM as GKE
from xcli.providers.queued_resource.terraform import TERRAFORM as QR
from xcli.spec import ClusterSpec
from xcli.terraform import TerraformRun, deployment_files, plan_create

SPEC = CASES["v6e-256-x2-spot"].spec()


def test_without_apply_only_files_are_written() -> None:
    plan = plan_create(SPEC, "d", GKE, apply=True, binary=None)
    assert {s.kind for s in plan.steps} == {"local"}
    written = {s.args["path"] for s in plan.steps}  # type: ignore[attr-defined]
    assert written == {f"terraform/{rel}" for rel in deployment_files(SPEC, "d", GKE)}
    assert any("terraform -chdir=d apply -input=false tfplan" in n for n in plan.notes)


def test_yes_skips_the_question() -> None:
    plan = plan_create(SPEC, "d", GKE, apply=True, binary="tofu", confirm=False)
    runs = [s for s in plan.steps if isinstance(s, TerraformRun)]
    assert [s.id for s in runs] == ["tf-init", "tf-plan", "tf-show", "tf-apply", "tf-output"]
    assert runs[3].after == ("tf-show",) and all(s.argv[0] == "tofu" for s in runs)
    assert runs[0].details()["command"] == "tofu -chdir=d init -input=false"


def test_post_apply_steps_run_after_the_outputs() -> None:
    def post_apply(spec: ClusterSpec, after: str) -> list[Step]:
        manifest = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": spec.name}}
        return [
            K8sApply(
                id="ns",
                summary="namespace",
                after=(after,),
                cluster=Ref(after, "cluster_name"),
                manifest=manifest,
            )
        ]

    plan = plan_create(SPEC, "d", GKE, apply=True, binary="terraform", post_apply=post_apply)
    assert plan.steps[-1].id == "ns" and plan.steps[-1].after == ("tf-output",)
    assert plan.steps[-2].id == "tf-output"


def test_after_apply_a_single_queued_resource_gets_the_api_paths_steps() -> None:
    """One slice: the same wait and SSH-access requests as `cluster create` without
    --terraform; two slices: the same per queued resource, each under its own name."""
    from xcli.plan.render import step_document
    from xcli.providers.queued_resource import planner as qr_plan

    one = replace(CASES["v6e-256-x2-queued-resource"].spec(), num_slices=1)
    api = {s.kind: step_document(s) for s in qr_plan.plan_create(one).steps if s.id != "create"}
    tf = {s.kind: step_document(s) for s in QR.post_apply(one, "tf-output")}
    assert tf.keys() == api.keys() == {"local", "api_call", "wait", "tpu_ssh_access"}
    for kind, doc in tf.items():
        same = {k: v for k, v in doc.items() if k not in ("id", "after")}
        assert same == {k: v for k, v in api[kind].items() if k not in ("id", "after")}
    two = QR.post_apply(CASES["v6e-256-x2-queued-resource"].spec(), "tf-output")
    access = [s for s in two if s.kind == "tpu_ssh_access"]
    assert [(s.queued_resource, s.nodes) for s in access] == [  # type: ignore[attr-defined]
        ("demo-0", ("demo-0",)),
        ("demo-1", ("demo-1",)),
    ]
    expected = {"ssh-key", "os-login-check"}
    assert all(set(s.after) == {*expected, f"wait-active-{s.queued_resource}"} for s in access)  # type: ignore[attr-defined]
