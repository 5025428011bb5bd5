"""The live `vm_workload` handler in the real executor, over real local processes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.workload.vm.test_plan import local_run
from xcli.execute.live import LiveExecutor
from xcli.plan.steps import WorkerCommand
from xcli.plan.vm_run import WorkerExit
from xcli.workload.vm.handler import WorkloadFailed, make_handler


def test_worker_2_failing_once_restarts_everyone_then_succeeds(tmp_path: Path) -> None:
    plan, runner, log = local_run(tmp_path, max_restarts=1)
    result = LiveExecutor({"vm_workload": make_handler(runner)}).run(plan)
    assert result.ok
    assert result.results["run"].outputs == {"restarts": 1}
    assert log.read_text().count("ran 2") == 1  # worker 2 succeeded only on the second run


def test_with_no_restarts_the_step_fails_naming_worker_2(tmp_path: Path) -> None:
    plan, runner, _ = local_run(tmp_path, max_restarts=0)
    result = LiveExecutor({"vm_workload": make_handler(runner)}).run(plan)
    assert not result.ok
    error = result.results["run"].error
    assert isinstance(error, WorkloadFailed)
    assert error.message == "workload failed: worker w2 exited with code 1"


class AlwaysFails:
    """Worker 1 fails every time; the others would succeed."""

    def __init__(self) -> None:
        self.runs = self.stops = 0

    def run(self, commands: Sequence[WorkerCommand]) -> Iterator[WorkerExit]:
        self.runs += 1
        yield WorkerExit(commands[0].worker, 0)
        yield WorkerExit(commands[1].worker, None, "connection lost")

    def stop(self, commands: Sequence[WorkerCommand]) -> None:
        self.stops += 1


def test_out_of_restarts_says_how_many_were_tried(tmp_path: Path) -> None:
    plan, _, _ = local_run(tmp_path, max_restarts=2)
    runner = AlwaysFails()
    result = LiveExecutor({"vm_workload": make_handler(runner)}).run(plan)
    error = result.results["run"].error
    assert isinstance(error, WorkloadFailed)
    assert error.message == "workload failed: worker w1: connection lost (after 2 restart(s))"
    assert (runner.runs, runner.stops) == (3, 3)


class Recording:
    """A Reporter that keeps every progress message, in order."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def started(self, step: object) -> None:
        pass

    def progress(self, step: object, message: str) -> None:
        self.messages.append(message)

    def finished(self, result: object) -> None:
        pass


def test_the_restart_reason_is_printed_before_the_restart(tmp_path: Path) -> None:
    plan, runner, _ = local_run(tmp_path, max_restarts=1)
    reporter = Recording()
    assert LiveExecutor({"vm_workload": make_handler(runner)}, reporter).run(plan).ok
    assert reporter.messages == [
        "restart: worker w2 failed (exit code 1)",
        "restart 1 of 1: starting all workers again",
    ]
