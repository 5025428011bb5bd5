"""Re-running a cluster's in-cluster setup (`xcli cluster create` again, `xcli cluster adapt`)
after `xcli team create`: the team's chips stay out of the cluster's own ClusterQueue.

One stateful in-memory Kubernetes API serves both: the setup plan runs live through the Kubernetes
step handlers (releases from the test fixture), the team through the CLI.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.app.test_team_use_case import quota
from tests.cli.test_team import CREATE
from tests.gateways.kube.test_kube_handlers import Clock, seed
from tests.plan.test_incluster import CASES as CLUSTERS
from tests.plan.test_incluster import spec
from tests.support.crd import validate
from tests.support.team_cluster import OWN_QUEUE, TEAM_QUEUE
from tests.support.tf_after_apply import release
from tests.support.workload_cluster import WHERE, Cluster, cluster
from xcli.execute.live import LiveExecutor
from xcli.execute.result import RunResult
from xcli.gateways.kube.api import KubeApi
from xcli.gateways.kube.handlers import KubeHandlers
from xcli.plan.gke import incluster
from xcli.plan.model import Plan, resolve
from xcli.plan.render import plan_text
from xcli.plan.steps import K8sApply, LocalAction
from xcli.spec import ClusterSpec

__all__ = ["cluster"]  # the fixture

SPOT = CLUSTERS["v6e-256 x2 spot"]  # 512 chips
KUEUE_CONFIG = "/api/v1/namespaces/kueue-system/configmaps/kueue-manager-config"


def setup_plan(shape: ClusterSpec = SPOT) -> Plan:
    first = LocalAction(id="cluster", summary="the cluster", action="noop")
    steps = incluster.setup_steps(shape, "c", ("cluster",))
    return Plan("setup", (first, *steps))


def run_setup(cluster: Cluster, shape: ClusterSpec = SPOT) -> RunResult:
    cluster.fake.auto_ready = True
    for name in incluster.CRDS:  # the fixture stands in for both releases: seed the real CRDs
        path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
        seed(cluster.fake, path, "CRD", "Established", "True")
    clock = Clock()
    api = KubeApi("203.0.113.9", None, lambda: "tok", transport=cluster.fake.transport())
    kube = KubeHandlers(lambda _c: api, fetch=release, sleep=clock.sleep, clock=clock)
    table: dict[str, Any] = {**kube.handlers(), "local": lambda step, ctx: {}}
    return LiveExecutor(table).run(setup_plan(shape))


def test_team_chips_stay_carved_out_when_the_setup_runs_again(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run_setup(cluster)
    assert first.ok, {k: r.error for k, r in first.results.items() if r.error}
    assert quota(cluster.fake.objects[OWN_QUEUE], "v6e-256") == 512
    code, _, err = cluster.run(CREATE, capsys)  # team t: 64 chips of v6e
    assert code == 0, err
    assert quota(cluster.fake.objects[OWN_QUEUE], "v6e-256") == 448
    team_before = json.dumps(cluster.fake.objects[TEAM_QUEUE], sort_keys=True)

    again = run_setup(cluster)
    assert again.ok, {k: r.error for k, r in again.results.items() if r.error}
    assert again.results["k8s-cohort-read"].outputs == {"chips": 448, "teams": {"t": 64}}
    own = cluster.fake.objects[OWN_QUEUE]
    assert quota(own, "v6e-256") == 448  # not back to 512
    validate(own)
    assert json.dumps(cluster.fake.objects[TEAM_QUEUE], sort_keys=True) == team_before
    # what was applied is the plan's manifest with the read's number in place of its ref
    outputs = {sid: r.outputs for sid, r in again.results.items()}
    planned = next(
        s for s in setup_plan().steps if isinstance(s, K8sApply) and s.id == "k8s-cluster-queue"
    )
    sent = [json.loads(r.content) for r in cluster.fake.patches() if r.url.path == OWN_QUEUE]
    assert sent[-1] == resolve(planned.manifest, outputs)
    # and Kueue runs with fair sharing, so the team's weight counts
    assert (
        "fairSharing:"
        in cluster.fake.objects[KUEUE_CONFIG]["data"]["controller_manager_config.yaml"]
    )

    # the team leaves: its chips go back, and a later setup keeps them there
    code, _, err = cluster.run(["team", "delete", *WHERE, "--team", "t", "--yes"], capsys)
    assert code == 0, err
    assert quota(cluster.fake.objects[OWN_QUEUE], "v6e-256") == 512
    assert run_setup(cluster).ok
    assert quota(cluster.fake.objects[OWN_QUEUE], "v6e-256") == 512


def test_a_smaller_cluster_than_the_teams_hold_is_refused_before_the_queue(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_setup(cluster).ok
    code, _, err = cluster.run([*CREATE[:-1], "v6e=384"], capsys)
    assert code == 0, err
    queue_writes = len([r for r in cluster.fake.patches() if r.url.path == OWN_QUEUE])
    result = run_setup(
        cluster, spec("v6e-256", "spot")
    )  # the cluster shrank to one slice: 256 chips
    error = result.results["k8s-cohort-read"].error
    assert error is not None and "the teams hold 384 google.com/tpu chips of v6e-256" in str(error)
    assert len([r for r in cluster.fake.patches() if r.url.path == OWN_QUEUE]) == queue_writes


def test_the_dry_run_shows_the_read_and_the_reference() -> None:
    text = plan_text(setup_plan())
    assert "[k8s-cohort-read] read the team ClusterQueues of cohort xcli" in text
    assert '"nominalQuota": "${k8s-cohort-read.chips}"' in text
