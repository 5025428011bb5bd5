"""`cluster list` and `cluster describe` on GKE, read through the real client from the fake."""

from __future__ import annotations

import pytest

from tests.plan.gke_cases import CASES, PROJECT, ZONE
from tests.support.gke_live import live, ref_of
from xcli.errors import NotFoundError
from xcli.plan.cluster import ClusterRef


def test_list_shows_accelerator_slices_capacity_and_status() -> None:
    with live() as env:
        for case in ("v6e-256-x2-spot", "h100-80gb-8-x2-on-demand"):
            spec = CASES[case][1]
            spec = spec.__class__(**{**spec.__dict__, "name": case[:4].rstrip("-")})
            assert env.run(env.plan(spec), ref_of(spec)).ok
        rows = env.provider.list_clusters(PROJECT, ZONE)
        listed = env.fake.calls("GET", "/clusters?")[-1][1]
    assert listed.startswith(f"/v1/projects/{PROJECT}/locations/us-east5/clusters")
    got = [(r.name, r.accelerator, r.slices, r.capacity, r.status) for r in rows]
    assert got == [
        ("h100", "h100-80gb-8", 2, "on-demand", "RUNNING"),
        ("v6e", "v6e-256", 2, "spot", "RUNNING"),
    ]


def test_describe_shows_pools_per_slice_with_expected_nodes() -> None:
    spec = CASES["v5litepod-16-flex-start"][1]
    with live() as env:
        assert env.run(env.plan(spec), ref_of(spec)).ok
        info = env.provider.describe(ref_of(spec))
    assert info["status"] == "RUNNING" and info["created_by"] == "xcli"
    pools = {p["name"]: p for p in info["node_pools"]}
    assert pools["demo-np-0"]["slice"] == 0
    assert pools["demo-np-0"]["expected_nodes"] == 4  # flex-start: the autoscaling maximum
    assert pools["demo-np-0"]["capacity"] == "flex-start"
    assert pools["system"]["slice"] is None
    assert "Kubernetes API" in str(pools["demo-np-0"]["ready_nodes"])


def test_describe_of_a_missing_cluster_is_not_found() -> None:
    with live() as env, pytest.raises(NotFoundError) as caught:
        env.provider.describe(ClusterRef("ghost", PROJECT, ZONE, "gke"))
    assert "xcli cluster list" in caught.value.hint
