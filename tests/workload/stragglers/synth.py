"""Arrival marks made up for tests and benchmarks: a synchronous job where every worker's
arrival at step n is the step's start plus its host-side time plus noise, and the step starts
when the last worker of the previous step arrived (the collective) plus the device time."""

from __future__ import annotations

import random
from collections.abc import Mapping

from xcli.workload.stragglers.marks import Arrivals, worker_marks


def arrivals(
    slices: int,
    per_slice: int,
    steps: int,
    *,
    device: float = 0.05,
    host: float = 0.01,
    noise: float = 0.001,
    slow: Mapping[str, float] | None = None,  # worker -> extra seconds every step
    stall: tuple[str, int, float] | None = None,  # worker, step, seconds once
    seed: int = 7,
    start: float = 1_800_000_000.0,
) -> Arrivals:
    rng = random.Random(seed)
    slow = slow or {}
    labels = [f"s{s}/w{w}" for s in range(slices) for w in range(per_slice)]
    marks: dict[str, list[tuple[int, float]]] = {label: [] for label in labels}
    t = start
    for n in range(steps):
        latest = t
        for label in labels:
            extra = slow.get(label, 0.0)
            if stall is not None and stall[0] == label and stall[1] == n:
                extra += stall[2]
            at = t + host + extra + rng.random() * noise
            marks[label].append((n, at))
            latest = max(latest, at)
        t = latest + device
    return Arrivals(
        tuple(worker_marks(label, f"node-{i}", marks[label]) for i, label in enumerate(labels)),
        "runner",
    )
