"""`xcli team create | list | delete` against an in-memory Kubernetes API, and their dry-runs.

The cluster is what `cluster create` leaves (the metadata ConfigMap, the ResourceFlavor and
ClusterQueue built by plan/kueue_objects.py); every object a team plan applies is validated
against the Kueue CRDs (tests/data/kueue) or lightkube-models, and the live requests are the
dry-run's manifests with the read step's outputs filled in.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import REPO
from tests.plan.test_incluster import CASES as CLUSTERS
from tests.support.core import validate_core
from tests.support.crd import validate
from tests.support.workload_cluster import CONFIGMAP, WHERE, Cluster, cluster
from xcli.plan import incluster
from xcli.plan.kueue_objects import kueue_objects

__all__ = ["cluster"]  # the fixture

GOLDENS = REPO / "tests" / "goldens" / "team"
KUEUE = "/apis/kueue.x-k8s.io/v1beta2"
OWN_QUEUE = f"{KUEUE}/clusterqueues/xcli-cluster-queue"
TEAM_QUEUE = f"{KUEUE}/clusterqueues/xcli-team-t"
CREATE = ["team", "create", *WHERE, "--team", "t", "--quota", "v6e=64"]


def set_up_cluster(cluster: Cluster, case: str = "v6e-256 x2 spot") -> None:
    """What `cluster create` applied, as the API server stores it (queue: before cohorts)."""
    spec = CLUSTERS[case]
    cluster.fake.put(CONFIGMAP, incluster.metadata_configmap(spec))
    for _key, obj in kueue_objects(spec):
        if obj["kind"] == "ResourceFlavor":
            cluster.fake.put(f"{KUEUE}/resourceflavors/{obj['metadata']['name']}", obj)
        if obj["kind"] == "ClusterQueue":
            old = json.loads(json.dumps(obj))
            del old["spec"]["cohortName"]  # a cluster set up before teams existed
            old["metadata"].update(uid="uid-cq", resourceVersion="41")
            old["status"] = {"admittedWorkloads": 0}
            cluster.fake.put(OWN_QUEUE, old)


def quota(queue: dict[str, Any], flavor: str, resource: str = "google.com/tpu") -> Any:
    for group in queue["spec"]["resourceGroups"]:
        for f in group["flavors"]:
            for r in f["resources"]:
                if (f["name"], r["name"]) == (flavor, resource):
                    return r["nominalQuota"]
    raise AssertionError(f"no {resource} in flavor {flavor}")


def check(obj: dict[str, Any]) -> None:
    (validate_core if obj["apiVersion"] == "v1" else validate)(obj)


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


def test_create_applies_the_dry_run_plan_with_the_read_outputs(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up_cluster(cluster)
    code, out, err = cluster.run([*CREATE, "--dry-run", "-o", "json"], capsys)
    assert code == 0, err
    printed = {s["id"]: s for s in json.loads(out)["plan"]}
    code, out, err = cluster.run(CREATE, capsys)
    assert code == 0, err
    applied = {r.url.path: json.loads(r.content) for r in cluster.fake.patches()}
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
    order = [r.url.path for r in cluster.fake.patches()]
    assert order.index(OWN_QUEUE) < order.index(TEAM_QUEUE) < order.index(local)
    # again with another quota: the old one goes back first, nothing is taken twice
    code, _, err = cluster.run([*CREATE[:-1], "v6e-256=128"], capsys)
    assert code == 0, err
    assert quota(cluster.fake.objects[OWN_QUEUE], "v6e-256") == 384
    assert quota(cluster.fake.objects[TEAM_QUEUE], "v6e-256") == 128


@pytest.mark.parametrize(
    ("quota_flag", "message"),
    [
        ("v5p=8", "the cluster has no v5p accelerators (its flavors: v6e-256)"),
        ("v6e=600", "the cluster has 512 google.com/tpu chips of v6e-256 not given to a team"),
    ],
)
def test_create_refuses_what_the_cluster_cannot_give_before_writing(
    quota_flag: str, message: str, cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up_cluster(cluster)
    code, _, err = cluster.run([*CREATE[:-1], quota_flag], capsys)
    assert code == 1 and message in err, err
    assert cluster.fake.patches() == []


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
    set_up_cluster(cluster)
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


def test_delete_refuses_while_workloads_run_unless_forced(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up_cluster(cluster)
    assert cluster.run(CREATE, capsys)[0] == 0
    _team_status(cluster, 1)
    delete = ["team", "delete", *WHERE, "--team", "t", "--yes"]
    code, _, err = cluster.run(delete, capsys)
    assert code == 1 and "team t has 1 workload(s) admitted" in err and "--force" in err
    assert [r for r in cluster.fake.requests if r.method == "DELETE"] == []
    assert quota(cluster.fake.objects[OWN_QUEUE], "v6e-256") == 448
    assert "/api/v1/namespaces/t" in cluster.fake.objects
    code, _, err = cluster.run([*delete, "--force"], capsys)
    assert code == 0, err
    assert "/api/v1/namespaces/t" not in cluster.fake.objects
    assert TEAM_QUEUE not in cluster.fake.objects
    assert quota(cluster.fake.objects[OWN_QUEUE], "v6e-256") == 512  # the chips are back


def test_delete_dry_run_prints_the_plan_and_reads_nothing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cluster.run(
        ["team", "delete", *WHERE, "--team", "t", "--dry-run", "-o", "json"], capsys
    )
    assert code == 0, err
    steps = [(s["id"], s["kind"]) for s in json.loads(out)["plan"]]
    assert steps == [
        ("team-read", "team_read"),
        ("k8s-delete-namespace", "k8s_delete"),
        ("k8s-delete-team-queue", "k8s_delete"),
        ("k8s-cluster-queue", "k8s_apply"),
    ]
    assert cluster.fake.requests == []
