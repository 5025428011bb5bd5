"""`xcli cluster adapt` on the command line, against a recorded foreign cluster
(tests/support/adapt_cluster.py): the dry-run goldens, `--yes` answering the upgrade question,
the run's JSON summary and progress lines, errors with their hint. What the use case reads and
applies is tested in tests/app/test_cluster_ops_use_case.py."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO
from tests.plan.test_incluster import CASES as CLUSTERS
from tests.support.adapt_cluster import (
    OWN_QUEUE,
    REGISTRY,
    TEAM_QUEUE,
    World,
    installed,
    quota,
    team_queue,
    world,
)
from tests.support.cluster_access import registry_over
from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.plan.gke import kueue_objects

__all__ = ["world"]  # the fixture

GOLDENS = REPO / "tests" / "goldens" / "adapt"
WHERE = ["--project", "my-proj", "--zone", "us-east5-b"]
ADAPT = ["cluster", "adapt", "--cluster", "tk-v6e", *WHERE]


def run(args: list[str], capsys: pytest.CaptureFixture[str], world: World) -> tuple[int, str, str]:
    providers, _ = registry_over(world.kube, REGISTRY)
    deps = Dependencies(providers=providers)
    code = run_guarded(cli, args, debug=False, obj=deps)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden_adapt_dry_run(
    fmt: str, world: World, capsys: pytest.CaptureFixture[str], update_goldens: bool
) -> None:
    shape = ["--tpu-type", "v6e-256", "--num-slices", "2", "--spot"]
    code, out, err = run([*ADAPT, *shape, "--dry-run", "-o", fmt], capsys, world)
    assert code == 0, err
    assert world.gke.requests == [] and world.kube.requests == []  # no credentials needed
    path = GOLDENS / f"v6e-256-x2-spot.{'json' if fmt == 'json' else 'txt'}"
    if update_goldens:
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8"), f"{path.name} changed"


def test_a_breaking_upgrade_is_asked_first(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    installed(world, "v0.14.3")
    code, _, err = run(ADAPT, capsys, world)
    assert code == 1 and "needs confirmation" in err and "v1beta2" in err, err
    assert world.kube.patches(dry_run=False) == []  # nothing installed before the answer
    code, _, err = run([*ADAPT, "--yes"], capsys, world)
    assert code == 0, err


def test_adapt_again_keeps_the_teams_chips_out_of_the_cluster_queue(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cluster xcli set up, where team research then took 192 of the 512 chips."""
    installed(world, "v0.19.2")
    world.kube.put(TEAM_QUEUE, team_queue(192))
    own = json.loads(json.dumps(dict(kueue_objects.cluster_queue(CLUSTERS["v6e-256 x2 spot"]))))
    own["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = 320
    world.kube.put(OWN_QUEUE, own)
    code, out, err = run([*ADAPT, "--yes", "-o", "json"], capsys, world)
    assert code == 0, err
    assert quota(world.kube.objects[OWN_QUEUE]) == 320  # not back to 512
    assert quota(world.kube.objects[TEAM_QUEUE]) == 192
    outputs = {s["id"]: s["outputs"] for s in json.loads(out)["steps"]}
    assert outputs["k8s-cohort-read"] == {"chips": 320, "teams": {"research": 192}}
    assert "teams hold research 192 chips; the cluster's queue keeps 320" in err


def test_adapt_refuses_when_teams_hold_more_than_the_cluster(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.kube.put(TEAM_QUEUE, team_queue(600))
    code, _, err = run([*ADAPT, "--yes"], capsys, world)
    assert code == 1, err
    assert "the teams hold 600 google.com/tpu chips of v6e-256 (research 600)" in err
    assert "more than the cluster's 512" in err and "hint: lower a team's quota" in err
    assert OWN_QUEUE not in world.kube.objects  # the cluster queue is not applied
