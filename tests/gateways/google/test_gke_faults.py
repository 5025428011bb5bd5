"""Faults a GKE create or delete meets, through the real client over REST against `responses`."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout
from dataclasses import replace

import pytest

from tests.plan.gke_cases import CASES, PROJECT, ZONE
from tests.support.fake_compute import FakeNet
from tests.support.fake_gke import FakeGke
from tests.support.gke_live import Recorder, live, make_provider, ref_of
from xcli.catalog import lookup
from xcli.cli.common import Common, run_plan
from xcli.errors import CloudError, Interrupted, PlanFailed
from xcli.plan.cluster import ClusterRef
from xcli.spec import Capacity, ClusterSpec

FOUR = ClusterSpec("demo", PROJECT, ZONE, "gke", lookup("v5litepod-16"), Capacity("spot"), 4)
LIVE = Common(None, None, "text", False, True, None)


def pool_posts(fake: FakeGke) -> list[str]:
    return [b["nodePool"]["name"] for _, _, b in fake.calls("POST", "/nodePools")]


def test_stockout_on_one_of_four_pools_and_the_rerun_creates_only_that_pool() -> None:
    fake = FakeGke(stockout={"demo-np-2"})
    with live(fake) as env:
        out = io.StringIO()
        with redirect_stdout(out), pytest.raises(PlanFailed) as failed:
            run_plan(LIVE, env.plan(FOUR), lambda: env.provider.handlers(ref_of(FOUR)))
        assert failed.value.exit_code == 1
        summary = out.getvalue()
        assert "4 of 5 steps done" in summary
        assert "FAILED  pool-2: create node pool demo-np-2" in summary
        assert "no capacity in us-east5-b (GCE_STOCKOUT)" in summary
        assert "--spot, --flex-start, a reservation" in summary
        states = {k.rsplit("/", 1)[1]: p["status"] for k, p in fake.pools.items()}
        assert states == {
            "demo-np-0": "RUNNING",
            "demo-np-1": "RUNNING",
            "demo-np-2": "ERROR",
            "demo-np-3": "RUNNING",
        }  # nothing that succeeded is rolled back

        fake.stockout.clear()
        before = len(pool_posts(fake))
        plan = env.plan(FOUR)
        assert [s.id for s in plan.steps] == ["remove-pool-2", "pool-2"]
        result = env.run(plan, ref_of(FOUR))
        assert result.ok
        assert pool_posts(fake)[before:] == ["demo-np-2"]
        assert len(fake.calls("POST", "/clusters?")) == 1  # the cluster was not created again


def test_429_and_operation_in_progress_are_retried_with_jittered_backoff() -> None:
    fake = FakeGke()
    fake.fail("POST", "/nodePools", 429, "Too many operations: cluster demo hits the quota 5")
    fake.fail(
        "POST",
        "/nodePools",
        400,
        "Operation operation-1 is currently creating cluster demo. "
        "Please wait and try again once it is done.",
    )
    _, spec = CASES["v6e-256-x2-spot"]
    with live(fake) as env:
        recorder = Recorder()
        result = env.run(env.plan(spec), ref_of(spec), recorder)
    assert result.ok
    assert len(fake.calls("POST", "/nodePools")) == 4  # 2 pools + 2 refused attempts
    assert set(pool_posts(fake)) == {"demo-np-0", "demo-np-1"}
    assert {p["status"] for p in fake.pools.values()} == {"RUNNING"} and len(fake.pools) == 2
    retries = [line for line in recorder.lines if "GKE is busy" in line]
    assert any("HTTP 429" in line for line in retries)
    assert any("HTTP 400" in line for line in retries)
    assert 2.0 in env.sleeps  # initial 2 s x (0.5 + rand 0.5): jitter is applied


def test_a_400_that_is_not_busy_is_not_retried() -> None:
    fake = FakeGke()
    fake.fail("POST", "/nodePools", 400, "Machine type ct6e-standard-4t is not available in zone")
    _, spec = CASES["v6e-256-x2-spot"]
    with live(fake) as env:
        result = env.run(env.plan(spec), ref_of(spec))
    failed = result.by_status("failed")
    assert len(failed) == 1 and len(result.by_status("ok")) == 2
    error = failed[0].error
    assert isinstance(error, CloudError)
    assert "not available" in error.message and "--zone" in error.hint


def test_403_quota_names_the_quota_and_the_region() -> None:
    fake = FakeGke()
    fake.fail(
        "POST",
        "/nodePools",
        403,
        'Insufficient regional quota to satisfy request: resource "TPU_V6E_PODSLICE_LITE": '
        "request requires '256.0' and is short '128.0'.",
    )
    _, spec = CASES["v6e-256-x2-spot"]
    with live(fake) as env:
        result = env.run(env.plan(spec), ref_of(spec))
    error = result.by_status("failed")[0].error
    assert isinstance(error, CloudError)
    assert "quota exceeded for TPU_V6E_PODSLICE_LITE in us-east5" in error.message
    assert "us-east5" in error.hint and "Quotas" in error.hint


def test_403_permission_names_the_permission() -> None:
    fake = FakeGke()
    fake.fail("POST", "/clusters?", 403, "Required 'container.clusters.create' permission for 'p'.")
    _, spec = CASES["v6e-256-x2-spot"]
    with live(fake) as env:
        result = env.run(env.plan(spec), ref_of(spec))
    error = result.results["cluster"].error
    assert isinstance(error, CloudError)
    assert "permission denied: needs container.clusters.create" in error.message
    assert "container.clusters.create" in error.hint
    assert [r.status for r in result.results.values()] == ["failed", "skipped", "skipped"]


def test_api_not_enabled_says_which_api() -> None:
    fake = FakeGke()
    fake.fail(
        "GET",
        "/clusters/demo",
        403,
        "Kubernetes Engine API has not been used in project my-project before or it is "
        "disabled. Enable it by visiting ... SERVICE_DISABLED",
    )
    _, spec = CASES["v6e-256-x2-spot"]
    with live(fake) as env, pytest.raises(CloudError) as caught:
        env.plan(spec)
    assert "container API is not enabled in project my-project" in caught.value.message
    assert "container.googleapis.com" in caught.value.hint


def test_create_interrupted_after_the_cluster_step_resumes_on_rerun() -> None:
    _, spec = CASES["v6e-256-x2-spot"]
    with live() as env:
        with pytest.raises(Interrupted) as stopped:
            env.run(env.plan(spec), ref_of(spec), Recorder(interrupt_after="cluster"))
        partial = stopped.value.partial
        assert partial.results["cluster"].status == "ok"
        assert {partial.results[p].status for p in ("pool-0", "pool-1")} == {"cancelled"}
        assert env.fake.calls("POST", "/nodePools") == []

        plan = env.plan(spec)
        assert [s.id for s in plan.steps] == ["pool-0", "pool-1"]
        assert plan.steps[0].after == ()
        assert env.run(plan, ref_of(spec)).ok
        assert len(env.fake.calls("POST", "/clusters?")) == 1
        assert sorted(pool_posts(env.fake)) == ["demo-np-0", "demo-np-1"]


def test_delete_of_a_missing_cluster_is_success_with_a_message() -> None:
    ref = ClusterRef("ghost", PROJECT, ZONE, "gke")
    with live() as env:
        plan = env.provider.plan_delete(ref, env.provider.observe(ref, "delete"))
        recorder = Recorder()
        result = env.run(plan, ref, recorder)
    assert result.ok
    assert recorder.lines == ["cluster: already gone"]


def test_delete_removes_the_cluster_and_its_workload_policies() -> None:
    _, spec = CASES["tpu7x-128-x2-spot"]
    ref = ref_of(spec)
    with live() as env:
        assert env.run(env.plan(spec), ref).ok
        assert list(env.fake.policies) == ["demo-wp-4x4x4"]
        plan = env.provider.plan_delete(ref, env.provider.observe(ref, "delete"))
        assert [s.id for s in plan.steps] == ["cluster", "policy-demo-wp-4x4x4"]
        assert env.run(plan, ref).ok
        assert env.fake.clusters == {} and env.fake.policies == {}


def test_409_on_a_pool_with_the_same_shape_is_adopted() -> None:
    _, spec = CASES["v6e-256-x2-spot"]
    with live() as env:
        assert env.run(env.plan(spec), ref_of(spec)).ok
        # a plan made before the pools existed (another process created them meanwhile)
        stale = env.provider.plan_create(spec, None)
        recorder = Recorder()
        assert env.run(stale, ref_of(spec), recorder).ok
    assert "pool-0: already exists with this configuration; adopting it" in recorder.lines


def test_409_on_a_pool_of_another_shape_is_refused() -> None:
    _, spec = CASES["v6e-256-x2-spot"]
    with live() as env:
        assert env.run(env.plan(spec), ref_of(spec)).ok
        other = replace(spec, accelerator=lookup("v6e-64"))
        result = env.run(env.provider.plan_create(other, None), ref_of(spec))
    error = result.results["pool-0"].error
    assert isinstance(error, CloudError)
    assert "already exists with another configuration" in error.message
    assert "16 nodes" not in error.message and "64 nodes" in error.message


def test_delete_after_the_cluster_is_gone_still_finds_leftover_workload_policies() -> None:
    fake = FakeGke()
    fake.policies["demo-wp-4x4x4"] = {"name": "demo-wp-4x4x4"}
    fake.policies["other-wp-2x2x2"] = {"name": "other-wp-2x2x2"}
    ref = ClusterRef("demo", PROJECT, ZONE, "gke")
    with live(fake) as env:
        plan = env.provider.plan_delete(ref, env.provider.observe(ref, "delete"))
        assert [s.id for s in plan.steps] == ["cluster", "policy-demo-wp-4x4x4"]
        assert env.run(plan, ref).ok
    assert list(fake.policies) == ["other-wp-2x2x2"]
    listed = fake.calls("GET", "/resourcePolicies")[0][1]
    assert "filter=name+eq+%22demo-wp-.%2A%22" in listed


def test_throttled_operation_polls_are_retried() -> None:
    fake = FakeNet()  # FakeGke that knows the reservation
    fake.fail("GET", "/operations/", 503, "backend unavailable")
    fake.fail("GET", "/operations/", 429, "Quota exceeded for quota metric 'Read requests'")
    _, spec = CASES["v5p-128-reservation"]
    with live(fake) as env:
        assert env.run(env.plan(spec), ref_of(spec)).ok


def test_409_on_a_cluster_elsewhere_is_refused_and_nothing_else_runs() -> None:
    _, spec = CASES["v6e-256-x2-spot"]
    with live() as env:
        elsewhere = replace(spec, zone="us-east5-a")
        assert env.run(env.provider.plan_create(elsewhere, None), ref_of(elsewhere)).ok
        result = env.run(env.provider.plan_create(spec, None), ref_of(spec))  # a stale plan
    error = result.results["cluster"].error
    assert isinstance(error, CloudError)
    assert "already exists with another configuration (node locations us-east5-a)" in str(error)
    assert [r.status for r in result.results.values()] == ["failed", "skipped", "skipped"]


def test_workload_policy_operation_is_polled_as_the_dry_run_prints_it() -> None:
    """GET on the regional operation (the dry-run's poll line), not operations.wait, which
    holds the connection for up to two minutes: Ctrl-C must not wait for it."""
    _, spec = CASES["tpu7x-128-x2-spot"]
    with live() as env:
        assert env.run(env.plan(spec), ref_of(spec)).ok
        polls = env.fake.calls("GET", "/regions/us-central1/operations/")
        assert env.fake.calls("POST", "/wait") == []
    # the policy insert runs beside the cluster create, so the fake may number its operation
    # either way; what matters is that its regional operation is read until DONE
    assert len(polls) == 1
    assert re.fullmatch(
        r"/compute/v1/projects/my-project/regions/us-central1/operations/operation-\d+", polls[0][1]
    )


def test_rerun_while_the_cluster_is_still_provisioning_waits_for_it() -> None:
    clock = [0.0]
    fake = FakeNet(op_seconds=40.0, clock=lambda: clock[0])  # knows the reservation
    _, spec = CASES["v5p-128-reservation"]
    with live(fake) as env:
        # a first run that was stopped right after GKE accepted the cluster create
        fake.handle("POST", "/v1/projects/my-project/locations/us-east5/clusters",
                    {"cluster": {"name": "demo", "locations": [ZONE]}})  # fmt: skip

        def sleep(seconds: float, _event: object) -> None:
            env.sleeps.append(seconds)
            clock[0] += seconds

        env.provider.container.timing.sleep = sleep
        env.provider.container.timing.clock = lambda: clock[0]
        plan = env.plan(spec)
        assert [(s.id, s.kind) for s in plan.steps] == [
            ("reservation", "reservation_check"),  # the pool it creates is checked first
            ("cluster", "wait"),
            ("pool-0", "api_call"),
        ]
        recorder = Recorder()
        assert env.run(plan, ref_of(spec), recorder).ok
    assert "cluster: provisioning" in recorder.lines
    assert len(fake.calls("POST", "/clusters?")) == 0  # not created a second time
    assert clock[0] >= 40.0


def test_connection_resets_on_an_operation_poll_are_ridden_out() -> None:
    """Three resets in a row on operations.get (a flaky link while a pool is created): the
    poll retries within a budget of minutes, not TRANSPORT_BUDGET's 8 s (issue 37)."""
    fake = FakeNet()
    for _ in range(3):
        fake.drop("GET", "/operations/", "reset")
    _, spec = CASES["v5p-128-reservation"]
    with live(fake) as env:
        env.provider = make_provider(env.sleeps, virtual_clock=True)
        recorder = Recorder()
        result = env.run(env.plan(spec), ref_of(spec), recorder)
    assert result.ok, [r.error for r in result.results.values() if r.error]
    assert len([r for r in fake.requests if r[2] == "reset"]) == 3
    assert any("GKE is busy (connection reset)" in line for line in recorder.lines)


def test_a_host_that_refuses_still_fails_fast() -> None:
    import threading

    from xcli.gateways.backoff import RetryPolicy, Timing, retry_call

    sleeps: list[float] = []
    timing = Timing(sleep=lambda s, _e: sleeps.append(s), clock=lambda: sum(sleeps))

    def refused() -> None:
        raise ConnectionRefusedError(111, "Connection refused")

    with pytest.raises(ConnectionRefusedError):
        retry_call(refused, lambda e: True, timing, RetryPolicy(), threading.Event(), print)
    assert sum(sleeps) <= 8.0
