"""`xcli workload stragglers` and `xcli workload report`: the verdict, and the page of it.

`stragglers(request, deps)` is the use case other commands call for the hosts to act on
(`xcli workload profile NAME --hosts stragglers`): it returns a frozen
`xcli.workload.stragglers.model.Verdict`, whose `stragglers` carry `.worker` ("s1/w2"), `.host`
(the GKE node, or the VM) and `.chronic`. The kind reads every worker's arrival marks
(`WorkloadKind.arrivals`: the runner's record on VM-style clusters, every pod's log on GKE);
the rule is pure (xcli/workload/stragglers/verdict.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps
    from xcli.app.workload import Target
    from xcli.workload.protocol import Context, WorkloadKind
    from xcli.workload.protocol import Report as KindReport
    from xcli.workload.stragglers.model import Verdict

MAX_WINDOW = 100_000


@dataclass(frozen=True)
class StragglersRequest:
    target: Target
    name: str
    window: int = 50  # steps per window (xcli/workload/stragglers/verdict.py:DEFAULT_WINDOW)
    since_seconds: int | None = None  # only marks read this recently


def check_window(window: int) -> int:
    if not 2 <= window <= MAX_WINDOW:
        raise UserError(
            f"--window {window}: a window is at least 2 steps and at most {MAX_WINDOW:,}",
            hint="e.g. --window 50 (the default): lateness is a median over that many steps",
        )
    return window


def stragglers(req: StragglersRequest, deps: Deps) -> Verdict:
    """Which workers arrive late at each step's first collective, chronic or once."""
    from xcli.app.workload import open_kind
    from xcli.workload.stragglers.verdict import judge

    check_window(req.window)
    kind, ctx = open_kind(deps, req.target)
    arrivals = kind.arrivals(ctx, req.target.cluster, req.name, req.since_seconds)
    since = None
    if req.since_seconds is not None:
        since = deps.timing.now().timestamp() - req.since_seconds
    return judge(req.name, arrivals, req.window, since)


def verdict_text(verdict: Verdict, cluster: str, provider: str) -> list[str]:
    """The verdict in lines: the chronic stragglers first, then what to do next."""
    from xcli.workload.stragglers.render import text

    return text(verdict, cluster, provider)


@dataclass(frozen=True)
class Page:
    """`workload report`: the HTML page, and what it was made from."""

    html: bytes
    verdict: Verdict
    goodput: dict[str, Any]


def report(req: StragglersRequest, deps: Deps) -> Page:
    """The workload's goodput and straggler verdict as one self-contained HTML page."""
    from xcli.app.workload import open_kind
    from xcli.workload.stragglers.html import render

    verdict = stragglers(req, deps)
    kind, ctx = open_kind(deps, req.target)
    data = dict(kind.goodput(ctx, req.target.cluster, req.name).data)
    data.update(time_lost(verdict))
    return Page(render(verdict, data).encode("utf-8"), verdict, data)


OVERLAP = (
    "inside productive_seconds: the steps ran while the others waited, so it is no badput "
    "bucket and is not counted twice"
)


def time_lost(verdict: Verdict | None) -> dict[str, Any]:
    """What `workload goodput` adds (docs/goodput.md): the seconds spent waiting for the
    slowest arrival of each step, and the chronic stragglers; None without arrival marks."""
    if verdict is None or not verdict.steps:
        return {"straggler_seconds": None, "chronic_stragglers": []}
    return {
        "straggler_seconds": round(verdict.time_lost_seconds, 3),
        "chronic_stragglers": [s.worker for s in verdict.chronic],
    }


STATUS_SINCE = 600  # `workload status` reads the last 10 minutes of marks: the recent windows


def _verdict_of(
    kind: WorkloadKind, ctx: Context, cluster: str, name: str, since: int | None = None
) -> Verdict | None:
    from xcli.errors import CloudError
    from xcli.workload.stragglers.verdict import judge

    try:
        return judge(name, kind.arrivals(ctx, cluster, name, since))
    except CloudError:  # the report stands without it
        return None


def with_time_lost(
    report: KindReport, kind: WorkloadKind, ctx: Context, cluster: str, name: str
) -> KindReport:
    from xcli.workload.protocol import Report

    verdict = _verdict_of(kind, ctx, cluster, name)
    extra = time_lost(verdict)
    if extra["straggler_seconds"] is None:
        line = (
            "time lost to stragglers: unknown (no arrival marks: call "
            "xcli.goodput.arrive(step) on every worker)"
        )
    else:
        chronic = ", ".join(extra["chronic_stragglers"]) or "none"
        line = (
            f"time lost to stragglers: {extra['straggler_seconds']:.1f}s ({OVERLAP}); "
            f"chronic stragglers: {chronic}"
        )
    return Report({**report.data, **extra}, (*report.text, line))


def straggler_line(verdict: Verdict | None) -> str | None:
    """`straggler: s1/w2 +180 ms/step over 12 windows`, for the worst chronic one."""
    if verdict is None or not verdict.chronic:
        return None
    worst = verdict.chronic[0]
    more = len(verdict.chronic) - 1
    tail = f" (and {more} more: xcli workload stragglers)" if more else ""
    return (
        f"straggler: {worst.worker} +{worst.lateness_seconds * 1000:.0f} ms/step over "
        f"{worst.windows_flagged} windows{tail}"
    )


def status_line(
    report: KindReport, kind: WorkloadKind, ctx: Context, cluster: str, name: str
) -> KindReport:
    from xcli.workload.protocol import Lazy, Report

    def make() -> str:
        return straggler_line(_verdict_of(kind, ctx, cluster, name, STATUS_SINCE)) or ""

    text = list(report.text)
    lazy = [i for i, block in enumerate(text) if isinstance(block, Lazy)]
    at = lazy[-1] + 1 if lazy else len(text)  # under the goodput line, where there is one
    text.insert(at, Lazy(make))
    return Report(report.data, tuple(text))
