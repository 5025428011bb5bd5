"""workload/jobset/waiting.py: Kueue's QuotaReserved=False messages as one human line."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.crd import validate
from xcli.workload.jobset.waiting import waiting_reason


def workload(message: str, *, admitted: bool = False) -> dict[str, Any]:
    conditions = [
        {
            "type": "QuotaReserved",
            "status": "False",
            "reason": "Pending",
            "message": message,
            "lastTransitionTime": "2026-11-22T10:00:00Z",
        }
    ]
    if admitted:
        conditions.append({**conditions[0], "type": "Admitted", "status": "True"})
    wl = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "jobset-train-1-abcde", "namespace": "t"},
        "spec": {
            "queueName": "xcli-queue",
            "podSets": [
                {
                    "name": "slice",
                    "count": 64,
                    "template": {"spec": {"containers": [{"name": "main", "image": "img"}]}},
                }
            ],
        },
        "status": {"conditions": conditions},
    }
    validate(wl)
    return wl


PREFIX = "couldn't assign flavors to pod set slice: "


@pytest.mark.parametrize(
    ("message", "kind", "words"),
    [
        (
            PREFIX
            + "insufficient unused quota for google.com/tpu in flavor v6e-256, 64 more needed",
            "over-quota",
            "over quota: 64 more google.com/tpu in flavor v6e-256",
        ),
        (
            PREFIX + "insufficient unused quota in cohort for google.com/tpu in flavor v6e-256, "
            "32 more needed",
            "cohort-empty",
            "borrowing not possible: the other queues of the cohort have no unused",
        ),
        (
            PREFIX + "borrowing limit for google.com/tpu in flavor v6e-256 exceeded",
            "borrowing-limit",
            "borrowing not possible: its team's borrowing limit",
        ),
        (
            PREFIX + "insufficient quota for google.com/tpu in flavor v6e-256, previously "
            "considered podsets requests (0) + current podset request (1k) > "
            "maximum capacity (512)",
            "never-fits",
            "(at most 512, borrowing included)",
        ),
        ("Pending the preemption of 2 workload(s)", "preempting", "preempts 2 lower-priority"),
        ("LocalQueue xcli-queue doesn't exist", "other", "Kueue: LocalQueue xcli-queue"),
    ],
)
def test_each_kueue_message_becomes_one_line(message: str, kind: str, words: str) -> None:
    found = waiting_reason(workload(message))
    assert found is not None and found[0] == kind and words in found[1], found


def test_an_admitted_workload_is_not_waiting() -> None:
    assert waiting_reason(workload("anything", admitted=True)) is None
    assert waiting_reason(None) is None
