"""Why Kueue has not admitted a workload yet, in one line a person can act on. Pure.

Kueue explains a pending Workload in its `QuotaReserved=False` condition. The messages come
from its flavor assigner and scheduler (https://github.com/kubernetes-sigs/kueue, v0.19.2,
`pkg/scheduler/flavorassigner/flavorassigner.go` and `pkg/scheduler/scheduler.go`):
- "couldn't assign flavors to pod set P: insufficient unused quota for R in flavor F, N more
  needed": the queue (with what it may borrow) has N too few free;
- "insufficient unused quota in cohort for R in flavor F, N more needed": borrowing is
  allowed but the cohort has nothing left to lend;
- "borrowing limit for R in flavor F exceeded": the queue's borrowingLimit stops it;
- "insufficient quota for R in flavor F, ... > maximum capacity (M)": it can never fit;
- "Pending the preemption of N workload(s)": lower-priority workloads are being evicted.
Several pod sets' messages are joined with "; ". A message this module does not know is shown
as Kueue wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_RULES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "preempting",
        re.compile(r"Pending the preemption of (?P<n>\d+) workload"),
        "waiting while Kueue preempts {n} lower-priority workload(s) to make room",
    ),
    (
        "never-fits",
        re.compile(
            r"insufficient quota for (?P<r>\S+) in flavor (?P<f>[^,\s]+),.*maximum capacity "
            r"\((?P<max>[^)]+)\)"
        ),
        "never fits: it asks for more {r} than its queue can ever use in flavor {f} "
        "(at most {max}, borrowing included); ask for fewer chips or a larger quota",
    ),
    (
        "borrowing-limit",
        re.compile(r"borrowing limit for (?P<r>\S+) in flavor (?P<f>\S+) exceeded"),
        "borrowing not possible: its team's borrowing limit for {r} in flavor {f} is reached; "
        "it waits for its own quota to free up",
    ),
    (
        "cohort-empty",
        re.compile(
            r"insufficient unused quota in cohort for (?P<r>\S+) in flavor (?P<f>[^,\s]+), "
            r"(?P<n>\S+) more needed"
        ),
        "borrowing not possible: the other queues of the cohort have no unused {r} in flavor "
        "{f} to lend ({n} more needed)",
    ),
    (
        "over-quota",
        re.compile(
            r"insufficient unused quota for (?P<r>\S+) in flavor (?P<f>[^,\s]+), "
            r"(?P<n>\S+) more needed"
        ),
        "over quota: {n} more {r} in flavor {f} than its queue has free, and what runs there "
        "has the same or a higher priority (lower-priority work would be preempted); it waits "
        "for running workloads to finish",
    ),
)


def waiting_reason(kueue: Mapping[str, Any] | None) -> tuple[str, str] | None:
    """(kind, one line) for a pending Kueue Workload; None when it is not waiting for quota."""
    if kueue is None:
        return None
    conditions = {c.get("type"): c for c in (kueue.get("status") or {}).get("conditions") or []}
    if (conditions.get("Admitted") or {}).get("status") == "True":
        return None
    reserved = conditions.get("QuotaReserved") or {}
    if reserved.get("status") != "False":
        return None
    message = str(reserved.get("message") or "")
    for kind, pattern, text in _RULES:
        found = pattern.search(message)
        if found:
            return kind, text.format(**found.groupdict())
    return ("other", f"Kueue: {message}") if message else None
