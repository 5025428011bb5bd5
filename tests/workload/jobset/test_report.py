"""Kueue admission as `workload list` and `status` report it, from CRD-valid Workloads."""

from __future__ import annotations

import pytest

from tests.support.fakekube import FakeKube
from tests.support.workload_cluster import add_jobset, add_kueue, cond
from xcli.workload.jobset.report import admission, current_pods, list_note, short_duration

AT = "2026-11-22T10:00:02Z"


@pytest.mark.parametrize(
    ("conditions", "state", "reason"),
    [
        ([cond("QuotaReserved", "False", "Pending", "no quota", AT)], "pending", "Pending"),
        (
            [cond("QuotaReserved", "True", "QuotaReserved", "ok", AT)],
            "quota-reserved",
            "QuotaReserved",
        ),
        (
            [
                cond("QuotaReserved", "True", "QuotaReserved", "ok", AT),
                cond("Admitted", "True", "Admitted", "ok", AT),
            ],
            "admitted",
            "Admitted",
        ),
        (
            [
                cond("Admitted", "False", "NoReservation", "evicted", AT),
                cond("Evicted", "True", "Preempted", "preempted by a higher priority", AT),
            ],
            "evicted",
            "Preempted",
        ),
        ([cond("Finished", "True", "Succeeded", "done", AT)], "finished", "Succeeded"),
    ],
)
def test_admission_states(conditions: list[dict[str, str]], state: str, reason: str) -> None:
    wl = add_kueue(FakeKube(), "w", conditions)
    found = admission(wl)
    assert (found["state"], found["reason"]) == (state, reason)
    assert found["queue"] == "xcli-queue" and found["workload"] == "jobset-w-3c9a1"


def test_admission_flavors_and_checks() -> None:
    check = {"name": "dws-prov", "state": "Retry", "message": "stockout", "lastTransitionTime": AT}
    wl = add_kueue(
        FakeKube(),
        "w",
        [cond("QuotaReserved", "True", "QuotaReserved", "ok", AT)],
        [check],
        admission={
            "clusterQueue": "xcli-cluster-queue",
            "podSetAssignments": [{"name": "slice", "flavors": {"google.com/tpu": "1xv5p-128"}}],
        },
    )
    found = admission(wl)
    assert found["cluster_queue"] == "xcli-cluster-queue"
    assert found["flavors"] == {"google.com/tpu": "1xv5p-128"}
    assert found["admission_checks"] == [
        {"name": "dws-prov", "state": "Retry", "message": "stockout"}
    ]
    assert admission(None)["state"] == "none"


def test_list_note() -> None:
    pending = add_kueue(FakeKube(), "w", [cond("QuotaReserved", "False", "Pending", "x", AT)])
    assert list_note("queued", pending) == "pending: Pending"
    assert list_note("queued", None) == "none: no Workload yet"
    assert list_note("succeeded", None) == "none"


def test_current_pods_drop_an_earlier_attempt() -> None:
    js = add_jobset(FakeKube(), "v5litepod-16-x1", "w", [], restarts=2)
    pods = [
        {"metadata": {"name": n, "labels": {"jobset.sigs.k8s.io/restart-attempt": a}}}
        for n, a in (("old", "1"), ("new", "2"))
    ]
    assert [p["metadata"]["name"] for p in current_pods(js, pods)] == ["new"]
    assert current_pods(js, pods[:1]) == pods[:1]  # nothing of this attempt yet: show what exists


def test_short_duration() -> None:
    assert [short_duration(s) for s in (0, 59, 3700, 90061)] == ["0s", "59s", "1h1m", "1d1h"]
