"""`xcli workload goodput` as text, and the one-line summary `workload status` prints. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.workload.goodput.model import BADPUT_KEYS

MFU_HINT = (
    "program goodput (MFU): unknown; print the model FLOPs of one step once, "
    "xcli.goodput.flops_per_step(x), to enable it"
)
# why MFU is missing, by the report's program_goodput_missing (no_flops_per_step: the hint)
MISSING_HINTS = {
    "no_step_time": "program goodput (MFU): unknown; no step time yet: worker 0 has not marked "
    "two consecutive steps in one segment",
    "steps_not_timed": "program goodput (MFU): unknown; the step marks do not time the steps "
    "(they came in bursts: a median gap of {step}s, too short for the FLOPs of a step). Under "
    "async dispatch (JAX) a loop marks steps before they run: wait for each step's result, "
    "jax.block_until_ready(...), before the next mark (docs/goodput.md)",
    "no_peak_flops": "program goodput (MFU): unknown; the catalogue has no peak FLOP/s for "
    "this accelerator",
}
NO_MARKS_HINT = (
    "no goodput marks from worker 0: call xcli.goodput.step(n) at each step and "
    "xcli.goodput.checkpoint(n) when a checkpoint is durable (docs/goodput.md)"
)


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def summary(report: Mapping[str, Any]) -> str:
    """One line: the three fractions, the step reached and the interruptions."""
    n = len(report["interruptions"])
    steps = "-" if report["steps"] is None else str(report["steps"])
    return (
        f"goodput: scheduling {pct(report['scheduling_goodput'])}, runtime "
        f"{pct(report['runtime_goodput'])}, program {pct(report['program_goodput'])}; "
        f"step {steps}; {n} interruption{'' if n == 1 else 's'}"
    )


def _interruption(i: Mapping[str, Any]) -> str:
    who = f", worker {i['worker']}" if i["worker"] else ""
    what = f" ({i['detail']})" if i["detail"] else ""
    lost = "-" if i["lost_since_checkpoint"] is None else f"{i['lost_since_checkpoint']:.1f}s"
    res = "-" if i["reschedule"] is None else f"{i['reschedule']:.1f}s"
    rm = "-" if i["resume"] is None else f"{i['resume']:.1f}s"
    step = "-" if i["step_reached"] is None else i["step_reached"]
    ckpt = "none" if i["checkpoint_resumed_from"] is None else i["checkpoint_resumed_from"]
    resumed = f"resumed from checkpoint {ckpt}"
    if i.get("restarted_from_scratch"):
        resumed = f"restarted from scratch (checkpoint {ckpt} was not resumed from)"
    return (
        f"  {i['time']} {i['cause']}{who}{what}: step {step} reached, {resumed}; "
        f"lost {lost}, reschedule {res}, resume {rm}"
    )


def text(report: Mapping[str, Any], name: str, mfu_hint: str = MFU_HINT) -> list[str]:
    wall = report["wall_seconds"]
    lines = [
        f"workload {name}: {summary(report)}",
        f"wall {wall:.1f}s: productive {report['productive_seconds']:.1f}s, every worker "
        f"running {report['held_seconds']:.1f}s",
        "badput (seconds): " + ", ".join(f"{k} {report['badput'][k]:.1f}" for k in BADPUT_KEYS),
    ]
    if report["step_seconds"] is not None:
        lines.append(f"step time (median): {report['step_seconds']:.3f}s")
    if report["interruptions"]:
        counts = report.get("restarts") or {}
        lines.append(
            f"interruptions: {counts.get('disruptions', 0)} disruption(s), "
            f"{counts.get('failures', 0)} failure(s)"
        )
        lines += [_interruption(i) for i in report["interruptions"]]
    if report["steps"] is None:
        lines.append(NO_MARKS_HINT)
    elif report["program_goodput"] is None and report["flops_per_step"] is None:
        lines.append(mfu_hint)
    elif report["program_goodput"] is None:
        why = report.get("program_goodput_missing") or ""
        hint = MISSING_HINTS.get(why, "program goodput (MFU): unknown")
        lines.append(hint.format(step=report["step_seconds"]))
    lines += [f"note: {n}" for n in report["notes"]]
    return lines
