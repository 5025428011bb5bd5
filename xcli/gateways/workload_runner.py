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
from collections.abc import Callable, Iterator, Sequence

from xcli.errors import UserError
from xcli.gateways.broadcast import make_engine
from xcli.gateways.output import OutputSink
from xcli.gateways.ssh_pool import run_pool
from xcli.plan.fanout import Action, Broadcast, Engine, Exec, SshSettings, Target, plan_broadcast
from xcli.plan.fanout_result import FanoutResult, WorkerOutcome
from xcli.plan.steps import WorkerCommand
from xcli.workload.vm.plan import WorkerExit

STOP_TIMEOUT = 60.0


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
    ) -> None:
        self.targets = {t.label: t for t in targets}
        self.settings = settings
        self.sink = sink
        self.engine = engine
        self._running: tuple[threading.Thread, threading.Event] | None = None

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
        events: queue.Queue[WorkerOutcome | None] = queue.Queue()
        self._start(self._step(commands), events)
        try:
            while (outcome := events.get()) is not None:
                yield worker_exit(outcome)
        finally:
            self._halt()

    def _halt(self) -> None:
        if self._running is not None:
            thread, cancelled = self._running
            cancelled.set()
            thread.join()
            self._running = None

    def stop(self, commands: Sequence[WorkerCommand]) -> None:
        self._halt()
        if commands:
            from xcli.gateways.broadcast import run_broadcast

            run_broadcast(self._step(commands, STOP_TIMEOUT), self.sink)
