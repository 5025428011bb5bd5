"""`xcli workload stragglers` as text: chronic stragglers first, one line each. Pure."""

from __future__ import annotations

from xcli.workload.stragglers.model import CHRONIC, ONE_OFF, Straggler, Verdict


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _line(s: Straggler, verdict: Verdict) -> str:
    where = f" on {s.host}" if s.host else ""
    if s.kind == ONE_OFF:
        return (
            f"one-off: {s.worker}{where} stalled +{_ms(s.lateness_seconds)} at step "
            f"{s.worst_step} ({s.stalls} stalled step{'' if s.stalls == 1 else 's'})"
        )
    label = "chronic straggler" if s.kind == CHRONIC else "intermittent"
    return (
        f"{label}: {s.worker}{where} +{_ms(s.lateness_seconds)}/step, flagged in "
        f"{s.windows_flagged} of {len(verdict.windows)} windows ({s.windows_recent} of the "
        f"last {min(verdict.rule.recent_windows, len(verdict.windows))})"
    )


def text(verdict: Verdict, cluster: str, provider: str) -> list[str]:
    v = verdict
    step = "-" if v.step_seconds is None else f"{v.step_seconds:.3f}s"
    lines = [
        f"workload {v.name}: {len(v.workers)} workers, {v.steps} steps judged in "
        f"{len(v.windows)} windows of {v.window}; step {step}; time lost to stragglers "
        f"{v.time_lost_seconds:.1f}s"
    ]
    if not v.stragglers and v.steps:
        lines.append("no stragglers: every worker arrives within the rule's threshold")
    lines += [_line(s, v) for s in v.stragglers]
    if v.stragglers:
        where = f"--cluster {cluster}" + ("" if provider == "gke" else f" --provider {provider}")
        lines.append(
            f"next: xcli workload profile {v.name} {where} --hosts stragglers  "
            "(a profile of these hosts and two healthy ones)"
        )
        nodes = sorted({s.host for s in v.chronic if s.host and provider == "gke"})
        if nodes:
            lines.append(f"to keep new pods off them: kubectl cordon {' '.join(nodes)}")
    lines += [f"note: {n}" for n in v.notes]
    return lines
