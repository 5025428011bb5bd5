"""Goodput from the records of Google's ml-goodput-measurement library (MGM). Pure.

MGM's `GoodputRecorder` writes one Cloud Logging entry per call, its `jsonPayload` a dict of
`job_name` and one time, in POSIX seconds: `job_start_time`, `job_end_time`, `step_count` with
`step_start_time`, `tpu_init_*`, `training_prep_*`, `data_loading_*` (`_start_time` /
`_end_time`), and `custom_badput_event_type` with `custom_badput_event_start_time` / `_end_time`
(https://github.com/AI-Hypercomputer/ml-goodput-measurement, src/goodput.py). This module turns
those payloads into the `Timeline` the other sources build, using the payload times, never the
entries' timestamps (a backfilled record carries the event's time only in its payload).

The rules, as MGM's own calculator reads the same records:
- each `job_start_time` starts an attempt (a `Segment`); the last `job_end_time` ends the run;
- a `step_count` seen before means a restart from that step. The old attempt ends at its last
  record; its steps after the repeated one are lost progress. MGM records no checkpoints, so
  the checkpoint resumed from is the repeated step_count minus one (a checkpoint mark at the
  old attempt's start of that step: the state step n starts from is the one step n - 1 saved);
- the time from the old attempt's last record to the next `job_start_time` is the reschedule
  (MGM's infrastructure recovery), and from there to its first step the resume.
MGM records no submission or admission: scheduling goodput is the caller's to report as null.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xcli.workload.goodput.model import Cause, Mark, Segment, Timeline

INTERVALS = ("tpu_init", "training_prep", "data_loading")
CAUSE = Cause(
    "restart",
    detail="ml-goodput-measurement records: a step_count repeated, no cause recorded",
)


@dataclass
class Records:
    """The payloads of one job, sorted by kind."""

    starts: list[float] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)
    steps: list[tuple[float, int]] = field(default_factory=list)  # (start time, step_count)
    other: list[float] = field(default_factory=list)  # every other payload time
    intervals: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def records(payloads: Iterable[Mapping[str, Any]]) -> Records:
    """Sort the payloads' times by kind (a payload without a readable time is skipped)."""
    out = Records()
    for p in payloads:
        for key, value in p.items():
            at = _number(value)
            if at is None or not key.endswith("_time"):
                continue
            if key == "job_start_time":
                out.starts.append(at)
            elif key == "job_end_time":
                out.ends.append(at)
            elif key == "step_start_time":
                count = _number(p.get("step_count"))
                if count is not None and count >= 0:
                    out.steps.append((at, int(count)))
            else:
                out.other.append(at)
                name, _, edge = key.removesuffix("_time").rpartition("_")
                if name == "custom_badput_event":
                    name = f"custom {str(p.get('custom_badput_event_type', '')).upper()}"
                pair = out.intervals.setdefault(name, ([], []))
                (pair[0] if edge == "start" else pair[1]).append(at)
    out.starts.sort()
    out.steps.sort()
    return out


def _attempts(rec: Records) -> list[tuple[float, float, list[tuple[float, int]]]]:
    """(start, last record, steps) of each attempt: a new one at each job_start_time, and at
    a step_count no higher than the attempt's last one (a restart without a new job start)."""
    events = sorted(
        [(t, 0, -1) for t in rec.starts]
        + [(t, 1, n) for t, n in rec.steps]
        + [(t, 2, -1) for t in rec.other]
    )
    out: list[tuple[float, float, list[tuple[float, int]]]] = []
    current: tuple[float, float, list[tuple[float, int]]] | None = None
    for at, kind, step in events:
        # a step_count this attempt already passed: it went back to a checkpoint
        restart = kind == 1 and current is not None and bool(current[2])
        restart = restart and current is not None and step <= current[2][-1][1]
        if current is None or kind == 0 or restart:
            if current is not None:
                out.append(current)
            current = (at, at, [])
        current = (current[0], max(current[1], at), current[2])
        if kind == 1:
            current[2].append((at, step))
    if current is not None:
        out.append(current)
    return out


def _resumed_mark(
    old: list[tuple[float, int]], new: list[tuple[float, int]], seen: set[int]
) -> Mark | None:
    """The inferred checkpoint the next attempt resumed from: its first step n minus one,
    durable when the old attempt started step n (or its last step, if it never got there)."""
    if not new or new[0][1] < 1:
        return None
    first = new[0][1]
    if first not in seen and first - 1 not in seen:
        return None
    at = [t for t, n in old if n == first] or [t for t, n in old if n == first - 1]
    return Mark(at[-1], "checkpoint", float(first - 1)) if at else None


def mgm_timeline(payloads: Iterable[Mapping[str, Any]], now: float) -> Timeline | None:
    """The Timeline of one job's MGM payloads; None when they hold no start and no step."""
    rec = records(payloads)
    attempts = _attempts(rec)
    if not attempts:
        return None
    finished = bool(rec.ends) and max(rec.ends) >= attempts[-1][0]
    end = max(rec.ends) if finished else now
    segments: list[Segment] = []
    marks: list[Mark] = []
    seen: set[int] = set()
    for i, (start, last, steps) in enumerate(attempts):
        marks.extend(Mark(t, "step", float(n)) for t, n in steps)
        if i + 1 < len(attempts):
            segments.append(Segment(start, last, CAUSE))
            seen.update(n for _, n in steps)
            mark = _resumed_mark(steps, attempts[i + 1][2], seen)
            if mark is not None:
                marks.append(mark)
        else:
            segments.append(Segment(start, end if finished else None))
    notes = [
        "scheduling_goodput: null: ml-goodput-measurement records start when the program "
        "does (job_start_time), not at submission; --source marks reads the cluster's own"
    ]
    if not rec.starts:
        notes.append("no job_start_time record: the first step starts the run")
    notes.extend(_interval_notes(rec))
    return Timeline(
        submitted=attempts[0][0],
        admitted=attempts[0][0],
        end=end,
        segments=tuple(segments),
        marks=tuple(sorted(marks, key=lambda m: m.at)),
        finished=finished,
        notes=tuple(notes),
    )


def _interval_notes(rec: Records) -> list[str]:
    """What the start/end pairs add up to: the start-up ones lie inside startup or resume
    here; a custom badput event inside productive time (MGM's calculator subtracts it)."""
    out = []
    for name, (starts, ends) in sorted(rec.intervals.items()):
        total = sum(max(0.0, e - s) for s, e in zip(sorted(starts), sorted(ends), strict=False))
        where = "within startup/resume" if name in INTERVALS else "counted as productive here"
        out.append(f"ml-goodput-measurement {name}: {total:.3f} s ({where})")
    return out
