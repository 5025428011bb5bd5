"""A VM-style run's record (state.json's timeline, the runner's goodput.jsonl) as a Timeline."""

from __future__ import annotations

import json
import os
from pathlib import Path

from xcli.workload.goodput.compute import compute
from xcli.workload.goodput.model import Cause, Segment
from xcli.workload.goodput.vm import exit_detail, vm_timeline


def _write_marks(folder: Path, lines: list[tuple[float, str, str]]) -> None:
    text = "".join(json.dumps({"at": a, "worker": w, "line": ln}) + "\n" for a, w, ln in lines)
    (folder / "goodput.jsonl").write_text(text + '{"at": 99, "work')  # a torn last line


def test_a_restart_after_worker_1_was_killed(tmp_path: Path) -> None:
    state = {
        "state": "succeeded", "created": 100.0, "started": 100.5, "finished": 160.0,
        "accelerator": "v5p-16", "workers": 2, "pid": 1,
        "timeline": [
            {"event": "attempt", "attempt": 0, "at": 101.0},
            {"event": "exit", "attempt": 0, "worker": "w1", "code": 137, "reason": "", "at": 120.0},
            {"event": "exit", "attempt": 0, "worker": "w0", "code": 143, "reason": "", "at": 121.0},
            {"event": "attempt", "attempt": 1, "at": 125.0},
            {"event": "exit", "attempt": 1, "worker": "w0", "code": 0, "reason": "", "at": 158.0},
            {"event": "exit", "attempt": 1, "worker": "w1", "code": 0, "reason": "", "at": 159.0},
        ],
    }  # fmt: skip
    _write_marks(tmp_path, [
        (103.0, "w0", "XCLI_GOODPUT step=0"), (103.0, "w1", "XCLI_GOODPUT step=0"),
        (110.0, "w0", "XCLI_GOODPUT checkpoint=6"), (130.0, "s0/w0", "XCLI_GOODPUT step=7"),
    ])  # fmt: skip
    tl = vm_timeline(tmp_path, state, now=500.0)
    assert tl.segments == (
        Segment(101.0, 120.0, Cause("worker exit", "w1", 137, exit_detail(137, ""))),
        Segment(125.0, 159.0),  # every worker succeeded: the last exit
    )
    assert [(m.at, m.key, m.value) for m in tl.marks] == [
        (103.0, "step", 0),
        (110.0, "checkpoint", 6),
        (130.0, "step", 7),
    ]  # fmt: skip  (worker 0's only, whichever label form)
    assert (tl.submitted, tl.end, tl.finished, tl.chips) == (100.0, 160.0, True, 8)
    assert tl.peak_flops_per_chip == 459e12
    report = compute(tl).to_dict()
    assert report["interruptions"][0]["lost_since_checkpoint"] == 10.0
    assert report["badput"]["reschedule"] == 5.0 and report["badput"]["resume"] == 5.0
    assert exit_detail(137, "") == "exit status 137: killed by SIGKILL (128+9)"
    assert exit_detail(None, "unreachable") == "unreachable"
    assert exit_detail(3, "") == "exit status 3"


def test_a_run_still_going_ends_now_and_a_stopped_one_at_its_stop(tmp_path: Path) -> None:
    running = {
        "state": "running", "created": 0.0, "workers": 2, "accelerator": "nope",
        "timeline": [{"event": "attempt", "attempt": 0, "at": 1.0}],
    }  # fmt: skip
    running["pid"] = os.getpid()  # a live driver
    tl = vm_timeline(tmp_path, running, now=50.0)
    assert tl.segments == (Segment(1.0, None),) and tl.end == 50.0 and not tl.finished
    assert (tl.chips, tl.peak_flops_per_chip, tl.marks) == (0, None, ())
    stopped = {**running, "state": "stopped", "finished": 30.0}
    tl = vm_timeline(tmp_path, stopped, now=50.0)
    assert tl.segments == (Segment(1.0, 30.0),) and tl.end == 30.0 and tl.finished
