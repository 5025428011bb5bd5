"""The straggler rule (docs/stragglers.md), applied to every worker's arrival marks. Pure.

Per step, a worker's **lateness** is its arrival mark minus the step's earliest arrival: in
synchronous training the collective evens step intervals out, but not arrivals
(../docs/stragglers.md, "the signal"). Steps are cut into windows of `window` steps; in each,
a worker's lateness is the median over its steps, and the worker is flagged when that median
exceeds the workers' median by more than both k x MAD (the median absolute deviation across
workers) and a floor (a fraction of the window's step time, never under `min_seconds`).
Chronic: flagged in a majority of the most recent windows. One-off: a step where the worker
arrived later than the step's median arrival by more than a step time (and `stall_min_seconds`).
Time lost: per step, the slowest arrival minus the median arrival, summed.

Built for 2,304 workers x 2,000 steps (benchmarks/stragglers.py): rows and columns of plain
floats, the per-step work in C (zip, min, sorted), the per-worker work per window.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from itertools import chain, pairwise
from operator import sub
from statistics import median

from xcli.workload.stragglers.marks import Arrivals, WorkerMarks
from xcli.workload.stragglers.model import (
    CHRONIC,
    INTERMITTENT,
    ONE_OFF,
    Rule,
    Straggler,
    Verdict,
    Window,
    WorkerRow,
)

INF = math.inf
DEFAULT_WINDOW = 50


def judge(
    name: str,
    arrivals: Arrivals,
    window: int = DEFAULT_WINDOW,
    since: float | None = None,
    rule: Rule | None = None,
) -> Verdict:
    rule = rule or Rule()
    workers = arrivals.workers
    steps, rows = _grid(arrivals, since, rule.warmup_steps)
    notes = list(arrivals.notes)
    if not steps:
        notes.append(
            "no step was marked by at least half the workers: call xcli.goodput.arrive(step) "
            "on every worker (docs/goodput.md)"
        )
        return Verdict(
            name, (), (), tuple(WorkerRow(w.worker, w.host, (), ()) for w in workers), 0.0,
            0, None, window, arrivals.source, rule, arrivals.requests, tuple(notes),
        )  # fmt: skip
    full = all(INF not in row for row in rows)  # the usual case: no mark missing
    cols = list(zip(*rows, strict=True))
    earliest = [min(c) for c in cols]
    medians, lost = [], []
    for col in cols:
        done = sorted(col) if full else sorted(t for t in col if t < INF)
        mid = _median_sorted(done)
        medians.append(mid)
        lost.append(done[-1] - mid)
    bounds = [(i, min(i + window, len(steps))) for i in range(0, len(steps), window)]
    windows: list[Window] = []
    per_worker: list[list[float | None]] = [[] for _ in workers]
    flags: list[list[bool]] = [[] for _ in workers]
    stall_at: list[float] = []  # per step: the arrival time above which it is a stall
    for lo, hi in bounds:
        step_time = _step_time(steps[lo:hi], earliest[lo:hi])
        values: list[float | None] = []
        first = earliest[lo:hi]
        for n, row in enumerate(rows):
            late = map(sub, row[lo:hi], first)  # lateness: the mark minus the step's earliest
            finite = sorted(late) if full else sorted(v for v in late if v < INF)
            value = _median_sorted(finite) if finite else None
            values.append(value)
            per_worker[n].append(value)
        present = sorted(v for v in values if v is not None)
        mid = _median_sorted(present)
        mad = _median_sorted(sorted(abs(v - mid) for v in present))
        floor = max(rule.floor_fraction * (step_time or 0.0), rule.min_seconds)
        threshold = max(rule.k_mad * mad, floor)
        for n, value in enumerate(values):
            flags[n].append(value is not None and value - mid > threshold)
        stall = max(rule.stall_steps * (step_time or 0.0), rule.stall_min_seconds)
        stall_at += [m + stall for m in medians[lo:hi]]
        windows.append(
            Window(steps[lo], steps[hi - 1], hi - lo, step_time, mid, mad, threshold,
                   sum(lost[lo:hi]))
        )  # fmt: skip
    stalls = _stalls(cols, stall_at, medians, steps, full)
    found = _stragglers(workers, per_worker, flags, stalls, rule)
    table = tuple(
        WorkerRow(w.worker, w.host, tuple(per_worker[n]), tuple(flags[n]))
        for n, w in enumerate(workers)
    )
    overall = _step_time(steps, earliest)
    return Verdict(
        name, found, tuple(windows), table, sum(lost), len(steps), overall, window,
        arrivals.source, rule, arrivals.requests, tuple(notes),
    )  # fmt: skip


def _grid(
    arrivals: Arrivals, since: float | None, warmup: int
) -> tuple[list[int], list[list[float]]]:
    """The steps judged (marked by at least half the workers, after the warm-up and `since`)
    and one row of arrival times per worker over them (INF: that worker did not mark it)."""
    workers = arrivals.workers
    count = Counter(chain.from_iterable(w.steps for w in workers))
    first = sorted(count)[:warmup]
    quorum = max(1, (len(workers) + 1) // 2)
    steps = sorted(s for s, c in count.items() if c >= quorum and s not in first)
    wanted = array("q", steps)
    rows = []
    for w in workers:
        i = bisect_left(w.steps, steps[0]) if steps else 0
        if w.steps[i : i + len(steps)] == wanted:  # the usual case: every step, in order
            row = list(w.times[i : i + len(steps)])
        else:
            at = dict(zip(w.steps, w.times, strict=True))
            row = [at.get(s, INF) for s in steps]
        rows.append(row)
    if since is not None and steps:
        keep = [i for i in range(len(steps)) if min(r[i] for r in rows) >= since]
        steps = [steps[i] for i in keep]
        rows = [[r[i] for i in keep] for r in rows]
    return steps, rows


def _step_time(steps: Sequence[int], earliest: Sequence[float]) -> float | None:
    gaps = [b - a for (s, a), (t, b) in pairwise(zip(steps, earliest, strict=True)) if t == s + 1]
    return median(gaps) if gaps else None


def _median_sorted(values: Sequence[float]) -> float:
    n = len(values)
    if not n:
        return 0.0
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def _stalls(
    cols: list[tuple[float, ...]],
    stall_at: list[float],
    medians: list[float],
    steps: list[int],
    full: bool,
) -> dict[int, list[tuple[float, int]]]:
    """Per worker index: (lateness over the step's median arrival, step) of each stall. Only
    the columns whose latest arrival is a stall are looked into."""
    out: dict[int, list[tuple[float, int]]] = {}
    for i, col in enumerate(cols):
        limit = stall_at[i]
        latest = max(col) if full else max((t for t in col if t < INF), default=0.0)
        if latest <= limit:
            continue
        for n, t in enumerate(col):
            if limit < t < INF:
                out.setdefault(n, []).append((t - medians[i], steps[i]))
    return out


def _stragglers(
    workers: Sequence[WorkerMarks],
    per_worker: list[list[float | None]],
    flags: list[list[bool]],
    stalls: dict[int, list[tuple[float, int]]],
    rule: Rule,
) -> tuple[Straggler, ...]:
    found = []
    for n, w in enumerate(workers):
        marked = flags[n]
        recent = marked[-rule.recent_windows :]
        flagged = sum(marked)
        hits = sum(recent)
        chronic = bool(recent) and hits >= len(recent) // 2 + 1
        own = stalls.get(n, [])
        if not flagged and not own:
            continue
        worst = max(own) if own else None
        if flagged:
            pairs = zip(per_worker[n], marked, strict=True)
            late = median(v for v, f in pairs if f and v is not None)
            kind = CHRONIC if chronic else INTERMITTENT
        else:
            assert worst is not None
            late, kind = worst[0], ONE_OFF
        found.append(
            Straggler(
                w.worker, w.host, late, chronic, kind, flagged, hits,
                len(own), worst[1] if worst else None,
            )
        )  # fmt: skip
    found.sort(key=lambda s: (not s.chronic, s.kind != INTERMITTENT, -s.lateness_seconds))
    return tuple(found)
