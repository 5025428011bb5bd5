"""The broadcast engine as the `WorkerRunner` of xcli.workload.vm.handler.

`run(commands)` starts every worker's command at once (a workload needs all its workers up
together, so the window is the whole slice) and yields each worker's exit as it happens; when
the caller stops listening (a failure decided a restart), or on `stop`, whatever still runs is
stopped and the stop commands run on every worker. Each command's argv is run by the worker's
login shell as one shell-quoted string.
"""

from __future__ import annotations

import asyncio
import queue
import shlex
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from xcli.errors import CloudError, Interrupted, UserError
from xcli.gateways.ssh.broadcast import make_engine
from xcli.gateways.ssh.output import OutputSink
from xcli.gateways.ssh.pool import run_pool
from xcli.plan.fanout import (
    Action,
    Broadcast,
    Engine,
    Exec,
    SshSettings,
    Target,
    Upload,
    plan_broadcast,
)
from xcli.plan.fanout_result import FanoutResult, WorkerOutcome
from xcli.plan.hang import HangWatch
from xcli.plan.steps import WorkerCommand
from xcli.plan.vm_run import WorkerExit

STOP_TIMEOUT = 60.0
POLL = 0.1  # seconds between looks at the run's cancel event


def worker_exit(outcome: WorkerOutcome) -> WorkerExit:
    if outcome.status in ("ok", "exit"):
        return WorkerExit(outcome.label, outcome.exit_code or 0)
    return WorkerExit(outcome.label, None, outcome.reason)


class BroadcastRunner:
    def __init__(
        self,
        targets: Sequence[Target],
        settings: SshSettings,
        sink: OutputSink,
        engine: Engine = "openssh",
        watch: HangWatch | None = None,
        dump: Sequence[WorkerCommand] = (),
    ) -> None:
        """`watch` and `dump`: --hang-after's rule, and the commands that print each worker's
        stacks when it fires (xcli.plan.stacks.dump_command, what `xcli workload stacks`
        runs)."""
        self.targets = {t.label: t for t in targets}
        self.settings = settings
        self.sink = sink
        self.engine = engine
        self.watch, self.dump = watch, tuple(dump)
        self.attempts = 0
        self._running: tuple[threading.Thread, threading.Event] | None = None
        if watch is not None:
            sink.on_mark = watch.saw

    def _step(self, commands: Sequence[WorkerCommand], timeout: float | None = None) -> Broadcast:
        missing = [c.worker for c in commands if c.worker not in self.targets]
        if missing:
            raise UserError(f"no such worker {missing[0]}", hint="list them: xcli cluster describe")
        targets = [self.targets[c.worker] for c in commands]
        actions: list[Action] = [Exec(shlex.join(c.argv)) for c in commands]
        plan = plan_broadcast(
            "workload",
            targets,
            actions,
            self.settings,
            engine=self.engine,
            batch_size=max(1, len(commands)),
            timeout=timeout,
        )
        step = plan.steps[0]
        assert isinstance(step, Broadcast)
        return step

    def _start(self, step: Broadcast, events: queue.Queue[WorkerOutcome | None]) -> None:
        cancelled = threading.Event()

        def work() -> None:
            try:
                asyncio.run(self._once(step, cancelled, events.put))
            finally:
                events.put(None)

        thread = threading.Thread(target=work, name="xcli-broadcast", daemon=True)
        self._running = (thread, cancelled)
        thread.start()

    async def _once(
        self,
        step: Broadcast,
        cancelled: threading.Event,
        report: Callable[[WorkerOutcome], None],
    ) -> FanoutResult:
        engine = make_engine(step.engine)
        try:
            return await run_pool(step, engine, self.sink, cancelled, report)
        finally:
            await engine.aclose()

    def run(self, commands: Sequence[WorkerCommand]) -> Iterator[WorkerExit]:
        """Raises Interrupted soon after the run's cancel event is set (Ctrl-C on a foreground
        run), having stopped the SSH sessions; the caller then runs the stop commands."""
        from xcli.plan.contract import run_cancel_event

        cancelled = run_cancel_event()  # the step's, read in the step's own thread
        events: queue.Queue[WorkerOutcome | None] = queue.Queue()
        self.attempts += 1
        if self.watch is not None:
            self.watch.reset()
        self._start(self._step(commands), events)
        try:
            while True:
                try:  # never block for good: Ctrl-C must end this within a second (issue 26)
                    outcome = events.get(timeout=POLL)
                except queue.Empty:
                    if cancelled.is_set():
                        raise Interrupted("stopped while the workload ran") from None
                    silence = self.watch.hung(time.time()) if self.watch else None
                    if self.watch is not None and silence is not None:
                        where = self.dump_stacks_with_py_spy()  # while the workers still run
                        yield WorkerExit("all", None, self.watch.reason(silence, str(where)))
                        return
                    continue
                if outcome is None:
                    return
                yield worker_exit(outcome)
        finally:
            self._halt()

    def retarget(self, targets: Sequence[Target]) -> None:
        """The cluster's VMs were re-created (--recover): new addresses, same labels."""
        self.targets = {t.label: t for t in targets}

    def dump_stacks_with_py_spy(self) -> Path:
        """Every worker's Python stacks, grouped, saved in `stacks/attempt-N` beside the logs
        (`StackReport.files()`: one file per worker, its stack or why it has none, and the
        summary); the folder comes back. The same capture as `xcli workload stacks`
        (gateways/stacks.py), run on the run's own targets."""
        base = self.sink.log_dir.parent if self.sink.log_dir else Path(".")
        folder = base / "stacks" / f"attempt-{self.attempts - 1}"
        if self.dump:
            from xcli.gateways.stacks import capture_stacks
            from xcli.state_files import private_dir, write_private

            report = capture_stacks(self._step(self.dump, STOP_TIMEOUT))
            private_dir(folder)
            for name, text in report.files().items():
                write_private(folder / name, text)
        return folder

    def _halt(self) -> None:
        if self._running is not None:
            thread, cancelled = self._running
            cancelled.set()
            thread.join()
            self._running = None

    def upload(self, commands: Sequence[WorkerCommand], data: bytes, dest: str) -> None:
        """`data` to `dest` on each command's worker through scp/SFTP, from a temporary file
        that only this user can read (mkstemp's 0600), removed at once."""
        import os
        import tempfile

        from xcli.gateways.ssh.broadcast import run_broadcast

        missing = [c.worker for c in commands if c.worker not in self.targets]
        if missing:
            raise UserError(f"no such worker {missing[0]}", hint="list them: xcli cluster describe")
        fd, name = tempfile.mkstemp(prefix="xcli-env-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            targets = [self.targets[c.worker] for c in commands]
            plan = plan_broadcast(
                "workload", targets, Upload((name,), dest), self.settings,
                engine=self.engine, batch_size=max(1, len(targets)), timeout=STOP_TIMEOUT,
            )  # fmt: skip
            step = plan.steps[0]
            assert isinstance(step, Broadcast)
            result = run_broadcast(step, self.sink)
        finally:
            os.unlink(name)
        if result.failed:
            first = result.failed[0]
            raise CloudError(
                f"could not copy the workload's variables to worker {first.label}: "
                f"{first.reason or first.status}",
                hint="see that worker's log; nothing was started",
            )

    def stop(self, commands: Sequence[WorkerCommand]) -> None:
        """Raises CloudError when a worker was not stopped for sure: unreachable, or the stop
        cut short by a second Ctrl-C (the run's abandon event)."""
        from xcli.plan.contract import run_abandon_event

        self._halt()
        if commands:
            from xcli.gateways.ssh.broadcast import run_broadcast

            step = self._step(commands, STOP_TIMEOUT)
            result = run_broadcast(step, self.sink, run_abandon_event())
            if result.failed:  # never report a worker stopped that was not
                first = result.failed[0]
                raise CloudError(
                    f"could not stop the workload on worker {first.label}: "
                    f"{first.reason or first.status}",
                    hint="see that worker's log; `xcli workload delete` tries again",
                )
