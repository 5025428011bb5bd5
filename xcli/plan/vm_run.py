"""The VM workload's run, as values the runner below the workload layer needs: the step
(`VmWorkloadRun`, planned by xcli/workload/vm/plan.py), the restart rule (`decide`, JobSet's:
one worker failing stops and restarts all of them, up to --max-restarts times) and the loop
around the broadcast engine (`run_with_restarts`). Pure: the engine is passed in.

They live in plan/ so that the gateways that run a VM workload (gateways/workload_runner.py,
gateways/workload_driver.py) import them without reaching up into xcli/workload/.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from xcli.plan.steps import SshFanout, WorkerCommand


@dataclass(frozen=True, kw_only=True)
class VmWorkloadRun(SshFanout):
    """Run the workload's command on every worker; when one fails, stop all and start again,
    up to `max_restarts` times. `stop` is what stops one worker's run (the container)."""

    kind: ClassVar[str] = "vm_workload"

    max_restarts: int = 0
    stop: tuple[WorkerCommand, ...] = field(default=())
    detach: bool = False
    # The workload's own variables: copied to every worker as a file (env_upload) before the
    # first start, never on a command line; the plan shows their names, never their values.
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    env_upload: str = ""

    def details(self) -> dict[str, Any]:
        out = super().details()
        out["max_restarts"] = self.max_restarts
        out["detach"] = self.detach
        out["stop"] = [{"worker": w.worker, "argv": list(w.argv)} for w in self.stop]
        if self.env:
            out["env_file"] = {"to": self.env_upload, "names": [name for name, _ in self.env]}
        return out


# ---- the restart rule -------------------------------------------------------------------


@dataclass(frozen=True)
class WorkerExit:
    """One worker's run ended: exit code, or None when it could not be reached or was lost."""

    worker: str
    code: int | None
    reason: str = ""

    @property
    def failed(self) -> bool:
        return self.code != 0


@dataclass(frozen=True)
class Decision:
    action: Literal["wait", "succeed", "restart", "fail"]
    first_failure: WorkerExit | None = None

    def describe(self) -> str:
        f = self.first_failure
        if f is None:
            return self.action
        what = f"exit code {f.code}" if f.code is not None else (f.reason or "lost")
        return f"{self.action}: worker {f.worker} failed ({what})"


def decide(
    finished: Sequence[WorkerExit], total: int, restarts_done: int, max_restarts: int
) -> Decision:
    """JobSet's rule over the workers that have finished so far, in the order they finished.

    Any failure ends the attempt for every worker: restart while restarts remain, else fail.
    The first worker to fail is the one named. All `total` succeeded: success. Else wait.
    """
    failures = [e for e in finished if e.failed]
    if failures:
        action: Literal["restart", "fail"] = "restart" if restarts_done < max_restarts else "fail"
        return Decision(action, failures[0])
    if len({e.worker for e in finished}) >= total:
        return Decision("succeed")
    return Decision("wait")


@dataclass(frozen=True)
class Outcome:
    ok: bool
    restarts: int
    attempts: tuple[Decision, ...]

    @property
    def failure(self) -> WorkerExit | None:
        return self.attempts[-1].first_failure if self.attempts else None


def run_with_restarts(
    attempt: Callable[[int], Iterable[WorkerExit]],
    stop_all: Callable[[], None],
    total: int,
    max_restarts: int,
    on_decision: Callable[[Decision], None] | None = None,
) -> Outcome:
    """Drive attempts until success, or a failure with no restarts left.

    `attempt(n)` starts every worker (attempt n, from 0) and yields each exit as it happens;
    `stop_all()` stops whatever still runs. The broadcast engine provides both.
    `on_decision` hears each decision as soon as it is made, so a restart's reason is printed
    before the workers are stopped and started again, not after the run.
    """
    decisions: list[Decision] = []
    restarts = 0
    while True:
        finished: list[WorkerExit] = []
        decision = Decision("wait")
        for event in attempt(restarts):
            finished.append(event)
            decision = decide(finished, total, restarts, max_restarts)
            if decision.action != "wait":
                break
        if decision.action == "wait":  # the engine ended without every worker reporting
            decision = Decision(
                "restart" if restarts < max_restarts else "fail",
                WorkerExit("?", None, f"{total - len(finished)} worker(s) never reported"),
            )
        decisions.append(decision)
        if on_decision is not None:
            on_decision(decision)
        if decision.action == "succeed":
            return Outcome(True, restarts, tuple(decisions))
        stop_all()
        if decision.action == "fail":
            return Outcome(False, restarts, tuple(decisions))
        restarts += 1
