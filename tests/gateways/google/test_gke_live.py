"""Live runs of the GKE provider: the real container client over REST, answered by `responses`.

For every golden scenario the request a live run sends must be the request the dry-run printed:
the captured JSON (enums arrive as integers) is parsed back into the request message and
re-serialised with enum names, and so is the printed body, and the two must be equal.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.plan.gke_cases import CASES
from tests.support.discovery import check_request
from tests.support.gke_live import live, ref_of
from xcli.plan.model import resolve, symbolic
from xcli.plan.steps import ApiCall
from xcli.providers.gke.nat import EnsureNat
from xcli.providers.gke.planner import plan_create

REQUESTS = {
    "container.projects.locations.clusters.create": "CreateClusterRequest",
    "container.projects.locations.clusters.nodePools.create": "CreateNodePoolRequest",
}


def normalised(api: str, body: Any) -> dict[str, Any]:
    """Parse a REST body into its request message, print it back with enum names."""
    from google.cloud import container_v1
    from google.protobuf import json_format

    cls = getattr(container_v1, REQUESTS[api])
    message = json_format.ParseDict(body, cls.pb(cls()))
    out: dict[str, Any] = json_format.MessageToDict(message)
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_live_run_sends_exactly_the_dry_run_bodies(case: str) -> None:
    _, spec = CASES[case]
    dry = plan_create(spec)
    with live() as env:
        plan = env.plan(spec)
        result = env.run(plan, ref_of(spec))
        sent = [r for r in env.fake.requests if r[0] == "POST" and "/wait" not in r[1]]
    assert result.ok, [(r.step.id, r.error) for r in result.results.values()]
    # the live plan (nothing existed) is the dry-run plan, step for step
    assert [s.id for s in plan.steps] == [s.id for s in dry.steps]
    calls = [s for s in dry.steps if isinstance(s, ApiCall)]
    calls += [s.create for s in dry.steps if isinstance(s, EnsureNat)]  # no NAT existed
    assert len(sent) == len(calls)
    by_key = {(m, p.split("?")[0], _name(b)): (p, b) for m, p, b in sent}  # pools run concurrently
    # what only the live run knows (the reservation each slice landed in) filled in
    outputs = {sid: r.outputs for sid, r in result.results.items()}
    for step in calls:
        printed = symbolic(resolve(step.body, outputs))
        url = urlsplit(str(step.url))
        path, body = by_key[(step.method, url.path, _name(printed))]
        if step.api.startswith("compute."):
            assert body == printed  # raw REST: byte-for-byte the same JSON
            check_request(step.api, step.method, str(step.url), body)
            continue
        assert parse_qs(urlsplit(path).query) == {"$alt": ["json;enum-encoding=int"]}
        live_body = normalised(step.api, body)
        assert live_body == normalised(step.api, printed)
        check_request(step.api, step.method, str(step.url), live_body)


def _name(body: Any) -> str:
    inner = body.get("nodePool") or body.get("cluster") or body
    return str(inner["name"])


def test_enums_really_are_sent_as_integers() -> None:
    """Why the comparison above normalises: the wire form differs from the printed form."""
    _, spec = CASES["v6e-256-x2-spot"]
    with live() as env:
        env.run(env.plan(spec), ref_of(spec))
        body = env.fake.calls("POST", "/nodePools")[0][2]
    assert body["nodePool"]["placementPolicy"]["type"] == 1  # COMPACT
    assert body["nodePool"]["config"]["reservationAffinity"]["consumeReservationType"] == 1


def test_progress_is_reported_per_pool_while_operations_run() -> None:
    from tests.support.fake_compute import FakeNet
    from tests.support.gke_live import Recorder

    clock = [0.0]
    fake = FakeNet(op_seconds=30.0, clock=lambda: clock[0])  # knows the reservation
    _, spec = CASES["v5p-128-reservation"]  # one pool: the shared fake clock stays serial
    with live(fake) as env:
        real_sleep = env.provider.container.timing.sleep

        def sleep(seconds: float, event: Any) -> None:
            clock[0] += seconds
            real_sleep(seconds, event)

        env.provider.container.timing.sleep = sleep
        env.provider.container.timing.clock = lambda: clock[0]
        recorder = Recorder()
        result = env.run(env.plan(spec), ref_of(spec), recorder)
    assert result.ok
    assert "pool-0: create node pool: running" in recorder.lines
    assert "cluster: create cluster: running" in recorder.lines
    # polls back off (never a tight loop): growing delays until the first operation finished
    assert env.sleeps[:3] == [1.0, 1.25, 1.5625]
    # the pool is first polled near what the cluster operation took, not from 1 s again
    cluster_polls = len(fake.calls("GET", "operations/operation-1"))
    assert 20 < env.sleeps[cluster_polls] < 30
