"""Handshakes through a jump host: capped, and backed off when refused (gateways/ssh/gate.py),
with an engine that only pretends to connect (the real engines' part is the `connected` flag,
checked against a real sshd in test_broadcast.py)."""

from __future__ import annotations

import asyncio
import io
import time
from dataclasses import dataclass, replace
from pathlib import Path

from xcli.gateways.ssh.gate import HandshakeGate
from xcli.gateways.ssh.output import OutputSink, WorkerStream
from xcli.gateways.ssh.pool import Attempt, run_pool
from xcli.plan.fanout import Broadcast, Exec, SshSettings, Target, plan_broadcast
from xcli.plan.fanout_result import FanoutResult

SETTINGS = SshSettings(known_hosts=Path("kh"), ssh_flags=("-J", "bastion"))


@dataclass
class FakeEngine:
    """A handshake of `handshake` seconds (refused for the first `refuse` attempts), then a
    command of `run` seconds; counts what was in flight at once."""

    handshake: float = 0.02
    run: float = 0.3
    refuse: int = 0
    name: str = "fake"
    in_handshake: int = 0
    most_in_handshake: int = 0
    running: int = 0
    most_running: int = 0

    async def attempt(self, step: Broadcast, index: int, stream: WorkerStream) -> Attempt:
        self.in_handshake += 1
        self.most_in_handshake = max(self.most_in_handshake, self.in_handshake)
        try:
            await asyncio.sleep(self.handshake)
            if self.refuse > 0:
                self.refuse -= 1
                return Attempt("unreachable", detail="connection closed", retryable=True)
        finally:
            self.in_handshake -= 1
        stream.connected = True
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        await asyncio.sleep(self.run)
        self.running -= 1
        stream.feed(f"{stream.label} done\n".encode())
        return Attempt.finished(0)

    def connected(self, step: Broadcast, index: int) -> bool:
        return False

    def spare_fds(self, count: int) -> None:
        pass

    async def aclose(self) -> None:
        pass


def _run(engine: FakeEngine, workers: int, **kw: object) -> tuple[FanoutResult, str]:
    targets = [Target(f"w{i}", f"10.0.0.{i}") for i in range(workers)]
    plan = plan_broadcast("t", targets, Exec("x"), SETTINGS, batch_size=64, **kw)  # type: ignore[arg-type]
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    out = io.BytesIO()
    result = asyncio.run(run_pool(step, engine, OutputSink(out, io.BytesIO(), None)))
    return result, out.getvalue().decode()


def test_handshakes_are_capped_but_running_commands_are_not() -> None:
    engine = FakeEngine()
    result, out = _run(engine, 40)
    assert result.exit_code == 0 and out.count(" done\n") == 40
    assert engine.most_in_handshake == 10  # the cap, reached
    assert engine.most_running > 10  # commands already running hold no handshake slot
    assert result.notes == []  # nothing refused, nothing to say after the run


def test_without_a_jump_host_the_window_alone_limits() -> None:
    engine = FakeEngine()
    targets = [Target(f"w{i}", f"10.0.0.{i}") for i in range(40)]
    settings = replace(SETTINGS, ssh_flags=())
    step = plan_broadcast("t", targets, Exec("x"), settings, batch_size=64).steps[0]
    assert isinstance(step, Broadcast) and step.handshakes is None
    asyncio.run(run_pool(step, engine, OutputSink(None, None, None)))
    assert engine.most_in_handshake == 40


def test_a_burst_of_refusals_narrows_once_pauses_then_every_worker_gets_in() -> None:
    engine = FakeEngine(refuse=6)
    began = time.monotonic()
    result, out = _run(engine, 30, retry_for=30.0)
    assert result.exit_code == 0 and out.count(" done\n") == 30
    assert time.monotonic() - began >= 1.0  # the pause after the refusals was kept
    assert result.notes == [
        "jump host bastion refused 6 handshake(s); xcli backed off (down to 5 at once, limit 10)"
    ]
    assert "note: jump host bastion refused 6" in "\n".join(result.summary_lines())


def test_the_gate_pauses_longer_after_each_separate_refusal() -> None:
    async def scenario() -> list[float]:
        gate = HandshakeGate(8, "jump host b")
        first = await gate.refused()
        during = await gate.refused()  # the same burst: no new pause, no narrower
        assert gate.allowed == 4 and during <= first
        gate._resume_at = 0.0  # the pause is over
        second = await gate.refused()
        await gate.reached()
        return [first, second, gate.allowed]

    assert asyncio.run(scenario()) == [1.0, 2.0, 3]


def test_auto_finds_a_jump_host_in_the_users_ssh_config(tmp_path: Path) -> None:
    from xcli.gateways.ssh.choice import choose

    config = tmp_path / "ssh_config"
    config.write_text("Host 10.0.0.*\n  ProxyJump me@bastion.example:2022\n")
    settings = SshSettings(known_hosts=tmp_path / "kh", ssh_flags=("-F", str(config)))
    choice = choose([Target("w0", "10.0.0.1", 22, "me")], settings)
    assert (choice.engine, choice.through) == ("openssh", "jump host me@bastion.example:2022")
    assert choice.note is not None and "proxyjump" in choice.note
    config.write_text("")
    assert choose([Target("w0", "10.0.0.1", 22, "me")], settings).through is None


def test_a_window_wider_than_max_handshakes_connects_in_steps_but_runs_everything() -> None:
    from xcli.gateways.ssh.pool import MAX_HANDSHAKES

    engine = FakeEngine(handshake=0.01, run=1.0)
    targets = [Target(f"w{i}", f"10.0.{i // 250}.{i % 250}") for i in range(300)]
    settings = replace(SETTINGS, ssh_flags=())
    step = plan_broadcast("t", targets, Exec("x"), settings, batch_size=300).steps[0]
    assert isinstance(step, Broadcast)
    result = asyncio.run(run_pool(step, engine, OutputSink(None, None, None)))
    assert result.exit_code == 0 and result.notes == []
    assert engine.most_in_handshake == MAX_HANDSHAKES
    assert engine.most_running > MAX_HANDSHAKES  # commands run together beyond the cap


def test_a_worker_still_waiting_for_a_handshake_slot_at_the_deadline_is_unreached() -> None:
    """The deadline stops workers queued at the gate longer than the connect timeout: they
    never started a handshake, so they are unreachable (255), not a command's timeout (124)."""
    engine = FakeEngine(handshake=4.0, run=0.0)
    targets = [Target(f"w{i}", f"10.0.0.{i}") for i in range(12)]
    settings = replace(SETTINGS, connect_timeout=1)
    plan = plan_broadcast("t", targets, Exec("x"), settings, batch_size=64, timeout=3.0)
    step = plan.steps[0]
    assert isinstance(step, Broadcast) and step.handshakes == 10
    result = asyncio.run(run_pool(step, engine, OutputSink(None, None, None)))
    queued = [o for o in result.outcomes if o.label in ("w10", "w11")]
    assert [o.code for o in queued] == [255, 255]
