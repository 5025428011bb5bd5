"""The cluster model checks (tests/model/checks.py) over every cluster and workload golden.

A golden the upstream audit found would fail on a real cluster is listed in KNOWN_LIVE_FAILURES
with the audit's id; its test is a strict xfail, so the branch that fixes it sees XPASS and
removes the entry. The lines each check prints are in the test's failure message.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.model.checks import (
    check_all,
    flavors_fit,
    kinds_installed,
    pods_fit,
    queues_cover,
    references_resolve,
)
from tests.model.cluster import cluster_of
from tests.model.goldens import (
    CLUSTERS,
    GOLDENS,
    MADE,
    OBJECT_ONLY,
    WORKLOADS,
    applied_objects,
    cluster_plan,
    golden_plan,
    made_plan,
)
from tests.model.images import images_pulled
from tests.model.upstream_storage import storage_drift
from tests.model.zones import zones_offer
from xcli.spec import Capacity

# golden -> upstream audit id (the reference's upstream-audit.md; issue 22 items 1-4)
KNOWN_LIVE_FAILURES: dict[str, str] = {}
# An empty cluster (--num-slices 0, XPK's CI's empty cluster): its shape's ResourceFlavor has
# no nodes until the pools are added, by design; this one line is expected, every other check
# still runs (issue 36)
EMPTY_CLUSTERS = {
    "gke/n2-standard-64-1-empty.json": "ResourceFlavor n2-standard-64-1 spec.nodeLabels "
    "xcli-accelerator=n2-standard-64-1: on no node of any pool (closest: system)"
}


def _param(name: str) -> Any:
    if name in KNOWN_LIVE_FAILURES:
        mark = pytest.mark.xfail(strict=True, reason=f"audit {KNOWN_LIVE_FAILURES[name]}")
        return pytest.param(name, marks=mark)
    return name


def _report(lines: list[str]) -> str:
    return "\n".join(lines)


@pytest.mark.parametrize("name", [_param(n) for n in CLUSTERS])
def test_cluster_golden(name: str) -> None:
    plan = golden_plan(name)
    cluster = cluster_of(plan)
    objects = applied_objects(plan)
    lines = check_all(cluster, objects) + zones_offer(plan)
    if name in EMPTY_CLUSTERS:
        lines.remove(EMPTY_CLUSTERS[name])  # ValueError if the flavor found nodes after all
    assert not lines, _report(lines)


QUEUED = sorted(
    p.relative_to(GOLDENS).as_posix() for p in (GOLDENS / "queued_resource").glob("*.json")
)


@pytest.mark.parametrize("name", QUEUED)
def test_queued_resource_golden_zones(name: str) -> None:
    """(i) a queued resource's zone offers its family, and flex-start where Cloud TPU has it."""
    lines = zones_offer(golden_plan(name))
    assert not lines, _report(lines)


@pytest.mark.parametrize("name", [_param(n) for n in sorted(WORKLOADS)])
def test_workload_golden_on_its_cluster(name: str) -> None:
    pairing = WORKLOADS[name]
    cluster = cluster_of(cluster_plan(pairing.cluster), *(golden_plan(a) for a in pairing.also))
    plan = golden_plan(name)
    cluster.add(plan)
    objects = applied_objects(plan)
    lines = check_all(cluster, objects)
    assert not lines, _report(lines)


@pytest.mark.parametrize("name", [_param(n) for n in sorted(MADE)])
def test_made_workload_on_its_cluster(name: str) -> None:
    """Workloads of capacity kinds no workload golden shows (flex-start, reservation, spot)."""
    cluster = cluster_of(cluster_plan(MADE[name]))
    plan = made_plan(name)
    cluster.add(plan)
    lines = check_all(cluster, applied_objects(plan)) + images_pulled(cluster.pool_bodies, plan)
    assert not lines, _report(lines)


@pytest.mark.parametrize("name", [_param(n) for n in OBJECT_ONLY])
def test_objects_golden(name: str) -> None:
    """Storage, adapt and team plans: every kind is known, Lustre/gcsfuse/Filestore PVs carry
    what the upstream driver examples carry."""
    plan = golden_plan(name)
    cluster = cluster_of(cluster_plan(("v6e-256", Capacity("spot"), 2)), plan)
    objects = applied_objects(plan)
    lines = kinds_installed(cluster, objects) + references_resolve(cluster)
    lines += storage_drift(objects)
    assert not lines, _report(lines)


def test_every_golden_is_checked_or_said_why_not() -> None:
    seen = set(CLUSTERS) | set(WORKLOADS) | set(OBJECT_ONLY) | set(MADE)
    # no Kubernetes objects: queued resources and Terraform folders; `workload profile|stacks`
    # dry-runs (profile/) only read pods and exec into them, they apply nothing
    not_gke = {"queued_resource", "terraform", "profile"}
    vm = {
        "workload/vm-local.json",
        "workload/vm-queued-resource.json",
        "workload/vm-queued-resource-storage.json",
    }
    for path in sorted(GOLDENS.rglob("*.json")) + sorted((GOLDENS / "network").glob("*.txt")):
        name = path.relative_to(GOLDENS).as_posix()
        if name.split("/")[0] in not_gke or name in vm:
            continue
        assert name in seen, f"{name}: pair it with a cluster in tests/model/goldens.py"
    assert set(KNOWN_LIVE_FAILURES) <= seen


def test_checks_are_not_vacuous() -> None:
    """Each check has something to look at in the goldens it passes on."""
    cluster = cluster_of(golden_plan("gke/v6e-256-x2-spot.json"))
    assert len(cluster.pools) == 3 and cluster.objects("ResourceFlavor")
    workload = applied_objects(golden_plan("workload/v6e-256-x2.json"))
    assert [o["kind"] for o in workload] == ["JobSet"]
    assert flavors_fit(cluster) == []
    assert pods_fit(cluster, workload) == [] and queues_cover(cluster, workload) == []


# Shapes the upstream audit (issue 32) planned and found would fail live, made here from their
# spec as `cluster create --dry-run` makes them: each must now be refused before any call (the
# message names why), or pass the model.
FLEX_6H = Capacity("flex-start", max_run_duration=6 * 3600)
AUDIT_SHAPES: dict[str, tuple[tuple[str, Capacity, int], str | None]] = {
    "gb200-4 x18 flex-start (item 2)": (("gb200-4", FLEX_6H, 18), "--flex-start on A4X"),
    "v6e-256 x80 spot (item 5)": (("v6e-256", Capacity("spot"), 80), "node addresses"),
    "v6e-256 x240 spot (item 5)": (("v6e-256", Capacity("spot"), 240), "15,000 nodes"),
    "h100-mega-80gb-8 x4 flex-start": (("h100-mega-80gb-8", FLEX_6H, 4), None),
    "v6e-256 x32 spot": (("v6e-256", Capacity("spot"), 32), None),
}


@pytest.mark.parametrize("name", sorted(AUDIT_SHAPES))
def test_audit_shape_is_refused_or_passes(name: str) -> None:
    from xcli.errors import UserError

    source, refusal = AUDIT_SHAPES[name]
    try:
        plan = cluster_plan(source)
    except UserError as exc:
        assert refusal is not None, f"refused: {exc}"
        assert refusal in str(exc), str(exc)
        return
    lines = check_all(cluster_of(plan), applied_objects(plan))
    assert not lines, _report(lines)
    assert refusal is None, f"planned, but should be refused ({refusal})"
