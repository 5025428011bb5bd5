"""The straggler rule on made-up arrivals (xcli/workload/stragglers/verdict.py)."""

from __future__ import annotations

import pytest

from tests.workload.stragglers.synth import arrivals
from xcli.workload.stragglers.marks import Arrivals, from_log_lines, from_runner_lines
from xcli.workload.stragglers.verdict import judge


def test_a_chronic_straggler_is_named_alone_with_the_time_it_costs() -> None:
    verdict = judge("t", arrivals(2, 4, 60, slow={"s1/w2": 0.15}), window=10)
    assert [(s.worker, s.chronic, s.kind) for s in verdict.stragglers] == [
        ("s1/w2", True, "chronic")
    ]
    s = verdict.stragglers[0]
    assert s.lateness_seconds == pytest.approx(0.15, abs=0.002)
    assert s.host == "node-6"
    assert s.windows_flagged == len(verdict.windows) == 6
    # 59 steps judged (the first is warm-up), each waiting ~0.15 s for the slowest
    assert verdict.steps == 59
    assert verdict.time_lost_seconds == pytest.approx(59 * 0.15, rel=0.02)
    data = verdict.to_dict()
    assert data["stragglers"][0]["worker"] == "s1/w2"
    assert data["stragglers"][0]["chronic"] is True
    assert len(data["workers"]) == 8 and len(data["workers"][6]["lateness_seconds"]) == 6


def test_healthy_workers_name_nobody() -> None:
    verdict = judge("t", arrivals(2, 4, 60, noise=0.004), window=10)
    assert verdict.stragglers == ()
    assert verdict.time_lost_seconds < 60 * 0.004


def test_one_stall_is_a_one_off_not_chronic() -> None:
    verdict = judge("t", arrivals(2, 4, 60, stall=("s0/w3", 33, 2.0)), window=10)
    assert [(s.worker, s.chronic, s.kind, s.worst_step) for s in verdict.stragglers] == [
        ("s0/w3", False, "one-off", 33)
    ]
    assert verdict.stragglers[0].lateness_seconds == pytest.approx(2.0, abs=0.01)
    assert verdict.time_lost_seconds == pytest.approx(2.0, rel=0.1)


def test_a_straggler_that_recovered_is_no_longer_chronic() -> None:
    early = arrivals(1, 8, 40, slow={"s0/w5": 0.1})
    late = arrivals(1, 8, 60, start=early.workers[0].times[-1] + 1)
    joined = Arrivals(
        tuple(
            type(a)(a.worker, a.host, a.steps + type(a.steps)("q", (40 + s for s in b.steps)),
                    a.times + b.times)
            for a, b in zip(early.workers, late.workers, strict=True)
        ),
        "runner",
    )  # fmt: skip
    verdict = judge("t", joined, window=10)
    (s,) = verdict.stragglers
    assert (s.worker, s.chronic, s.kind) == ("s0/w5", False, "intermittent")
    assert s.windows_recent == 0


def test_a_worker_missing_steps_is_judged_on_what_it_marked() -> None:
    base = arrivals(1, 4, 30, slow={"s0/w1": 0.2})
    lines = []
    for w in base.workers:
        for step, at in zip(w.steps, w.times, strict=True):
            if w.worker == "s0/w1" and step % 3 == 0:
                continue  # lost lines
            line = f"XCLI_GOODPUT arrive={step}"
            lines.append(f'{{"at": {at}, "worker": "{w.worker}", "line": "{line}"}}')
    lines.append('{"at": 1, "worker": "s0/w0", "line": "XCLI_GOODPUT step=4"}')
    lines.append('{"at": 1, "worker": "s0/w0", "li')  # a torn last line
    verdict = judge("t", from_runner_lines(lines), window=10)
    assert [s.worker for s in verdict.stragglers] == ["s0/w1"]


def test_pod_log_lines_parse_like_runner_lines() -> None:
    lines = [
        "2026-11-22T10:00:01.250000000Z XCLI_GOODPUT arrive=3",
        "2026-11-22T10:00:01.300000000Z loss 0.1",
        "2026-11-22T10:00:02.000000000Z XCLI_GOODPUT step=4",
        "2026-11-22T10:00:02.500000000Z XCLI_GOODPUT arrive=4",
    ]
    pairs = from_log_lines(lines)
    assert [s for s, _ in pairs] == [3, 4]
    assert pairs[1][1] - pairs[0][1] == pytest.approx(1.25)


def test_no_marks_says_how_to_get_them() -> None:
    verdict = judge("t", Arrivals((), "pod logs"))
    assert verdict.stragglers == () and verdict.steps == 0
    assert "xcli.goodput.arrive" in verdict.notes[0]


def test_since_keeps_only_recent_steps() -> None:
    marks = arrivals(1, 4, 40)
    cut = min(w.times[20] for w in marks.workers)  # every mark of step 20 is after it
    verdict = judge("t", marks, window=5, since=cut)
    assert verdict.windows[0].first_step == 20
