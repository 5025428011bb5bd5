"""The accelerator network profile: on v6e pools only, and only on a GKE version that has it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.discovery import check_request
from xcli.catalog import lookup
from xcli.plan.model import Plan
from xcli.plan.steps import ApiCall
from xcli.providers.gke.accel_network import DRA_LABEL, MIN_TEXT
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import CREATE_POOL, plan_create
from xcli.spec import Capacity, ClusterSpec


def _plan(device: str, slices: int = 1, **options: Any) -> Plan:
    accel = lookup(device)
    nodes = {"num_nodes": 2} if accel.kind == "gpu" else {"num_slices": slices}
    spec = ClusterSpec(
        "demo",
        "my-proj",
        "us-east5-b",
        "gke",
        accel,
        Capacity("spot"),
        options=GkeOptions(**options),
        **nodes,
    )
    return plan_create(spec)


def _pools(plan: Plan) -> list[dict[str, Any]]:
    pools = []
    for step in plan.steps:
        if isinstance(step, ApiCall) and step.api == CREATE_POOL:
            request = step.details()["request"]
            check_request(step.api, request["method"], request["url"], request["body"])
            pools.append(request["body"]["nodePool"])
    return pools


@pytest.mark.parametrize("device", ["v6e-256", "v6e-8", "v6e-1"])
def test_every_v6e_pool_asks_for_the_profile_and_carries_the_dranet_label(device: str) -> None:
    plan = _plan(device, 2)
    pools = _pools(plan)
    assert len(pools) == 2
    for pool in pools:
        assert pool["networkConfig"] == {"acceleratorNetworkProfile": "auto"}
        assert pool["config"]["labels"][DRA_LABEL] == "true"
    assert any("accelerator network profile" in n and MIN_TEXT in n for n in plan.notes)


@pytest.mark.parametrize("device", ["tpu7x-512", "v5p-128", "v5litepod-16", "gb200-4"])
def test_other_families_keep_what_they_had(device: str) -> None:
    plan = _plan(device)
    for pool in _pools(plan):
        assert "acceleratorNetworkProfile" not in pool.get("networkConfig", {})
        assert DRA_LABEL not in pool["config"].get("labels", {})
    assert not any("accelerator network profile" in n for n in plan.notes)


@pytest.mark.parametrize("version", ["1.33.5-gke.1000", "1.34.1-gke.1829000", "1.34.0", "1.32"])
def test_an_older_gke_version_gets_no_profile_and_a_note(version: str) -> None:
    plan = _plan("v6e-256", gke_version=version)
    assert all("networkConfig" not in p for p in _pools(plan))
    (note,) = [n for n in plan.notes if "accelerator network profile" in n]
    assert f"--gke-version {version} is older than {MIN_TEXT}" in note


@pytest.mark.parametrize("version", ["1.34.1-gke.1829001", "1.34", "1.35.0-gke.1", "latest"])
def test_a_new_enough_version_keeps_it_without_the_version_warning(version: str) -> None:
    plan = _plan("v6e-256", gke_version=version)
    assert all(p["networkConfig"]["acceleratorNetworkProfile"] == "auto" for p in _pools(plan))
    (note,) = [n for n in plan.notes if "accelerator network profile" in n]
    assert "release channel" not in note
