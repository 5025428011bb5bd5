"""Goodput of a VM-style run (queued resources, local) from its record on this machine.

Sources (xcli/vm_runs.py): state.json's `created` (submission), its `timeline` (each
attempt's start and each worker exit, timestamped by the runner) and `finished`; the runner's
`goodput.jsonl` (every output line with a goodput mark, timestamped where the runner read it).
An attempt holds every worker from its start until the first worker that fails (the restart
rule then stops and restarts them all), or until the run ends. There is no queue on this path:
a queued resource waits for capacity in `cluster create`, before any workload exists.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

from xcli.workload.goodput.model import Cause, Mark, Segment, Timeline, parse_marks

WORKER_0 = ("w0", "s0/w0")


def exit_detail(code: int | None, reason: str) -> str:
    """An exit status in words; a shell reports a process killed by signal N as 128+N."""
    if code is None:
        return reason or "lost"
    if code > 128 and code - 128 < signal.NSIG:
        try:
            name = signal.Signals(code - 128).name
        except ValueError:
            name = f"signal {code - 128}"
        return f"exit status {code}: killed by {name} (128+{code - 128})"
    return f"exit status {code}"


def read_marks(path: Path) -> tuple[Mark, ...]:
    """Worker 0's marks, from the runner's JSON lines (a torn last line is skipped)."""
    marks: list[Mark] = []
    try:
        text = path.read_text()
    except OSError:
        return ()
    for raw in text.splitlines():
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if item.get("worker") in WORKER_0:
            marks.extend(parse_marks(float(item["at"]), str(item.get("line", ""))))
    return tuple(sorted(marks, key=lambda m: m.at))


def segments(state: dict[str, Any], end: float) -> tuple[Segment, ...]:
    """One segment per attempt: from its start to the first worker failure, or the end."""
    events = state.get("timeline") or []
    starts = [e for e in events if e.get("event") == "attempt"]
    out = []
    for i, begin in enumerate(starts):
        n = begin["attempt"]
        exits = [e for e in events if e.get("event") == "exit" and e.get("attempt") == n]
        failed = [e for e in exits if e.get("code") != 0]
        if failed:
            f = failed[0]
            cause = Cause(
                "worker exit", f["worker"], f.get("code"), exit_detail(f.get("code"), f["reason"])
            )
            out.append(Segment(float(begin["at"]), float(f["at"]), cause))
            continue
        last = i == len(starts) - 1
        workers = int(state.get("workers") or 0)
        if exits and len({e["worker"] for e in exits}) >= workers:
            stop: float | None = float(exits[-1]["at"])  # every worker succeeded
        elif last and state.get("finished"):
            stop = float(state["finished"])  # stopped (deleted) or its cluster went away
        else:
            stop = None if last else end
        out.append(Segment(float(begin["at"]), stop))
    return tuple(out)


def vm_timeline(folder: Path, state: dict[str, Any], now: float | None = None) -> Timeline:
    from xcli.vm_runs import FINISHED, MARKS, effective_state

    now = time.time() if now is None else now
    finished = effective_state(state) in FINISHED and effective_state(state) != "lost"
    end = float(state.get("finished") or now) if finished else now
    created = float(state.get("created") or state.get("started") or end)
    chips, peak = _chips_and_peak(state)
    notes = []
    if not (state.get("timeline") or []) and state.get("exits"):
        notes.append("this run was recorded before xcli kept attempt times: no segments")
    return Timeline(
        submitted=created,
        admitted=created,
        end=end,
        segments=segments(state, end),
        marks=read_marks(folder / MARKS),
        finished=finished,
        chips=chips,
        peak_flops_per_chip=peak,
        notes=tuple(notes),
    )


def _chips_and_peak(state: dict[str, Any]) -> tuple[int, float | None]:
    from xcli.catalog import lookup
    from xcli.errors import XcliError

    try:
        acc = lookup(str(state.get("accelerator") or ""))
    except XcliError:
        return 0, None
    workers = int(state.get("workers") or 0)
    return acc.chips_per_vm * workers, acc.peak_bf16_tflops.value * 1e12
