"""The live executor: runs a plan's steps through handlers, concurrently where the plan allows.

A step starts once every step it runs after has succeeded, within the plan's overall limit and
its lane's limit. When a step fails, everything that runs after it is skipped and the rest of
the plan carries on, so independent work (the other node pools) still finishes. Ctrl-C stops
new steps from starting, tells running handlers through their context, and raises Interrupted
once they return, with the partial result attached. A second Ctrl-C while they clean up sets
the abandon event (contract.run_abandon_event): they cut that cleanup short and say what may
still run, instead of the second Ctrl-C being ignored.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from xcli.errors import InternalError, Interrupted
from xcli.execute.result import RunResult
from xcli.plan.contract import (
    Handler,
    NullReporter,
    Reporter,
    StepContext,
    StepResult,
    cancel_scope,
)
from xcli.plan.model import Plan, Step


class LiveExecutor:
    def __init__(self, handlers: Mapping[str, Handler], reporter: Reporter | None = None) -> None:
        self.handlers = dict(handlers)
        self.reporter = reporter or NullReporter()
        self.cancelled = threading.Event()
        self.abandoned = threading.Event()  # a second Ctrl-C: handlers cut their cleanup short

    def run(self, plan: Plan) -> RunResult:
        missing = {s.kind for s in plan.steps} - set(self.handlers)
        if missing:
            raise InternalError(f"no handler for step kinds {sorted(missing)}")
        results: dict[str, StepResult] = {}
        pending = list(plan.steps)
        running: dict[Future[StepResult], Step] = {}
        lanes: dict[str, int] = {}
        with ThreadPoolExecutor(max_workers=max(1, plan.max_parallel)) as pool:
            try:
                while pending or running:
                    self._skip_blocked(plan, pending, results)
                    for step in self._ready(plan, pending, results, lanes, len(running)):
                        pending.remove(step)
                        if step.lane:
                            lanes[step.lane] = lanes.get(step.lane, 0) + 1
                        self.reporter.started(step)
                        running[pool.submit(self._run_one, step, results)] = step
                    if not running:
                        if pending:  # nothing can start and nothing runs: a cycle would be a bug
                            raise InternalError(f"plan stalled at {[s.id for s in pending]}")
                        break
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in done:
                        step = running.pop(fut)
                        if step.lane:
                            lanes[step.lane] -= 1
                        results[step.id] = fut.result()
                        self.reporter.finished(results[step.id])
                        if isinstance(results[step.id].error, Interrupted):
                            raise KeyboardInterrupt  # a step saw Ctrl-C first: stop the rest
            except KeyboardInterrupt:
                self.cancelled.set()
                for fut, step in running.items():
                    results[step.id] = self._outcome(fut, step)
                    self.reporter.finished(results[step.id])
                for step in pending:
                    results[step.id] = _cancelled(step)
                partial = RunResult(plan.title, _in_plan_order(plan, results))
                raise _interrupted(partial) from None
        return RunResult(plan.title, _in_plan_order(plan, results))

    def _outcome(self, fut: Future[StepResult], step: Step) -> StepResult:
        """A running step's result after Ctrl-C. Its handler may still be cleaning up (stopping
        remote work); a second Ctrl-C tells it to cut that short, rather than being ignored."""
        if fut.cancel():
            return _cancelled(step)
        while True:
            try:
                return fut.result()
            except KeyboardInterrupt:
                self.abandoned.set()

    def _ready(
        self,
        plan: Plan,
        pending: list[Step],
        results: Mapping[str, StepResult],
        lanes: Mapping[str, int],
        busy: int,
    ) -> list[Step]:
        ready: list[Step] = []
        taken = dict(lanes)
        for step in pending:
            if busy + len(ready) >= plan.max_parallel:
                break
            if not all(dep in results and results[dep].status == "ok" for dep in step.after):
                continue
            if step.lane:
                limit = plan.lane_limits.get(step.lane, plan.max_parallel)
                if taken.get(step.lane, 0) >= limit:
                    continue
                taken[step.lane] = taken.get(step.lane, 0) + 1
            ready.append(step)
        return ready

    def _skip_blocked(
        self, plan: Plan, pending: list[Step], results: dict[str, StepResult]
    ) -> None:
        changed = True
        while changed:
            changed = False
            for step in list(pending):
                bad = [d for d in step.after if d in results and results[d].status != "ok"]
                if bad:
                    pending.remove(step)
                    cause = results[bad[0]]
                    # name the root cause, not the chain of skipped steps in between
                    why = (
                        f"{bad[0]} failed"
                        if cause.status == "failed"
                        else cause.reason.removeprefix("not run: ")
                    )
                    results[step.id] = StepResult(step, "skipped", reason=f"not run: {why}")
                    self.reporter.finished(results[step.id])
                    changed = True

    def _run_one(self, step: Step, results: Mapping[str, StepResult]) -> StepResult:
        start = time.monotonic()
        outputs = {sid: r.outputs for sid, r in results.items()}
        try:
            real = step.resolved(outputs)
            ctx = StepContext(real, self.reporter, self.cancelled, outputs)
            with cancel_scope(self.cancelled, self.abandoned):
                produced = self.handlers[step.kind](real, ctx)
            return StepResult(step, "ok", dict(produced), seconds=time.monotonic() - start)
        except Exception as exc:  # a failed step must not stop independent steps
            return StepResult(step, "failed", error=exc, seconds=time.monotonic() - start)


def _cancelled(step: Step) -> StepResult:
    return StepResult(step, "cancelled", reason="interrupted before it started")


def _in_plan_order(plan: Plan, results: Mapping[str, StepResult]) -> dict[str, StepResult]:
    return {s.id: results[s.id] for s in plan.steps if s.id in results}


def _interrupted(partial: RunResult) -> Interrupted:
    """The one Interrupted of a run. A step that was waiting says best what keeps going in the
    cloud and how to pick it up (its own Interrupted's hint); otherwise a general one."""
    for result in partial.results.values():
        if isinstance(result.error, Interrupted) and result.error.hint:
            hint = result.error.hint
            break
    else:
        hint = (
            "what was already sent keeps going in the cloud (see the summary above): run the "
            "same command again to pick it up and finish the rest"
        )
    return Interrupted("interrupted", hint=hint, partial=partial)
