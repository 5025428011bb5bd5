"""What `xcli workload stragglers` returns: a frozen verdict and its JSON shape. Pure data.

docs/stragglers.md documents every key. `Verdict.stragglers` is what other commands act on
(`xcli workload profile NAME --hosts stragglers` takes each entry's `.worker`, "s1/w2").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CHRONIC = "chronic"  # flagged in most of the recent windows
INTERMITTENT = "intermittent"  # flagged in some windows, not most of the recent ones
ONE_OFF = "one-off"  # never flagged over a window, but one step (or a few) stalled


@dataclass(frozen=True)
class Rule:
    """The numbers of the rule (docs/stragglers.md says where each comes from)."""

    k_mad: float = 3.0
    floor_fraction: float = 0.10  # of the window's median step time
    min_seconds: float = 0.025  # below this, lateness is the read-time clock's noise
    recent_windows: int = 5  # chronic: flagged in a majority of the last these many windows
    stall_steps: float = 1.0  # a one-off: a step later than this many step times ...
    stall_min_seconds: float = 0.05  # ... and than this
    warmup_steps: int = 1  # the first steps of the marks are not judged (start-up, compiling)

    def to_dict(self) -> dict[str, Any]:
        return {
            "k_mad": self.k_mad,
            "floor_fraction_of_step": self.floor_fraction,
            "min_seconds": self.min_seconds,
            "chronic": f"flagged in a majority of the last {self.recent_windows} windows",
            "stall_steps": self.stall_steps,
            "stall_min_seconds": self.stall_min_seconds,
            "warmup_steps": self.warmup_steps,
        }


@dataclass(frozen=True)
class Straggler:
    worker: str  # "s1/w2", as the logs prefix it
    host: str | None  # GKE node (to cordon) or VM; None when not known
    lateness_seconds: float  # median lateness over its flagged windows; a one-off: the stall
    chronic: bool
    kind: str  # CHRONIC, INTERMITTENT or ONE_OFF
    windows_flagged: int
    windows_recent: int  # of the last `recent_windows` windows, how many were flagged
    stalls: int  # steps later than the stall threshold
    worst_step: int | None  # the step of its worst stall (None: no stall)

    def to_dict(self) -> dict[str, Any]:
        return {
            "worker": self.worker,
            "host": self.host,
            "lateness_seconds": round(self.lateness_seconds, 4),
            "chronic": self.chronic,
            "kind": self.kind,
            "windows_flagged": self.windows_flagged,
            "windows_recent": self.windows_recent,
            "stalls": self.stalls,
            "worst_step": self.worst_step,
        }


@dataclass(frozen=True)
class Window:
    first_step: int
    last_step: int
    steps: int  # steps judged in it
    step_seconds: float | None  # median time between consecutive steps' earliest arrivals
    median_lateness: float  # across workers, of each worker's median lateness
    mad: float  # the median absolute deviation of those
    threshold_seconds: float  # a worker's lateness above median + this is flagged
    time_lost_seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "first_step": self.first_step,
            "last_step": self.last_step,
            "steps": self.steps,
            "step_seconds": _r(self.step_seconds),
            "median_lateness_seconds": round(self.median_lateness, 4),
            "mad_seconds": round(self.mad, 4),
            "threshold_seconds": round(self.threshold_seconds, 4),
            "time_lost_seconds": round(self.time_lost_seconds, 3),
        }


@dataclass(frozen=True)
class WorkerRow:
    worker: str
    host: str | None
    lateness: tuple[float | None, ...]  # its median lateness per window (None: no marks)
    flagged: tuple[bool, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "worker": self.worker,
            "host": self.host,
            "lateness_seconds": [_r(v) for v in self.lateness],
            "flagged": list(self.flagged),
        }


@dataclass(frozen=True)
class Verdict:
    name: str
    stragglers: tuple[Straggler, ...]  # chronic first, then by lateness
    windows: tuple[Window, ...]
    workers: tuple[WorkerRow, ...]
    time_lost_seconds: float  # per step, slowest arrival minus median arrival, summed
    steps: int  # steps judged
    step_seconds: float | None
    window: int  # steps per window
    source: str
    rule: Rule
    requests: int = 0
    notes: tuple[str, ...] = ()

    @property
    def chronic(self) -> tuple[Straggler, ...]:
        return tuple(s for s in self.stragglers if s.chronic)

    def to_dict(self) -> dict[str, Any]:
        return {
            "workload": self.name,
            "stragglers": [s.to_dict() for s in self.stragglers],
            "time_lost_seconds": round(self.time_lost_seconds, 3),
            "steps": self.steps,
            "step_seconds": _r(self.step_seconds),
            "window": self.window,
            "windows": [w.to_dict() for w in self.windows],
            "workers": [w.to_dict() for w in self.workers],
            "rule": self.rule.to_dict(),
            "source": self.source,
            "requests": self.requests,
            "notes": list(self.notes),
        }


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
