"""GKE's size limits and A4X flex-start (issue 32 items 2 and 5): refused before any call, or
said in the plan's notes; the numbers at the edges."""

from __future__ import annotations

from dataclasses import replace

import pytest

from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.providers.gke import limits
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import plan_create
from xcli.spec import Capacity, ClusterSpec

SPOT = Capacity("spot")


def tpu(slices: int, subnetwork: str | None = None) -> ClusterSpec:
    accel = lookup("v6e-256")
    options = GkeOptions(subnetwork=subnetwork)
    return ClusterSpec("demo", "my-proj", "us-east5-b", "gke", accel, SPOT, slices, options=options)


def test_over_15000_nodes_is_refused() -> None:
    with pytest.raises(UserError, match="GKE allows at most 15,000 nodes per cluster") as err:
        plan_create(tpu(240, subnetwork="big"))
    assert "15,388 nodes" in str(err.value)


def test_the_default_subnet_holds_4092_nodes() -> None:
    assert limits.subnet_prefix(4092) == 20 and limits.subnet_prefix(4093) == 19
    nodes, with_surge = limits.counts(tpu(62))
    assert with_surge <= 4092 < limits.counts(tpu(63))[1], (nodes, with_surge)
    plan_create(tpu(62))
    with pytest.raises(UserError, match="auto-mode /20 subnet in us-east5") as err:
        plan_create(tpu(63))
    assert "--prefix-length 19" in (err.value.hint or "")


def test_over_5000_nodes_notes_the_quota_and_the_subnet_it_needs() -> None:
    plan = plan_create(tpu(80, subnetwork="default"))
    (quota,) = [n for n in plan.notes if "quota lift" in n]
    assert quota.startswith("5,140 nodes:") and "--private" in quota
    (subnet,) = [n for n in plan.notes if n.startswith("subnetwork default")]
    assert "5,221 node addresses" in subnet and "/19" in subnet
    assert not [n for n in plan_create(tpu(32)).notes if "quota lift" in n]


def test_a4x_flex_start_is_refused_with_the_capacity_that_works() -> None:
    accel = lookup("gb200-4")
    flex = Capacity("flex-start", max_run_duration=6 * 3600)
    spec = ClusterSpec("demo", "my-proj", "us-central1-a", "gke", accel, flex, num_nodes=18)
    with pytest.raises(UserError, match="--flex-start on A4X") as err:
        plan_create(spec)
    assert "--reservation" in (err.value.hint or "")
    reserved = Capacity("reservation", reservation="projects/my-proj/reservations/a4x")
    plan_create(replace(spec, capacity=reserved))
