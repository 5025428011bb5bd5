"""The goodput formulas on hand-made timelines: every second of the wall lands in one bucket."""

from __future__ import annotations

from xcli.workload.goodput.compute import compute
from xcli.workload.goodput.model import Cause, Mark, Segment, Timeline
from xcli.workload.goodput.render import MFU_HINT, NO_MARKS_HINT, text


def steps(first: int, last: int, at: float, every: float) -> list[Mark]:
    return [Mark(at + (n - first) * every, "step", n) for n in range(first, last + 1)]


def test_one_interruption_splits_into_lost_reschedule_and_resume() -> None:
    # submitted 0; every worker running 10..100 (worker 1 exits 137 at 100) and 130..200
    marks = [
        *steps(0, 8, 20.0, 10.0),  # steps 0..8 start at 20, 30, ..., 100
        Mark(60.0, "checkpoint", 3),
        Mark(60.5, "flops_per_step", 4e15),
        *steps(4, 10, 150.0, 10.0),  # resumed: 150 .. 210, past the end
    ]
    tl = Timeline(
        submitted=0.0,
        admitted=5.0,
        end=200.0,
        segments=(
            Segment(10.0, 100.0, Cause("worker exit", "w1", 137, "killed")),
            Segment(130.0, None),
        ),
        marks=tuple(sorted(marks, key=lambda m: m.at)),
        finished=False,
        chips=4,
        peak_flops_per_chip=1e14,
    )
    report = compute(tl).to_dict()
    assert report["badput"] == {
        "queued": 5.0,
        "provisioning": 5.0,
        "startup": 10.0,  # 10 -> first step at 20
        "lost_since_checkpoint": 40.0,  # checkpoint at 60 -> interruption at 100
        "resume": 20.0,  # 130 -> step 4 at 150
        "reschedule": 30.0,  # 100 -> 130
        "restarted_from_scratch": 0.0,  # step 4 after checkpoint 3: resumed
        "other": 0.0,
    }
    assert report["productive_seconds"] == 90.0  # 20..60, then 150..200 (still running)
    assert report["held_seconds"] == 160.0
    assert report["scheduling_goodput"] == round(160 / 200, 4)
    assert report["runtime_goodput"] == round(90 / 160, 4)
    assert report["program_goodput"] == 1.0  # 4e15 / 10 s / (1e14 * 4)
    assert report["steps"] == 9  # step 10 starts at 210, after the end
    (cut,) = report["interruptions"]
    assert cut | {"time": ""} == {
        "time": "",
        "cause": "worker exit",
        "worker": "w1",
        "exit_code": 137,
        "detail": "killed",
        "step_reached": 8,
        "checkpoint_resumed_from": 3,
        "lost_since_checkpoint": 40.0,
        "reschedule": 30.0,
        "resume": 20.0,
        "restarted_from_scratch": False,
    }
    assert report["restarts"] == {"disruptions": 0, "failures": 1}
    total = report["productive_seconds"] + sum(report["badput"].values())
    assert total == report["wall_seconds"] == 200.0


def test_a_finished_run_counts_the_tail_after_its_last_step_as_other() -> None:
    tl = Timeline(
        submitted=0.0,
        admitted=0.0,
        end=100.0,
        segments=(Segment(0.0, 100.0),),
        marks=tuple(steps(0, 5, 10.0, 10.0)),  # last step 5 starts at 60, ends at 70
        finished=True,
    )
    report = compute(tl).to_dict()
    assert report["productive_seconds"] == 60.0
    assert report["badput"]["startup"] == 10.0 and report["badput"]["other"] == 30.0
    assert report["program_goodput"] is None
    assert MFU_HINT in text(report, "t")


def test_no_marks_and_still_queued() -> None:
    tl = Timeline(0.0, None, 50.0, (), (), finished=False)
    report = compute(tl).to_dict()
    assert report["badput"]["queued"] == 50.0
    assert (report["scheduling_goodput"], report["runtime_goodput"]) == (0.0, None)
    assert report["steps"] is None and report["interruptions"] == []
    assert NO_MARKS_HINT in text(report, "t")


def test_a_failure_that_ended_the_workload_is_not_rescheduling() -> None:
    tl = Timeline(
        submitted=0.0,
        admitted=0.0,
        end=50.0,
        segments=(Segment(0.0, 40.0, Cause("worker exit", "w0", 1)),),
        marks=tuple(steps(0, 2, 10.0, 10.0)),
        finished=True,
    )
    report = compute(tl).to_dict()
    assert report["badput"]["reschedule"] == 0.0
    assert report["badput"]["other"] == 10.0  # the failure at 40 -> the record's end at 50
    (cut,) = report["interruptions"]
    assert (cut["reschedule"], cut["resume"], cut["lost_since_checkpoint"]) == (None, None, 30.0)


def _mfu_case(marks: list[Mark], peak: float | None = 1e14) -> tuple[dict[str, object], str]:
    tl = Timeline(0.0, 0.0, 100.0, (Segment(0.0, None),),
                  (Mark(0.5, "flops_per_step", 4e15), *marks), finished=False, chips=4,
                  peak_flops_per_chip=peak)  # fmt: skip
    report = compute(tl).to_dict()
    return report, "\n".join(text(report, "t"))


def test_mfu_missing_says_why() -> None:
    # a JAX loop under async dispatch: steps 0..9 marked in one burst (one read, one time),
    # then the loop waits for the queue: a median gap of 0 times nothing
    report, out = _mfu_case([Mark(1.0, "step", n) for n in range(10)])
    assert (report["program_goodput"], report["program_goodput_missing"]) == (
        None, "steps_not_timed",
    )  # fmt: skip
    assert "jax.block_until_ready" in out and "catalogue" not in out
    # bursts read a few microseconds apart: faster than the chips' peak, no measurement either
    report, _ = _mfu_case([Mark(1.0 + n * 1e-5, "step", n) for n in range(10)])
    assert (report["program_goodput"], report["program_goodput_missing"]) == (
        None, "steps_not_timed",
    )  # fmt: skip
    # the same loop waiting for each step (block_until_ready): a real step time, a real MFU
    report, _ = _mfu_case(steps(0, 9, 1.0, 20.0))
    assert (report["program_goodput"], report["program_goodput_missing"]) == (0.5, None)
    report, out = _mfu_case(steps(0, 9, 1.0, 20.0), peak=None)
    assert report["program_goodput_missing"] == "no_peak_flops"
    assert "the catalogue has no peak FLOP/s" in out and "block_until_ready" not in out
    report, out = _mfu_case(steps(0, 0, 1.0, 20.0))  # one step: no gap yet
    assert report["program_goodput_missing"] == "no_step_time"
    assert "no step time yet" in out and "catalogue" not in out
    report, _ = _mfu_case([])
    assert report["program_goodput_missing"] == "no_step_time"


def test_a_restart_below_the_last_checkpoint_is_restarted_from_scratch() -> None:
    # as the test above, but after the restart the program starts again at step 0
    marks = [
        *steps(0, 8, 20.0, 10.0),
        Mark(60.0, "checkpoint", 3),
        *steps(0, 5, 150.0, 10.0),
    ]
    tl = Timeline(
        submitted=0.0,
        admitted=5.0,
        end=200.0,
        segments=(
            Segment(10.0, 100.0, Cause("worker exit", "w1", 1, "")),
            Segment(130.0, None),
        ),
        marks=tuple(sorted(marks, key=lambda m: m.at)),
        finished=False,
    )
    report = compute(tl).to_dict()
    (cut,) = report["interruptions"]
    assert cut["restarted_from_scratch"] is True and cut["checkpoint_resumed_from"] == 3
    # steps 0..3 (20 -> the checkpoint at 60) ran again: 40 s leave productive time
    assert report["badput"]["restarted_from_scratch"] == 40.0
    assert report["badput"]["lost_since_checkpoint"] == 40.0  # 60 -> 100, as before
    assert report["productive_seconds"] == 50.0  # 150 .. 200 only
    total = report["productive_seconds"] + sum(report["badput"].values())
    assert total == report["wall_seconds"] == 200.0
    line = next(x for x in text(report, "t1") if "worker exit" in x)
    assert "restarted from scratch (checkpoint 3 was not resumed from)" in line
    # resumed at step 3 (the checkpoint's own step) is not from scratch
    again = [*steps(0, 8, 20.0, 10.0), Mark(60.0, "checkpoint", 3), *steps(3, 7, 150.0, 10.0)]
    resumed = compute(
        Timeline(**{**tl.__dict__, "marks": tuple(sorted(again, key=lambda m: m.at))})
    )
    assert resumed.interruptions[0].restarted_from_scratch is False
    assert resumed.badput["restarted_from_scratch"] == 0.0
