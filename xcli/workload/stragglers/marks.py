"""Every worker's arrival marks (`XCLI_GOODPUT arrive=<n>`, xcli.goodput.arrive), as read. Pure.

A mark's time is when xcli read the line (the runner on VM-style clusters, the kubelet's
timestamp on GKE), never a clock of the program. Two sources give the same value: the VM
runner's `goodput.jsonl` (one JSON line per mark line: `at`, `worker`, `line`) and a pod's log
read with `timestamps=true` (`<RFC 3339> <line>`). A step marked twice by one worker (a restart
repeats the steps since its checkpoint) keeps the last mark: the attempt that went on.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

ARRIVE = re.compile(r"XCLI_GOODPUT\b.*?\barrive=(\d+)\b")


@dataclass(frozen=True, eq=False)
class WorkerMarks:
    """One worker's arrivals: `steps[i]` was marked at `times[i]` (POSIX seconds), by step."""

    worker: str  # "s1/w2" (slice 1, worker 2), as the logs prefix it; "w2" with one slice
    host: str | None  # the GKE node or the VM it ran on; None when not known
    steps: array[int]
    times: array[float]


@dataclass(frozen=True)
class Arrivals:
    workers: tuple[WorkerMarks, ...]
    source: str  # "runner" (VM-style) or "pod logs" (GKE)
    requests: int = 0  # API requests the read took (0 on VM-style clusters: a local file)
    notes: tuple[str, ...] = ()


def arrive_step(line: str) -> int | None:
    found = ARRIVE.search(line)
    return int(found.group(1)) if found else None


def worker_marks(worker: str, host: str | None, pairs: Iterable[tuple[int, float]]) -> WorkerMarks:
    """From (step, time) pairs in read order: the last mark of each step, ordered by step."""
    last: dict[int, float] = {}
    for step, at in pairs:
        last[step] = at
    ordered = sorted(last.items())
    return WorkerMarks(
        worker, host, array("q", (s for s, _ in ordered)), array("d", (t for _, t in ordered))
    )


def from_runner_lines(lines: Iterable[str], hosts: dict[str, str] | None = None) -> Arrivals:
    """The VM runner's goodput.jsonl lines (a torn last line is skipped)."""
    per: dict[str, list[tuple[int, float]]] = {}
    for raw in lines:
        if "arrive=" not in raw:
            continue
        try:
            item = json.loads(raw)
            step = arrive_step(str(item["line"]))
            at = float(item["at"])
            worker = str(item["worker"])
        except (ValueError, KeyError, TypeError):
            continue
        if step is not None:
            per.setdefault(worker, []).append((step, at))
    hosts = hosts or {}
    return Arrivals(
        tuple(worker_marks(w, hosts.get(w), p) for w, p in sorted(per.items(), key=_order)),
        "runner",
    )


def from_log_lines(lines: Iterable[str]) -> list[tuple[int, float]]:
    """(step, time) of a pod log read with timestamps=true: `<RFC 3339> <line>`. The kubelet
    writes `2026-11-22T10:00:01.250000000Z`: the whole seconds are parsed once per second
    (a 2,000-step log has a few hundred), the fraction added."""
    from xcli.workload.goodput.gke_attempts import ts

    out = []
    seconds: dict[str, float | None] = {}
    for line in lines:
        if "arrive=" not in line:
            continue
        stamp, _, text = line.partition(" ")
        step = arrive_step(text)
        if step is None:
            continue
        head, dot, frac = stamp.partition(".")
        if dot and frac.endswith("Z") and frac[:-1].isdigit():
            if head not in seconds:
                seconds[head] = ts(head + "Z")
            base = seconds[head]
            at = None if base is None else base + float("0." + frac[:-1])
        else:
            at = ts(stamp)
        if at is not None:
            out.append((step, at))
    return out


def order_key(worker: str) -> tuple[int, ...]:
    """s10/w2 after s2/w9: numbers compared as numbers."""
    return tuple(int(n) for n in re.findall(r"\d+", worker))


def _order(item: tuple[str, object]) -> tuple[int, ...]:
    return order_key(item[0])
