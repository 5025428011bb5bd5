"""Pre-submit checks and the workload plan (GKE)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.workload.cases import meta_for, spec_for
from xcli.errors import UserError
from xcli.plan.gke.kube_steps import K8sDelete
from xcli.plan.model import Plan
from xcli.plan.render import plan_document
from xcli.plan.steps import K8sApply
from xcli.workload.jobset.plan import (
    check_fits,
    gke_cluster_path,
    manifest_documents,
    plan_workload_create,
)

CLUSTER = gke_cluster_path("my-proj", "us-east5-b", "demo")


def test_cluster_path_is_regional() -> None:
    assert CLUSTER == "projects/my-proj/locations/us-east5/clusters/demo"


def test_wrong_accelerator_is_refused() -> None:
    with pytest.raises(UserError, match="has v6e-256, not v5p-128"):
        check_fits(spec_for("v6e-256-x2", accelerator="v5p-128"), meta_for("v6e-256-x2"), [])


def test_more_slices_than_the_cluster_has_are_refused() -> None:
    with pytest.raises(UserError) as err:
        check_fits(spec_for("v6e-256-x2", num_slices=3), meta_for("v6e-256-x2"), [])
    assert err.value.message == "3 slices requested but cluster demo has 2"
    assert "--num-slices 2" in err.value.hint


def test_fewer_slices_fit() -> None:
    check_fits(spec_for("v6e-256-x2", num_slices=1), meta_for("v6e-256-x2"), [])


def test_more_gpu_nodes_than_the_cluster_has_are_refused() -> None:
    with pytest.raises(UserError, match="3 nodes requested"):
        check_fits(spec_for("h100-80gb-8-x2", num_nodes=3), meta_for("h100-80gb-8-x2"), [])


def test_name_in_use_is_refused_unless_replace() -> None:
    with pytest.raises(UserError, match="already exists") as err:
        plan_workload_create(spec_for("v6e-256-x2"), meta_for("v6e-256-x2"), ["train-1"], CLUSTER)
    assert "--replace" in err.value.hint
    plan = plan_workload_create(
        spec_for("v6e-256-x2", replace=True), meta_for("v6e-256-x2"), ["train-1"], CLUSTER
    )
    delete, apply = plan.steps
    assert isinstance(delete, K8sDelete) and isinstance(apply, K8sApply)
    assert apply.after == ("delete-old",)
    assert (delete.resource, delete.name, delete.namespace) == ("jobsets", "train-1", "default")


def test_plan_applies_one_jobset() -> None:
    plan = plan_workload_create(
        spec_for("v5p-128-x4-spot"), meta_for("v5p-128-x4-spot"), [], CLUSTER
    )
    assert isinstance(plan, Plan)
    (step,) = plan.steps
    assert isinstance(step, K8sApply) and step.cluster == CLUSTER
    assert step.manifest["kind"] == "JobSet"
    assert manifest_documents(plan) == [step.manifest]
    doc = plan_document(plan)
    assert doc["plan"][0]["kind"] == "k8s_apply"
    assert doc["plan"][0]["manifest"] == step.manifest  # what is printed is what is applied


def test_notes_are_honest_about_where_facts_came_from() -> None:
    meta = replace(meta_for("v6e-256-x2"), source="flags")
    plan = plan_workload_create(spec_for("v6e-256-x2"), meta, [], CLUSTER)
    text = "\n".join(plan.notes)
    assert "cluster facts from flags" in text
    assert "existing workload names were not checked" in text
    live = plan_workload_create(spec_for("v6e-256-x2"), meta_for("v6e-256-x2"), [], CLUSTER)
    assert not [n for n in live.notes if "not checked" in n or "from flags" in n]


def test_notes_list_added_restart_codes() -> None:
    spec = spec_for("v6e-256-x2", restart_on_exit_codes=(1, 3), max_restarts=2)
    plan = plan_workload_create(spec, meta_for("v6e-256-x2"), [], CLUSTER)
    assert any("up to 2; exit codes 42, 128-255, 1, 3" in n for n in plan.notes)
