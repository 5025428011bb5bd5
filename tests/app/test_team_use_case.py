"""app/team.py against an in-memory Kubernetes API reached through the registry's
ClusterAccess: what a team plan applies (validated against the Kueue CRDs and
lightkube-models), the dry-run's manifests with the read step's outputs filled in, and the
refusals. The CLI's rendering (goldens, the list table) is tested in tests/cli/test_team.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.app.cluster_deps import ClusterWorld
from tests.app.test_ssh_use_case import Where
from tests.support.core import validate_core
from tests.support.crd import validate
from tests.support.team_cluster import KUEUE, OWN_QUEUE, TEAM_QUEUE, set_up_cluster
from xcli.app import team
from xcli.errors import ConfigError, UserError

WHERE = Where(project="my-proj", zone="us-east5-b")


def create(quota: str = "v6e=64", borrowing: str | None = None) -> team.CreateRequest:
    return team.CreateRequest("demo", "t", quota, borrowing, None, "1", WHERE)


def quota(queue: dict[str, Any], flavor: str, resource: str = "google.com/tpu") -> Any:
    for group in queue["spec"]["resourceGroups"]:
        for f in group["flavors"]:
            for r in f["resources"]:
                if (f["name"], r["name"]) == (flavor, resource):
                    return r["nominalQuota"]
    raise AssertionError(f"no {resource} in flavor {flavor}")


def check(obj: dict[str, Any]) -> None:
    (validate_core if obj["apiVersion"] == "v1" else validate)(obj)


def team_status(world: ClusterWorld, admitted: int) -> None:
    queue = world.fake.objects[TEAM_QUEUE]
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


def test_a_dry_run_reads_nothing_the_read_is_a_step() -> None:
    world = ClusterWorld()
    team.create(create(borrowing="v6e=32"), world.deps(dry=True))
    assert world.fake.requests == []
    assert world.printed_steps()["team-read"]["kind"] == "team_read"


def test_create_applies_the_dry_run_plan_with_the_read_outputs() -> None:
    world = ClusterWorld()
    set_up_cluster(world.fake)
    team.create(create(), world.deps(dry=True))
    printed = world.printed_steps()
    team.create(create(), world.deps())
    applied = {r.url.path: json.loads(r.content) for r in world.fake.patches()}
    for obj in applied.values():
        check(obj)
    # the dry-run's manifests, with the read step's outputs in place of its refs
    team_queue = json.loads(
        json.dumps(printed["k8s-team-queue"]["manifest"]).replace(
            "${team-read.flavor_0}", "v6e-256"
        )
    )
    assert applied[TEAM_QUEUE] == team_queue
    assert applied["/api/v1/namespaces/t"] == printed["k8s-namespace"]["manifest"]
    local = f"{KUEUE}/namespaces/t/localqueues/xcli-queue"
    assert applied[local] == printed["k8s-local-queue"]["manifest"]
    assert applied[local]["spec"] == {"clusterQueue": "xcli-team-t"}
    assert team_queue["spec"]["cohortName"] == "xcli"
    # no borrowWithinCohort: Kueue ignores it under the fair sharing xcli turns on (docs/teams.md)
    assert team_queue["spec"]["preemption"] == {
        "withinClusterQueue": "LowerPriority",
        "reclaimWithinCohort": "Any",
    }
    # the cluster's own queue joins the cohort and gives the team its 64 chips (512 - 64)
    own = applied[OWN_QUEUE]
    assert own["spec"]["cohortName"] == "xcli" and quota(own, "v6e-256") == 448
    assert "status" not in own and "uid" not in own["metadata"]
    order = [r.url.path for r in world.fake.patches()]
    assert order.index(OWN_QUEUE) < order.index(TEAM_QUEUE) < order.index(local)
    # again with another quota: the old one goes back first, nothing is taken twice
    team.create(create("v6e-256=128"), world.deps())
    assert quota(world.fake.objects[OWN_QUEUE], "v6e-256") == 384
    assert quota(world.fake.objects[TEAM_QUEUE], "v6e-256") == 128


@pytest.mark.parametrize(
    ("quota_flag", "message"),
    [
        ("v5p=8", "the cluster has no v5p accelerators (its flavors: v6e-256)"),
        ("v6e=600", "the cluster has 512 google.com/tpu chips of v6e-256 not given to a team"),
    ],
)
def test_create_refuses_what_the_cluster_cannot_give_before_writing(
    quota_flag: str, message: str
) -> None:
    world = ClusterWorld()
    set_up_cluster(world.fake)
    with pytest.raises(UserError) as err:
        team.create(create(quota_flag), world.deps())
    assert message in err.value.message
    assert world.fake.patches() == []


def test_create_on_a_cluster_xcli_did_not_set_up() -> None:
    world = ClusterWorld()
    with pytest.raises(ConfigError, match="not set up by xcli"):
        team.create(create(), world.deps())
    assert world.fake.patches() == []


def test_list_shows_quota_usage_borrowed_and_pending() -> None:
    world = ClusterWorld()
    set_up_cluster(world.fake)
    team.create(create(), world.deps())
    team_status(world, 1)
    rows = {r["team"]: r for r in team.list_teams(team.ListRequest("demo", WHERE), world.deps())}
    assert rows["t"]["quota"] == 64 and rows["t"]["used"] == 96 and rows["t"]["borrowed"] == 32
    assert rows["t"]["pending_workloads"] == 2 and rows["t"]["flavor"] == "v6e-256"
    assert rows["default"]["quota"] == 448


def test_delete_refuses_while_workloads_run_unless_forced() -> None:
    world = ClusterWorld()
    set_up_cluster(world.fake)
    team.create(create(), world.deps())
    team_status(world, 1)
    with pytest.raises(UserError) as err:
        team.delete(team.DeleteRequest("demo", "t", False, WHERE), world.deps())
    assert "team t has 1 workload(s) admitted" in err.value.message
    assert "--force" in f"{err.value.message} {err.value.hint}"
    assert [r for r in world.fake.requests if r.method == "DELETE"] == []
    assert quota(world.fake.objects[OWN_QUEUE], "v6e-256") == 448
    assert "/api/v1/namespaces/t" in world.fake.objects
    team.delete(team.DeleteRequest("demo", "t", True, WHERE), world.deps())
    assert "/api/v1/namespaces/t" not in world.fake.objects
    assert TEAM_QUEUE not in world.fake.objects
    assert quota(world.fake.objects[OWN_QUEUE], "v6e-256") == 512  # the chips are back
    assert world.asked == ["Delete team t (namespace t and its workloads) on demo?"] * 2


def test_delete_asks_before_reading_and_a_no_costs_nothing() -> None:
    world = ClusterWorld()
    with pytest.raises(UserError, match="needs confirmation"):
        team.delete(team.DeleteRequest("demo", "t", False, WHERE), world.deps(answer=False))
    assert world.fake.requests == [] and world.plans == []


def test_delete_dry_run_plans_the_read_and_reads_nothing() -> None:
    world = ClusterWorld()
    team.delete(team.DeleteRequest("demo", "t", False, WHERE), world.deps(dry=True))
    steps = [(s["id"], s["kind"]) for s in world.printed_steps().values()]
    assert steps == [
        ("team-read", "team_read"),
        ("k8s-delete-namespace", "k8s_delete"),
        ("k8s-delete-team-queue", "k8s_delete"),
        ("k8s-cluster-queue", "k8s_apply"),
    ]
    assert world.fake.requests == []


def test_teams_need_a_provider_with_kubernetes_clusters(tmp_path: Any) -> None:
    from xcli import cluster_index

    cluster_index.record("vms", "queued-resource")
    world = ClusterWorld()
    with pytest.raises(UserError, match="teams are Kueue queues on GKE clusters"):
        team.list_teams(team.ListRequest("vms", WHERE), world.deps())
