"""The goodput formulas (docs/goodput.md), applied to a Timeline. Pure.

Google's ML Productivity Goodput is the product of three fractions
(https://cloud.google.com/blog/products/ai-machine-learning/goodput-metric-as-measure-of-ml-productivity):
- scheduling goodput = time with every worker running (`held`) / time since submission (`wall`);
- runtime goodput = productive step time / `held`;
- program goodput (MFU) = flops_per_step / step_time / (peak FLOP/s per chip * chips)
  (Chowdhery et al., PaLM, https://arxiv.org/abs/2204.02311, section 4.1).

Every second of `wall` lands in exactly one bucket: productive, or one of the badput causes
(queued, provisioning, reschedule: scheduling; startup, lost_since_checkpoint, resume, other:
runtime). Per interruption, the blog's t_ch is `lost_since_checkpoint` (from the last durable
checkpoint, or the first step if none in that segment, to the interruption), t_re is
`reschedule` (until every worker runs again) and t_rm is `resume` (until the first step).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise
from statistics import median

from xcli.workload.goodput.model import Interruption, Mark, Report, Segment, Timeline


@dataclass
class _Totals:
    productive: float = 0.0
    startup: float = 0.0
    resume: float = 0.0
    lost: float = 0.0
    scratch: float = 0.0  # productive time whose steps a restart from scratch ran again
    other: float = 0.0


def _within(marks: tuple[Mark, ...], key: str, start: float, end: float) -> list[Mark]:
    return [m for m in marks if m.key == key and start <= m.at <= end]


def step_seconds(
    marks: tuple[Mark, ...], segments: tuple[Segment, ...], end: float
) -> float | None:
    """The median time of one step: the gaps between consecutive step numbers' marks in the
    same segment (a restart's repeated steps are not gaps)."""
    gaps = []
    for seg in segments:
        steps = _within(marks, "step", seg.start, seg.end if seg.end is not None else end)
        for a, b in pairwise(steps):
            if b.value == a.value + 1:
                gaps.append(b.at - a.at)
    return median(gaps) if gaps else None


def compute(tl: Timeline) -> Report:
    # a mark after the end (another clock, a little ahead) is not progress in this window
    tl = replace(tl, marks=tuple(m for m in tl.marks if m.at <= tl.end))
    wall = max(0.0, tl.end - tl.submitted)
    admitted = tl.admitted if tl.admitted is not None else tl.end
    queued = max(0.0, admitted - tl.submitted)
    segs = tuple(sorted(tl.segments, key=lambda s: s.start))
    provisioning = max(0.0, (segs[0].start if segs else tl.end) - admitted)
    per_step = step_seconds(tl.marks, segs, tl.end)
    totals = _Totals()
    held = 0.0
    reschedule = 0.0
    interruptions = []
    for i, seg in enumerate(segs):
        seg_end = seg.end if seg.end is not None else tl.end
        held += seg_end - seg.start
        lost = _segment(tl, seg, seg_end, first=i == 0, per_step=per_step, totals=totals)
        if seg.cause is None:
            continue
        nxt = segs[i + 1] if i + 1 < len(segs) else None
        gap = (nxt.start if nxt else tl.end) - seg_end
        if nxt is None and tl.finished:  # it ended the workload: nothing was rescheduled
            totals.other += max(0.0, gap)
        else:  # rescheduled, or waiting for it now
            reschedule += max(0.0, gap)
        found = _interruption(tl, seg, seg_end, nxt, lost, gap)
        if found.restarted_from_scratch and nxt is not None:
            redo = _redone(tl, seg, seg_end, nxt)
            totals.productive -= redo
            totals.scratch += redo
        interruptions.append(found)
    badput = {
        "queued": queued,
        "provisioning": provisioning,
        "startup": totals.startup,
        "lost_since_checkpoint": totals.lost,
        "resume": totals.resume,
        "reschedule": reschedule,
        "restarted_from_scratch": totals.scratch,
        "other": totals.other,
    }
    # whatever no bucket above explains (clock skew between sources, overlaps) is shown
    badput["other"] += max(0.0, wall - totals.productive - sum(badput.values()))
    steps = [m for m in tl.marks if m.key == "step"]
    flops = [m.value for m in tl.marks if m.key == "flops_per_step"]
    checkpoints = [m for m in tl.marks if m.key == "checkpoint"]
    mfu, missing = _mfu(flops[-1] if flops else None, per_step, tl)
    return Report(
        scheduling_goodput=held / wall if wall > 0 else None,
        runtime_goodput=totals.productive / held if held > 0 else None,
        program_goodput=mfu,
        program_goodput_missing=missing,
        interruptions=tuple(interruptions),
        badput=badput,
        steps=int(max(m.value for m in steps)) if steps else None,
        wall_seconds=wall,
        productive_seconds=totals.productive,
        held_seconds=held,
        step_seconds=per_step,
        flops_per_step=flops[-1] if flops else None,
        last_checkpoint=int(checkpoints[-1].value) if checkpoints else None,
        notes=tl.notes,
        submitted=tl.submitted,
        end=tl.end,
        segments=tuple(_span(seg, tl.end) for seg in segs),
    )


def _span(seg: Segment, end: float) -> tuple[float, float, str | None]:
    return (
        seg.start,
        seg.end if seg.end is not None else end,
        seg.cause.kind if seg.cause else None,
    )


def _segment(
    tl: Timeline, seg: Segment, seg_end: float, *, first: bool, per_step: float | None,
    totals: _Totals,
) -> float | None:  # fmt: skip
    """Split one segment into productive time and runtime badput; the time lost since the
    last checkpoint if an interruption ended it (None when its output is gone)."""
    length = seg_end - seg.start
    if not seg.logs:
        totals.other += length
        return None
    steps = _within(tl.marks, "step", seg.start, seg_end)
    if not steps:  # never reached a step: all start-up (or resume)
        if first:
            totals.startup += length
        else:
            totals.resume += length
        return 0.0 if seg.cause is not None else None
    first_step = steps[0].at
    if first:
        totals.startup += first_step - seg.start
    else:
        totals.resume += first_step - seg.start
    if seg.cause is not None:
        saved = _within(tl.marks, "checkpoint", first_step, seg_end)
        anchor = saved[-1].at if saved else first_step
        totals.productive += anchor - first_step
        totals.lost += seg_end - anchor
        return seg_end - anchor
    done = seg_end
    if tl.finished and per_step is not None:
        # after the last step's expected end: evaluation, a final save, shutting down
        done = min(seg_end, steps[-1].at + per_step)
        totals.other += seg_end - done
    totals.productive += done - first_step
    return None


def _interruption(
    tl: Timeline, seg: Segment, at: float, nxt: Segment | None, lost: float | None, gap: float
) -> Interruption:
    assert seg.cause is not None
    steps = _within(tl.marks, "step", seg.start, at)
    saved = [m for m in tl.marks if m.key == "checkpoint" and m.at <= at]
    resumed: int | None = int(saved[-1].value) if saved else None
    resume = None
    scratch = False
    if nxt is not None:
        after = _first_step(tl, nxt)
        if after is not None:
            resume = after.at - nxt.start
            scratch = resumed is not None and after.value < resumed
            if resumed is None and not seg.logs and after.value >= 1:
                # its marks are gone: step n restarts from the checkpoint of step n - 1
                resumed = int(after.value) - 1
    return Interruption(
        at=at,
        cause=seg.cause,
        step_reached=int(steps[-1].value) if steps else None,
        checkpoint_resumed_from=resumed,
        lost_since_checkpoint=lost,
        reschedule=gap if nxt is not None else None,
        resume=resume,
        restarted_from_scratch=scratch,
    )


def _first_step(tl: Timeline, seg: Segment) -> Mark | None:
    steps = _within(tl.marks, "step", seg.start, seg.end if seg.end is not None else tl.end)
    return steps[0] if steps else None


def _redone(tl: Timeline, seg: Segment, at: float, nxt: Segment) -> float:
    """The productive time of `seg` whose steps the next segment, restarted from scratch, runs
    again: from the first of them (the first mark at or past the step it restarted at) to the
    checkpoint it should have resumed from. Earlier segments' steps are not looked at."""
    after = _first_step(tl, nxt)
    steps = _within(tl.marks, "step", seg.start, at)
    if after is None or not steps:
        return 0.0
    saved = _within(tl.marks, "checkpoint", steps[0].at, at)
    anchor = saved[-1].at if saved else steps[0].at
    start = next((m.at for m in steps if m.value >= after.value), anchor)
    return max(0.0, anchor - start)


def _mfu(
    flops: float | None, per_step: float | None, tl: Timeline
) -> tuple[float | None, str | None]:
    """MFU, or None and why (docs/goodput.md, `program_goodput_missing`). Marks that come in
    bursts (a JAX loop under async dispatch marks steps before they run) give a median gap of
    0, or one shorter than the FLOPs take at peak: MFU above 100% is no measurement."""
    if flops is None:
        return None, "no_flops_per_step"
    if per_step is None:
        return None, "no_step_time"
    if per_step <= 0:
        return None, "steps_not_timed"
    if tl.peak_flops_per_chip is None or tl.chips <= 0:
        return None, "no_peak_flops"
    mfu = flops / per_step / (tl.peak_flops_per_chip * tl.chips)
    return (None, "steps_not_timed") if round(mfu, 4) > 1 else (mfu, None)
