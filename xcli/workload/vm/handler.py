"""The live handler of `vm_workload` steps: the restart loop around a broadcast engine.

The engine (xcli ssh's, once merged) is anything with the `WorkerRunner` shape: start the
commands on their workers and report each exit as it happens; stop what still runs. The rule
itself (which failure restarts, who is named) is xcli.workload.vm.plan.decide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from xcli.errors import Interrupted, XcliError
from xcli.plan.contract import Handler, StepContext
from xcli.plan.steps import WorkerCommand
from xcli.plan.vm_run import Decision, VmWorkloadRun, WorkerExit, run_with_restarts
from xcli.workload.vm.plan import env_file_text


class WorkloadFailed(XcliError):
    """The workload's command failed on a worker and no restarts were left."""


class WorkerRunner(Protocol):
    def run(self, commands: Sequence[WorkerCommand]) -> Iterator[WorkerExit]:
        """Start every command at once; yield each worker's exit as it happens."""
        ...

    def stop(self, commands: Sequence[WorkerCommand]) -> None:
        """End whatever `run` still has running, then run these stop commands."""
        ...

    def upload(self, commands: Sequence[WorkerCommand], data: bytes, dest: str) -> None:
        """Copy `data` to `dest` (relative to the login directory) on each command's worker,
        as an owner-only file; never through a command line."""
        ...


Launcher = Callable[[VmWorkloadRun], Mapping[str, Any]]


def make_handler(
    runner: WorkerRunner, launcher: Launcher | None = None, delete_command: str = ""
) -> Handler:
    """`launcher` starts a detached step (--detach) in the background and returns at once.
    `delete_command` is what stops the workload from another terminal (said after a Ctrl-C
    whose stop commands did not finish)."""

    def handle(step: VmWorkloadRun, ctx: StepContext) -> Mapping[str, Any]:
        if step.env:  # before the first start, detached or not; restarts find it there
            runner.upload(step.workers, env_file_text(step.env).encode(), step.env_upload)
        if step.detach:
            if launcher is None:
                raise XcliError("this command cannot run a workload in the background")
            return launcher(step)

        def attempt(n: int) -> Iterator[WorkerExit]:
            if n:
                ctx.report(f"restart {n} of {step.max_restarts}: starting all workers again")
            for event in runner.run(step.workers):
                if ctx.cancelled.is_set():
                    raise Interrupted("stopped while the workload ran")
                yield event

        def decided(decision: Decision) -> None:
            if decision.action == "restart":  # the reason, before the restart it causes
                ctx.report(decision.describe())

        try:
            outcome = run_with_restarts(
                attempt,
                lambda: runner.stop(step.stop),
                len(step.workers),
                step.max_restarts,
                on_decision=decided,
            )
        except Interrupted:
            ctx.report("stopping the workers; Ctrl-C again leaves them running")
            raise _stop_after_interrupt(runner, step, delete_command) from None
        if not outcome.ok:
            raise WorkloadFailed(_failure_message(outcome.failure, outcome.restarts), hint=_HINT)
        return {"restarts": outcome.restarts}

    return handle


def _stop_after_interrupt(
    runner: WorkerRunner, step: VmWorkloadRun, delete_command: str
) -> Interrupted:
    """Ctrl-C: the SSH sessions are closed (the remote wrapper ends each command); the stop
    commands end what outlives them (a container, a process that left the group). They may
    take the grace period; a second Ctrl-C cuts them short (the executor's abandon event)."""
    try:
        runner.stop(step.stop)
    except Exception as exc:  # unreachable worker, ...: say so plainly, never hide it
        how = f"stop them with `{delete_command}`" if delete_command else "stop them by hand"
        return Interrupted(
            "interrupted", hint=f"the workers may still run (stopping them failed: {exc}): {how}"
        )
    return Interrupted("interrupted", hint=_STOPPED_HINT)


_STOPPED_HINT = (
    "the workload's workers were stopped and its record says `stopped`; run the same "
    "command again to start it afresh"
)
_HINT = "see that worker's output above; --max-restarts N restarts every worker after a failure"


def _failure_message(failure: WorkerExit | None, restarts: int) -> str:
    if failure is None:
        what = "failed"
    elif failure.code is not None:
        what = f"failed: worker {failure.worker} exited with code {failure.code}"
    else:
        what = f"failed: worker {failure.worker}: {failure.reason or 'lost'}"
    return f"workload {what}" + (f" (after {restarts} restart(s))" if restarts else "")
