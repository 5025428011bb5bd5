"""`xcli workload profile NAME --hosts stragglers`: the hosts come from the straggler verdict,
read when the capture runs (the plan, and so the dry-run, holds every running host as a
candidate and says so; reading the verdict needs what `xcli workload stragglers` needs).

The verdict's stragglers (chronic first, then by lateness: xcli.app.stragglers) plus the first
two healthy hosts, in host order, to compare them with. A verdict that names nobody still
captures the two healthy hosts (a baseline: when no host is late, the slowness is everywhere,
and two hosts' traces show it) and says so; a verdict with no steps to judge (no arrival
marks) refuses, with what to do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps
    from xcli.app.workload_profile import ProfileRequest
    from xcli.plan.contract import StepContext
    from xcli.workload.stragglers.model import Verdict

Handler = Callable[[Any, "StepContext"], Mapping[str, Any]]


def from_verdict(req: ProfileRequest, deps: Deps, handler: Handler) -> Handler:
    """`handler` run on the hosts the verdict picks from the step's candidates."""

    def handle(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        from xcli.app.stragglers import StragglersRequest, stragglers
        from xcli.plan.profile import with_hosts

        verdict = stragglers(StragglersRequest(req.target, req.name), deps)
        chosen = pick(verdict, [h.label for h in step.hosts], req)
        out = handler(with_hosts(step, [*chosen["stragglers"], *chosen["healthy"]]), ctx)
        out["result"].chosen = chosen
        return out

    return handle


def pick(verdict: Verdict, candidates: list[str], req: ProfileRequest) -> dict[str, Any]:
    """What the verdict chose: {"stragglers", "healthy", "note"} (JSON-ready)."""
    from xcli.plan.profile import HEALTHY_FOR_COMPARISON, host_label, split_stragglers

    t = req.target
    if not verdict.steps:
        raise UserError(
            f"--hosts stragglers: the straggler verdict of {req.name} has no step to judge "
            "(no arrival marks)",
            hint="have every worker call xcli.goodput.arrive(step) before each step's first "
            f"collective (docs/goodput.md), or profile every host: xcli workload profile "
            f"{req.name} --cluster {t.cluster} --hosts all",
        )
    named = [host_label(s.worker) for s in verdict.stragglers]  # `w3` on one slice
    slow, healthy = split_stragglers(candidates, named)
    gone = [w for w in named if w not in set(candidates)]
    if not named:
        note = (
            f"the straggler verdict names no straggler: capturing {len(healthy)} healthy "
            "host(s) as a baseline (when no host is late, every host is slow alike)"
        )
    else:
        kinds = {host_label(s.worker): s.kind for s in verdict.stragglers}
        listed = ", ".join(f"{w} ({kinds[w]})" for w in slow) or "none still running"
        note = (
            f"stragglers: {listed}; for comparison, {HEALTHY_FOR_COMPARISON} healthy: "
            f"{', '.join(healthy) or 'none'}"
        )
    if gone:
        note += f"; not running now, so not captured: {', '.join(gone)}"
    return {"stragglers": list(slow), "healthy": list(healthy), "note": note}
