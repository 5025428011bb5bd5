"""`workload create --recover` on queued resources, the run's side: a slice that turns
SUSPENDED mid-run is re-created through the provider's plan against the recorded Cloud TPU API
(tests/providers/queued_resource/test_recover.py), the runner is pointed at the new VMs, the
command starts again on every worker and finishes, and goodput counts the gap as `reschedule`.

The runner is a double (it stands for the SSH engine, whose real runs the local provider's tests
cover): its first attempt loses the worker, its second succeeds. Everything else is real: the
restart loop, the handler, the run's record, the provider with the tpu_v2 client over REST."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import responses

from tests.providers.queued_resource.test_provider import REF, FakeTime, provider
from tests.providers.queued_resource.test_recover import (
    QR,
    _as_read,
    _dry_run_body,
    register_recovery,
)
from tests.workload.vm.test_handler import Recording
from tests.workload.vm.test_plan import _spec
from xcli.execute.live import LiveExecutor
from xcli.plan.cluster import Worker
from xcli.plan.fanout import targets_for
from xcli.plan.steps import WorkerCommand
from xcli.plan.vm_run import WorkerExit
from xcli.vm_runs import RecordingRunner, read_state
from xcli.workload.goodput.compute import compute
from xcli.workload.goodput.vm import vm_timeline
from xcli.workload.vm.handler import make_handler
from xcli.workload.vm.plan import plan_vm_workload
from xcli.workload.vm.recovery import Recovery


class PreemptedOnce:
    """The worker is gone the first time (its VM was taken back); after the re-create, it runs."""

    def __init__(self) -> None:
        self.runs = self.stops = 0
        self.targets: list[Any] = []

    def run(self, commands: Sequence[WorkerCommand]) -> Iterator[WorkerExit]:
        self.runs += 1
        for c in commands:
            yield (
                WorkerExit(c.worker, None, "connection lost")
                if self.runs == 1
                else (WorkerExit(c.worker, 0))
            )

    def stop(self, commands: Sequence[WorkerCommand]) -> None:
        self.stops += 1

    def upload(self, commands: Sequence[WorkerCommand], data: bytes, dest: str) -> None:
        pass

    def retarget(self, targets: list[Any]) -> None:
        self.targets = targets


@responses.activate
def test_a_run_whose_slice_turns_suspended_is_recreated_and_resumed(
    isolated_home: Path, tmp_path: Path
) -> None:
    (isolated_home / "state").mkdir(parents=True, exist_ok=True)
    responses.get(QR, json=_as_read("SUSPENDED"))  # the preemption, seen after the loss
    sent = register_recovery()
    spec = dataclasses.replace(_spec(max_restarts=1), recover=True)
    plan = plan_vm_workload(spec, [Worker(0, 0, "34.0.0.9")], cloud_vms=True)
    assert plan.steps[0].details()["recover"].startswith("re-create the cluster")
    engine, folder = PreemptedOnce(), tmp_path / "run"
    meta = {"name": spec.name, "cluster": "boot", "provider": "queued-resource",
            "accelerator": "v4-8", "workers": 1, "max_restarts": 1}  # fmt: skip
    recording = RecordingRunner(engine, folder, meta, 1, 1)
    qrs = provider(FakeTime())
    recover = Recovery(qrs, REF, 1, lambda ws: targets_for(ws, several_slices=False, user="u"),
                       recording.retarget, recording.rescheduled)  # fmt: skip
    reporter = Recording()
    result = LiveExecutor({"vm_workload": make_handler(recording, recover=recover)}, reporter).run(
        plan
    )
    assert result.ok, result.results["run"].error
    assert sent == [_dry_run_body()]  # re-created with cluster create's request
    assert (engine.runs, engine.stops) == (2, 0)  # no stop commands to VMs that are gone
    assert [t.host for t in engine.targets] == ["34.0.0.2"]  # the new VM
    said = reporter.messages
    assert said[0] == "restart: worker w0 failed (connection lost)"
    assert said[1] == (
        "queued resource boot SUSPENDED by the Cloud TPU service (preempted): re-creating it "
        "with the same request"
    )
    assert any(m.startswith("recover: boot: ACTIVE") for m in said)
    state = read_state(folder)
    assert [e["event"] for e in state["timeline"]] == [
        "attempt", "exit", "reschedule", "attempt", "exit",
    ]  # fmt: skip
    report = compute(vm_timeline(folder, state)).to_dict()
    (cut,) = report["interruptions"]
    assert cut["cause"] == "reschedule" and "SUSPENDED" in cut["detail"]
    assert report["restarts"] == {"disruptions": 1, "failures": 0}
    assert json.loads(json.dumps(report))["badput"]["reschedule"] >= 0.0


@responses.activate
def test_ctrl_c_while_recreating_leaves_a_state_the_next_command_picks_up(
    isolated_home: Path,
) -> None:
    import threading

    import pytest

    from xcli.workload.vm.recovery import RecoveryInterrupted

    (isolated_home / "state").mkdir(parents=True, exist_ok=True)
    responses.get(QR, json=_as_read("SUSPENDED"))
    sent = register_recovery()
    engine = PreemptedOnce()
    cancelled = threading.Event()
    said: list[str] = []

    def say(message: str) -> None:
        said.append(message)
        if "WAITING_FOR_RESOURCES" in message:  # Ctrl-C while it waits for capacity
            cancelled.set()

    recover = Recovery(provider(FakeTime()), REF, 1, lambda ws: [], engine.retarget,
                       lambda _why: None)  # fmt: skip
    with pytest.raises(RecoveryInterrupted) as err:
        recover(say, cancelled)
    assert sent == [_dry_run_body()]  # it was requested again: it is queued now
    assert "xcli cluster wait --cluster boot --provider queued-resource" in err.value.hint
    assert engine.targets == []  # the run was not pointed anywhere
