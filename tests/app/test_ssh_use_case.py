"""app/ssh.py with injected dependencies: ssh and scp go through the plan and the executor, so
the live run hands the broadcast runner exactly the step the dry-run prints."""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from xcli.app.deps import Deps, Handlers
from xcli.app.record import DRY
from xcli.app.ssh import ScpRequest, SshRequest, Transport, scp, ssh
from xcli.errors import UserError
from xcli.execute.dry import DryRunExecutor
from xcli.execute.live import LiveExecutor
from xcli.execute.result import RunResult
from xcli.gateways.backoff import Timing
from xcli.gateways.ssh.output import OutputSink
from xcli.plan.cluster import ClusterRef, SshAccess, Worker
from xcli.plan.fanout import Broadcast
from xcli.plan.fanout_result import FanoutResult, WorkerOutcome
from xcli.plan.model import Plan
from xcli.providers import DEFAULT


class TwoSlices:
    """A VM provider with two slices of two workers, and its SSH access (no network)."""

    name = "local"
    terraform = None

    def workers(self, ref: ClusterRef) -> list[Worker]:
        return [
            Worker(slice=s, index=i, host="127.0.0.1", port=2200 + 2 * s + i)
            for s in range(2)
            for i in range(2)
        ]

    def ssh_access(self, ref: ClusterRef) -> SshAccess:
        folder = Path(ref.name + "-keys")
        return SshAccess(key_file=folder / "id", known_hosts=folder / "known_hosts", user="me")


@dataclass(frozen=True)
class Where:
    project_flag: str | None = None
    zone_flag: str | None = None
    project: str = ""
    zone: str = ""


@dataclass
class World:
    """What the use case reached: the plans it ran, the steps broadcast, the processes
    replaced; `dry` chooses the dry-run executor."""

    dry: bool = False
    printed: io.StringIO = field(default_factory=io.StringIO)
    plans: list[Plan] = field(default_factory=list)
    broadcast: list[Broadcast] = field(default_factory=list)
    replaced: list[Sequence[str]] = field(default_factory=list)
    outcome: FanoutResult = field(default_factory=lambda: FanoutResult([]))
    error: Exception | None = None
    choice: Any = None  # what --engine auto picks (None: nothing may be chosen)

    def deps(self, log_dir: Path) -> Deps:
        def run_quiet(plan: Plan, handlers: Handlers) -> RunResult | None:
            self.plans.append(plan)
            if self.dry:
                DryRunExecutor(self.printed, "json").run(plan)
                return None
            return LiveExecutor(handlers()).run(plan)

        def run_broadcast(
            step: Broadcast, sink: OutputSink, cancelled: threading.Event | None = None
        ) -> FanoutResult:
            assert cancelled is not None  # the executor's: Ctrl-C reaches the fan-out
            self.broadcast.append(step)
            if self.error is not None:
                raise self.error
            return self.outcome

        def refuse(*args: Any) -> Any:
            raise AssertionError("ssh never plans or asks anything else")

        return Deps(
            registry=DEFAULT.with_target("local", f"{__name__}:TwoSlices"),
            run_plan=refuse,
            run_quiet=run_quiet,
            confirm=refuse,
            require_answerable=refuse,
            say=refuse,
            broadcast=run_broadcast,
            sink=lambda folder: OutputSink(io.BytesIO(), io.BytesIO(), folder or log_dir),
            # --engine openssh: nothing to choose
            choose_engine=(lambda *a: self.choice) if self.choice else refuse,
            control_dir=refuse,  # --no-reuse
            shell=lambda argv, sockets: self.replaced.append(argv),
            stop_workload=refuse,
            terraform_binary=refuse,
            terraform_handlers=refuse,
            unsupported_flags=refuse,
            record=DRY,  # ssh keeps no cluster records
            timing=Timing(sleep=refuse, clock=refuse, now=refuse),  # ssh polls nothing
            storage_gateways=refuse,
        )


def transport(**changes: Any) -> Transport:
    flags = Transport(
        name="demo",
        provider="local",
        worker="all",
        slice_="all",
        batch_size=0,
        connect_timeout=10,
        timeout=None,
        retry_for=None,
        internal_ip=False,
        ssh_flags=(),
        engine="openssh",
        host_keys="accept-new",
        ssh_key_file=None,
        reuse=False,
        output_dir=None,
        where=Where(),
    )
    return replace(flags, **changes)


def test_the_live_run_broadcasts_the_step_the_dry_run_prints(tmp_path: Path) -> None:
    request = SshRequest(transport(), "hostname")
    dry = World(dry=True)
    assert ssh(request, dry.deps(tmp_path)).exit_code == 0
    assert dry.broadcast == [] and '"kind": "ssh"' in dry.printed.getvalue()
    live = World()
    live.outcome = FanoutResult([WorkerOutcome("s1/w0", "exit", 3)])
    outcome = ssh(request, live.deps(tmp_path))
    assert live.broadcast == [dry.plans[0].steps[0]]  # the same step, field for field
    assert len(live.broadcast[0].workers) == 4  # --worker=all on both slices
    assert outcome.fanout is live.outcome and outcome.exit_code == 3


def test_scp_downloads_from_the_one_worker_selected(tmp_path: Path) -> None:
    live = World()
    request = ScpRequest(transport(worker="1", slice_="0"), (":out.log", "out.log"), False)
    scp(request, live.deps(tmp_path))
    (step,) = live.broadcast
    assert [w.worker for w in step.workers] == ["s0/w1"]
    every = World()
    scp(replace(request, transport=transport(worker="1")), every.deps(tmp_path))
    (step,) = every.broadcast  # worker 1 of both slices, each into its own folder
    assert [(w.worker, w.argv[-1]) for w in step.workers] == [
        ("s0/w1", "out.log/s0-w1/"),
        ("s1/w1", "out.log/s1-w1/"),
    ]


def test_a_failing_fan_out_raises_its_own_error(tmp_path: Path) -> None:
    live = World(error=UserError("ssh is not installed", hint="install the OpenSSH client"))
    with pytest.raises(UserError, match="ssh is not installed"):
        ssh(SshRequest(transport(), "hostname"), live.deps(tmp_path))


def test_a_shell_is_a_one_step_plan_that_replaces_the_process(tmp_path: Path) -> None:
    live = World()
    outcome = ssh(SshRequest(transport(worker="1", slice_="1"), None), live.deps(tmp_path))
    (plan,) = live.plans
    assert outcome.fanout is None and live.broadcast == []
    assert live.replaced == [plan.steps[0].workers[0].argv]  # type: ignore[attr-defined]
    assert "-p" in live.replaced[0] and "2203" in live.replaced[0]
    dry = World(dry=True)
    ssh(SshRequest(transport(worker="1", slice_="1"), None), dry.deps(tmp_path))
    assert dry.replaced == [] and dry.plans == live.plans
    with pytest.raises(UserError, match="selects 4 workers but gives no --command") as refused:
        ssh(SshRequest(transport(), None), World().deps(tmp_path))
    # two slices: --worker=0 alone still names two workers, so the hint names --slice
    assert "(--worker=0 --slice 0)" in refused.value.hint


def test_a_jump_host_in_the_ssh_config_caps_handshakes(tmp_path: Path) -> None:
    from xcli.gateways.ssh.choice import EngineChoice

    why = "engine openssh: your OpenSSH configuration for 127.0.0.1 sets proxyjump bastion"
    live = World(choice=EngineChoice("openssh", why, through="jump host bastion"))
    ssh(SshRequest(transport(engine="auto", batch_size=64), "hostname"), live.deps(tmp_path))
    (plan,) = live.plans
    (step,) = live.broadcast
    assert (step.engine, step.through, step.handshakes) == ("openssh", "jump host bastion", 10)
    assert plan.notes[0].startswith("through jump host bastion: at most 10 SSH handshakes")
    assert plan.notes[1] == why
