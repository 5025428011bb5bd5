"""The vm_workload handler (restart-all on a failure) driving the broadcast engine, over sshd."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.gateways.ssh.test_broadcast import ENGINES, settings, targets
from tests.support.sshd import Sshd
from xcli.execute.live import LiveExecutor
from xcli.gateways.ssh.output import OutputSink
from xcli.gateways.workload_runner import BroadcastRunner
from xcli.plan.model import Plan
from xcli.plan.steps import WorkerCommand
from xcli.plan.vm_run import VmWorkloadRun
from xcli.workload.vm.handler import WorkloadFailed, make_handler


def _plan(tmp_path: Path, labels: list[str], max_restarts: int) -> Plan:
    """Worker 1 fails on its first run only (a marker file remembers); the others wait for
    it, as a distributed job does, so a failure must stop them."""
    marker = tmp_path / "failed-once"
    scripts = {
        labels[1]: f"if [ -e {marker} ]; then echo second; else touch {marker}; exit 3; fi",
    }
    wait = f"for i in $(seq 1 50); do [ -e {marker} ] && break; sleep 0.1; done; echo ran $0"
    run = [
        WorkerCommand(lab, "127.0.0.1", ("/bin/sh", "-c", scripts.get(lab, wait), lab))
        for lab in labels
    ]
    stop = [
        WorkerCommand(lab, "127.0.0.1", ("/bin/sh", "-c", f"echo {lab} >> {tmp_path}/stops"))
        for lab in labels
    ]
    step = VmWorkloadRun(
        id="run", summary="run", workers=tuple(run), stop=tuple(stop), max_restarts=max_restarts
    )
    return Plan("workload", (step,), max_parallel=1)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_failure_restarts_every_worker_then_succeeds(
    engine: str, sshd: Sshd, tmp_path: Path
) -> None:
    tgts = targets(sshd, sshd.ports[:3])
    out = io.BytesIO()
    runner = BroadcastRunner(
        tgts,
        settings(tmp_path, sshd),
        OutputSink(out, io.BytesIO(), None),
        engine,  # type: ignore[arg-type]
    )
    plan = _plan(tmp_path, [t.label for t in tgts], max_restarts=1)
    result = LiveExecutor({"vm_workload": make_handler(runner)}).run(plan)
    assert result.ok, result.results["run"].error
    assert result.results["run"].outputs == {"restarts": 1}
    assert sorted((tmp_path / "stops").read_text().split()) == ["w0", "w1", "w2"]
    assert "[w1] second" in out.getvalue().decode()


@pytest.mark.parametrize("engine", ENGINES)
def test_without_restarts_the_failing_worker_is_named(
    engine: str, sshd: Sshd, tmp_path: Path
) -> None:
    tgts = targets(sshd, sshd.ports[:3])
    runner = BroadcastRunner(
        tgts,
        settings(tmp_path, sshd),
        OutputSink(None, None, None),
        engine,  # type: ignore[arg-type]
    )
    plan = _plan(tmp_path, [t.label for t in tgts], max_restarts=0)
    result = LiveExecutor({"vm_workload": make_handler(runner)}).run(plan)
    error = result.results["run"].error
    assert isinstance(error, WorkloadFailed)
    assert error.message == "workload failed: worker w1 exited with code 3"
