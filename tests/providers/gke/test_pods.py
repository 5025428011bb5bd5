"""Pod addresses: pods per node on accelerator pools (as XPK), a Pod range sized for the plan,
and a plan whose nodes cannot all get addresses refused before any call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.discovery import check_request
from xcli.catalog import lookup
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.errors import UserError
from xcli.providers.gke import bodies as gke
from xcli.providers.gke import pods as gke_pods
from xcli.spec import Capacity, ClusterSpec

CREATE = "container.projects.locations.clusters.create"
POOLS = "container.projects.locations.clusters.nodePools.create"


def spec(name: str, slices: int = 1, nodes: int = 1) -> ClusterSpec:
    return ClusterSpec(
        "demo", "p", "us-east5-b", "gke", lookup(name), Capacity("spot"), slices, nodes
    )


def pool(s: ClusterSpec) -> dict[str, Any]:
    body = gke.pool_body(s, 0)
    check_request(POOLS, "POST", gke.cluster_url("p", "us-east5", "demo") + "/nodePools", body)
    out: dict[str, Any] = body["nodePool"]
    return out


def cluster(s: ClusterSpec) -> dict[str, Any]:
    body = gke.cluster_body(s)
    check_request(CREATE, "POST", gke.cluster_url("p", "us-east5"), body)
    out: dict[str, Any] = body["cluster"]
    return out


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ("v6e-256", "15"),  # multi-host TPU: xpk nodepool.py l.366
        ("tpu7x-128", "15"),  # workload-policy slices too
        ("v5p-128", "15"),
        ("h100-mega-80gb-8", "32"),  # A3 Mega: nodepool.py l.387
        ("h200-141gb-8", "32"),  # A3 Ultra: blueprint_generator.py l.539
        ("b200-8", "32"),  # A4: blueprint_generator.py l.828
        ("v6e-4", None),  # single-host TPU: GKE's default, as XPK
        ("h100-80gb-8", None),  # A3 High: GKE's default, as XPK
        ("gb200-4", None),  # A4X: XPK sets none
    ],
)
def test_pods_per_node_follow_xpk(shape: str, expected: str | None) -> None:
    got = pool(spec(shape)).get("maxPodsConstraint")
    assert got == (None if expected is None else {"maxPodsPerNode": expected})


def test_addresses_per_node_are_the_power_of_two_above_twice_the_pods() -> None:
    assert [gke_pods.block(p) for p in (110, 32, 15, 8)] == [256, 64, 32, 16]


def test_the_default_range_is_kept_while_it_holds_the_plan() -> None:
    for s in (
        spec("v6e-256", slices=64),
        spec("v5p-4096", slices=2),
        spec("h100-80gb-8", nodes=900),
    ):
        assert cluster(s)["ipAllocationPolicy"] == {"useIpAliases": True}


@pytest.mark.parametrize(
    ("s", "prefix"),
    [
        # 1,000 A3 High nodes at 110 pods (a /24 each) overflow the /14's 1,008 usable slices
        (spec("h100-80gb-8", nodes=1000), "/13"),
        (spec("v6e-4", slices=1024), "/12"),  # 1,024 single-host pools, surge nodes included
        (spec("v5p-4096", slices=200), "/10"),  # 102,400 nodes at 15 pods (a /27 each)
    ],
)
def test_a_bigger_plan_names_a_bigger_pod_range(s: ClusterSpec, prefix: str) -> None:
    policy = cluster(s)["ipAllocationPolicy"]
    assert policy == {"useIpAliases": True, "clusterIpv4CidrBlock": prefix}


def test_a_plan_no_pod_range_can_hold_is_refused() -> None:
    with pytest.raises(UserError, match=r"need \d+ Pod addresses, more than .* \(/10\)") as err:
        gke.check_gke_spec(spec("v5p-4096", slices=1024))
    assert "fewer slices" in err.value.hint


def test_the_cli_refuses_it_with_one_error_and_one_hint(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["cluster", "create", "--cluster", "big", "--tpu-type", "v5p-4096", "--num-slices"]
    argv += ["1024", "--spot", "--project", "my-project", "--zone", "us-east5-b"]
    assert run_guarded(cli, [*argv, "--dry-run"], debug=False) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["error", "hint"]
    assert "Pod addresses" in lines[0]
    # the Terraform path refuses the same plan, before writing anything
    monkeypatch.chdir(tmp_path)
    assert run_guarded(cli, [*argv, "--terraform", "deploy", "--dry-run"], debug=False) == 1
    assert "Pod addresses" in capsys.readouterr().err
    assert not (tmp_path / "deploy").exists()
