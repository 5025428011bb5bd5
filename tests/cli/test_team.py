"""`xcli team create | list | delete` on the command line: the dry-run goldens, the list
table, errors as one line, the flags reaching the use case (app/team.py, whose logic is tested
in tests/app/test_team_use_case.py) and the cluster reached through the registry's seam.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO
from tests.support.crd import validate
from tests.support.team_cluster import TEAM_QUEUE, set_up_cluster
from tests.support.workload_cluster import WHERE, Cluster, cluster

__all__ = ["cluster"]  # the fixture

GOLDENS = REPO / "tests" / "goldens" / "team"
CREATE = ["team", "create", *WHERE, "--team", "t", "--quota", "v6e=64"]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden_team_create_dry_run(
    fmt: str, cluster: Cluster, capsys: pytest.CaptureFixture[str], update_goldens: bool
) -> None:
    args = [*CREATE, "--borrowing-limit", "v6e=32", "--dry-run", "--output", fmt]
    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    assert cluster.fake.requests == []  # a dry-run reads nothing: the read is a step
    path = GOLDENS / f"create-v6e-64.{'json' if fmt == 'json' else 'txt'}"
    if update_goldens:
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8"), f"{path.name} changed"


def test_create_on_a_cluster_xcli_did_not_set_up(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cluster.run(CREATE, capsys)
    assert code == 1 and "not set up by xcli" in err
    assert cluster.fake.patches() == []


def _team_status(cluster: Cluster, admitted: int) -> None:
    queue = cluster.fake.objects[TEAM_QUEUE]
    queue["status"] = {
        "pendingWorkloads": 2,
        "admittedWorkloads": admitted,
        "flavorsUsage": [
            {
                "name": "v6e-256",
                "resources": [{"name": "google.com/tpu", "total": 96, "borrowed": 32}],
            }
        ],
    }
    validate(queue)


def test_list_shows_quota_usage_borrowed_and_pending(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up_cluster(cluster.fake)
    assert cluster.run(CREATE, capsys)[0] == 0
    _team_status(cluster, 1)
    code, out, err = cluster.run(["team", "list", *WHERE, "-o", "json"], capsys)
    assert code == 0, err
    rows = {r["team"]: r for r in json.loads(out)}
    assert rows["t"]["quota"] == 64 and rows["t"]["used"] == 96 and rows["t"]["borrowed"] == 32
    assert rows["t"]["pending_workloads"] == 2 and rows["t"]["flavor"] == "v6e-256"
    assert rows["default"]["quota"] == 448
    code, out, _ = cluster.run(["team", "list", *WHERE], capsys)
    assert out.splitlines()[0].split() == [
        "TEAM", "NAMESPACE", "FLAVOR", "QUOTA", "USED", "BORROWED", "PENDING", "ADMITTED"
    ]  # fmt: skip
    assert out.splitlines()[2].split() == ["t", "t", "v6e-256", "64", "96", "32", "2", "1"]


def test_delete_dry_run_prints_the_plan_and_reads_nothing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cluster.run(
        ["team", "delete", *WHERE, "--team", "t", "--dry-run", "-o", "json"], capsys
    )
    assert code == 0, err
    assert next(s["id"] for s in json.loads(out)["plan"]) == "team-read"
    assert cluster.fake.requests == []
