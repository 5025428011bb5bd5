"""Golden dry-runs of `xcli cluster create` on GKE, each request checked against the discovery doc.

`pytest --update-goldens` rewrites tests/goldens/gke/ from the current output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import REPO
from tests.plan.gke_cases import CASES, PROJECT, ZONE
from tests.support.discovery import check_request
from xcli.app.cluster import with_note
from xcli.cli.main import cli
from xcli.cluster_index import Choice
from xcli.plan.render import plan_json
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.planner import plan_create

GOLDENS = REPO / "tests" / "goldens" / "gke"


def dry_run(flags: list[str], fmt: str, zone: str = ZONE) -> str:
    argv = ["cluster", "create", "--cluster", "demo", *flags, "--project", PROJECT]
    argv += ["--zone", zone, "--dry-run", "--output", fmt]
    result = CliRunner().invoke(cli, argv, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def check_golden(path: Path, text: str, update: bool) -> None:
    if update:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run pytest --update-goldens"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed"


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden_dry_run(case: str, fmt: str, update_goldens: bool) -> None:
    flags, spec = CASES[case]
    suffix = "txt" if fmt == "text" else "json"
    check_golden(GOLDENS / f"{case}.{suffix}", dry_run(flags, fmt, spec.zone), update_goldens)


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_is_the_plan_of_the_spec(case: str) -> None:
    """The CLI turned the flags into the spec the live tests use (same plan, same bytes)."""
    flags, spec = CASES[case]
    note = Choice("gke", "default").note("demo")  # no --provider, demo not recorded
    plan = with_note(plan_create(spec, None, setup_steps), note)
    assert dry_run(flags, "json", spec.zone) == plan_json(plan)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_golden_request_fits_the_discovery_document(case: str) -> None:
    doc = json.loads((GOLDENS / f"{case}.json").read_text())
    checked = []
    for step in doc["plan"]:
        if step["kind"] != "api_call":
            continue
        request = step["request"]
        # container.* against container.v1, compute.* (the TPU7x workload policy) against
        # compute.v1
        check_request(step["api"], request["method"], request["url"], request.get("body"))
        checked.append(step["api"].split(".")[0])
    # the cluster and at least one node pool; an empty cluster (--num-slices 0) has none, and
    # with node auto-provisioning GKE makes the pools
    empty = CASES[case][1].num_slices == 0 or "-nap-" in case
    assert checked.count("container") >= (1 if empty else 2)
    if case.startswith("tpu7x-") and "x2" in case:
        assert "compute" in checked  # the workload policy was checked too


def test_v6e_multislice_golden_has_what_the_issue_asks() -> None:
    doc = json.loads((GOLDENS / "v6e-256-x2-spot.json").read_text())
    pools = [s for s in doc["plan"] if s["id"].startswith("pool-")]
    assert [p["request"]["body"]["nodePool"]["name"] for p in pools] == ["demo-np-0", "demo-np-1"]
    for pool in pools:
        body = pool["request"]["body"]["nodePool"]
        assert body["initialNodeCount"] == 64
        assert body["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "16x16"}
        assert body["config"]["machineType"] == "ct6e-standard-4t"
        assert body["config"]["spot"] is True
        assert pool["after"] == ["cluster"]
    cluster = doc["plan"][0]["request"]["body"]["cluster"]
    assert cluster["locations"] == [ZONE]
    assert cluster["networkConfig"]["datapathProvider"] == "ADVANCED_DATAPATH"
    assert cluster["workloadIdentityConfig"]["workloadPool"] == f"{PROJECT}.svc.id.goog"
    assert any("as if nothing exists" in n for n in doc["notes"])
