"""What `xcli workload goodput` computes from, and what it reports. Pure data.

A source adapter (vm.py for VM-style runs, gke.py for JobSets) turns what it can read into a
`Timeline`: when the workload was submitted and admitted, the `Segment`s during which every
worker ran (each ended by an interruption, or by the end of the run), and worker 0's goodput
marks, each timestamped where xcli read it. compute.py turns a Timeline into a `Report`,
whose JSON shape docs/goodput.md documents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

MARK = "XCLI_GOODPUT"  # the prefix xcli.goodput prints
_PAIR = re.compile(r"(step|checkpoint|flops_per_step)=([0-9.eE+-]+)")

BADPUT_KEYS = (
    "queued",
    "provisioning",
    "startup",
    "lost_since_checkpoint",
    "resume",
    "reschedule",
    "restarted_from_scratch",
    "other",
)
# Interruption causes outside the program's control (a restart after one spends no budget where
# the platform can tell them apart); every other cause (worker exit, hang) is a failure.
DISRUPTION_CAUSES = frozenset({"preemption", "maintenance", "eviction", "reschedule"})


@dataclass(frozen=True)
class Mark:
    """One goodput mark of worker 0: `step`, `checkpoint` or `flops_per_step`, read at `at`
    (POSIX seconds)."""

    at: float
    key: str
    value: float


def parse_marks(at: float, line: str) -> list[Mark]:
    """The marks of one output line (`XCLI_GOODPUT step=12`); none if it is not a mark line
    or a value does not parse."""
    _, found, rest = line.partition(MARK)
    if not found:
        return []
    marks = []
    for key, text in _PAIR.findall(rest):
        try:
            value = float(text)
        except ValueError:
            continue
        if key != "flops_per_step" and (value < 0 or value != int(value)):
            continue
        marks.append(Mark(at, key, value))
    return marks


@dataclass(frozen=True)
class Cause:
    """Why a segment ended: `kind` is preemption, maintenance, eviction, reschedule (a queued
    resource re-created), hang (no new mark for --hang-after) or worker exit."""

    kind: str
    worker: str | None = None
    exit_code: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class Segment:
    """A stretch of time during which every worker ran (resources held)."""

    start: float
    end: float | None  # None: still running (the timeline's end closes it)
    cause: Cause | None = None  # what ended it; None for the last one (finished or running)
    logs: bool = True  # False: its workers' output is gone (their pods were deleted)


@dataclass(frozen=True)
class Timeline:
    submitted: float
    admitted: float | None  # None: still queued
    end: float  # when the workload finished, or now
    segments: tuple[Segment, ...]
    marks: tuple[Mark, ...]
    finished: bool
    chips: int = 0
    peak_flops_per_chip: float | None = None  # FLOP/s (the catalogue's peak bf16)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Interruption:
    at: float
    cause: Cause
    step_reached: int | None
    checkpoint_resumed_from: int | None
    lost_since_checkpoint: float | None
    reschedule: float | None  # until every worker ran again; None: not yet
    resume: float | None  # from then until the first step; None: no step yet
    # the first step after it was below the last durable checkpoint before it
    restarted_from_scratch: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "time": iso(self.at),
            "cause": self.cause.kind,
            "worker": self.cause.worker,
            "exit_code": self.cause.exit_code,
            "detail": self.cause.detail,
            "step_reached": self.step_reached,
            "checkpoint_resumed_from": self.checkpoint_resumed_from,
            "lost_since_checkpoint": _sec(self.lost_since_checkpoint),
            "reschedule": _sec(self.reschedule),
            "resume": _sec(self.resume),
            "restarted_from_scratch": self.restarted_from_scratch,
        }


@dataclass(frozen=True)
class Report:
    scheduling_goodput: float | None
    runtime_goodput: float | None
    program_goodput: float | None
    interruptions: tuple[Interruption, ...]
    badput: dict[str, float]
    steps: int | None  # the highest step worker 0 reached
    wall_seconds: float
    productive_seconds: float
    held_seconds: float
    step_seconds: float | None  # median time of one step
    flops_per_step: float | None
    last_checkpoint: int | None
    notes: tuple[str, ...] = field(default=())
    # why program_goodput is None: no_flops_per_step, no_step_time, steps_not_timed,
    # no_peak_flops (docs/goodput.md)
    program_goodput_missing: str | None = None
    submitted: float = 0.0
    end: float = 0.0
    # (start, end, what ended it: an interruption's cause, None for the last) per segment
    segments: tuple[tuple[float, float, str | None], ...] = ()

    @property
    def restarts(self) -> dict[str, int]:
        """Interruptions by kind: disruptions (outside the program) and failures."""
        free = sum(i.cause.kind in DISRUPTION_CAUSES for i in self.interruptions)
        return {"disruptions": free, "failures": len(self.interruptions) - free}

    def to_dict(self) -> dict[str, Any]:
        """The documented JSON shape (docs/goodput.md): the seven keys the issue names first,
        then the extra ones the docs list."""
        return {
            "scheduling_goodput": _frac(self.scheduling_goodput),
            "runtime_goodput": _frac(self.runtime_goodput),
            "program_goodput": _frac(self.program_goodput),
            "interruptions": [i.to_dict() for i in self.interruptions],
            "badput": {k: _sec(self.badput.get(k, 0.0)) for k in BADPUT_KEYS},
            "steps": self.steps,
            "wall_seconds": _sec(self.wall_seconds),
            "productive_seconds": _sec(self.productive_seconds),
            "held_seconds": _sec(self.held_seconds),
            "step_seconds": _sec(self.step_seconds),
            "flops_per_step": self.flops_per_step,
            "last_checkpoint": self.last_checkpoint,
            "notes": list(self.notes),
            "program_goodput_missing": self.program_goodput_missing,
            "restarts": self.restarts,
            "submitted": iso(self.submitted),
            "end": iso(self.end),
            "segments": [
                {"start": iso(a), "end": iso(b), "ended_by": cause} for a, b, cause in self.segments
            ],
        }


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="milliseconds")


def _sec(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _frac(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
