"""The openssh engine over an already open ControlMaster: it speaks OpenSSH's multiplexing
protocol to the master itself instead of starting a passenger `ssh` per worker. Real sshd, real
ssh masters (started by the first run), real pipes passed over the control socket."""

from __future__ import annotations

import io
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.gateways.ssh.test_broadcast import CLIENT_PORT, PORT, _client_ports, settings, targets
from tests.support.sshd import Sshd
from xcli.gateways import process
from xcli.gateways.ssh.broadcast import run_broadcast
from xcli.gateways.ssh.mux import SessionOptions, session_options
from xcli.gateways.ssh.openssh_engine import ensure_control_dir
from xcli.gateways.ssh.output import OutputSink
from xcli.plan.fanout import Broadcast, Exec, SshSettings, Target, control_path, plan_broadcast
from xcli.plan.fanout_result import FanoutResult


@pytest.fixture(autouse=True)
def _no_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)


@pytest.fixture
def control() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="xcm-"))  # short: socket paths are limited
    ensure_control_dir(folder)
    try:
        yield folder
    finally:
        for sock in folder.iterdir():  # end the masters this test started
            subprocess.run(
                ["ssh", "-o", f"ControlPath={sock}", "-O", "exit", "x"],
                capture_output=True,
                check=False,
            )
        shutil.rmtree(folder, ignore_errors=True)


def step_for(tgts: Sequence[Target], command: str, s: SshSettings, **kw: Any) -> Broadcast:
    step = plan_broadcast("t", tgts, Exec(command), s, **kw).steps[0]
    assert isinstance(step, Broadcast)
    return step


def run(step: Broadcast) -> tuple[FanoutResult, str, str]:
    out, err = io.BytesIO(), io.BytesIO()
    result = run_broadcast(step, OutputSink(out, err, None))
    return result, out.getvalue().decode(), err.getvalue().decode()


class SpawnSpy:
    """Records every process the engine starts (the real spawn still runs)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.argvs: list[list[str]] = []
        real = process.spawn

        async def spy(argv: Sequence[str], **kw: Any) -> Any:
            self.argvs.append(list(argv))
            return await real(argv, **kw)

        monkeypatch.setattr(process, "spawn", spy)

    def passengers(self) -> list[list[str]]:
        return [a for a in self.argvs if a[0] == "ssh" and "-G" not in a]


def test_a_second_run_rides_the_masters_without_starting_ssh(
    sshd: Sshd, tmp_path: Path, control: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = settings(tmp_path, sshd, control_dir=control)
    tgts = targets(sshd, sshd.ports[:8])
    first, out1, _ = run(step_for(tgts, CLIENT_PORT, s))
    assert first.exit_code == 0 and len(list(control.iterdir())) == 8

    spy = SpawnSpy(monkeypatch)
    command = PORT + 'echo "$P out"; echo "$P err" >&2; exit $((P % 5))'
    second, out2, err2 = run(step_for(tgts, command, s))
    assert spy.passengers() == []  # no ssh per worker
    assert [a[:2] for a in spy.argvs] == [["ssh", "-G"]]  # one config probe for the run
    codes = {f"w{i}": p % 5 for i, p in enumerate(sshd.ports[:8])}
    assert second.exit_code == max(codes.values())
    assert {o.label: o.exit_code or 0 for o in second.outcomes} == codes
    port_of = {f"w{i}": p for i, p in enumerate(sshd.ports[:8])}
    assert sorted(out2.splitlines()) == sorted(f"[{w}] {p} out" for w, p in port_of.items())
    assert sorted(err2.splitlines()) == sorted(f"[{w}] {p} err" for w, p in port_of.items())

    third, out3, _ = run(step_for(tgts, CLIENT_PORT, s))  # still the first run's connections
    assert third.exit_code == 0 and _client_ports(out3) == _client_ports(out1)


def with_masters(
    sshd: Sshd, tmp_path: Path, control: Path, count: int
) -> tuple[SshSettings, list[Target]]:
    """Settings and targets for the first `count` workers, with their masters already open."""
    s = settings(tmp_path, sshd, control_dir=control)
    tgts = targets(sshd, sshd.ports[:count])
    run(step_for(tgts, "true", s))
    return s, tgts


def test_a_signal_death_and_an_exit_255_read_as_with_ssh(
    sshd: Sshd, tmp_path: Path, control: Path
) -> None:
    s, tgts = with_masters(sshd, tmp_path, control, 2)
    result, _, _ = run(
        step_for(
            tgts, PORT + "[ $P = " + str(sshd.ports[0]) + " ] && exit 255; sh -c 'kill -TERM $$'", s
        )
    )
    assert [(o.status, o.exit_code) for o in result.outcomes] == [("exit", 255), ("exit", 143)]


def test_send_env_and_set_env_arrive_as_with_ssh(
    sshd: Sshd, tmp_path: Path, control: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XCLI_TEST_SENT", "sent value")
    monkeypatch.setenv("XCLI_TEST_OTHER", "not sent")
    base = settings(tmp_path, sshd, control_dir=control)
    flags = ("-o", "SendEnv=XCLI_TEST_SENT", "-o", "SetEnv=XCLI_TEST_SET=set")
    s = SshSettings(**{**base.__dict__, "ssh_flags": base.ssh_flags + flags})
    tgts = targets(sshd, sshd.ports[:2])
    command = 'echo "$XCLI_TEST_SENT|$XCLI_TEST_SET|${XCLI_TEST_OTHER-unset}"'
    first, out1, _ = run(step_for(tgts, command, s))  # passenger ssh processes, masters start
    second, out2, _ = run(step_for(tgts, command, s))  # over the masters
    assert first.exit_code == second.exit_code == 0
    assert (
        sorted(out1.splitlines())
        == sorted(out2.splitlines())
        == [
            "[w0] sent value|set|unset",
            "[w1] sent value|set|unset",
        ]
    )


def test_a_stale_socket_or_a_gone_master_falls_back_to_ssh(
    sshd: Sshd, tmp_path: Path, control: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = settings(tmp_path, sshd, control_dir=control)
    tgts = targets(sshd, sshd.ports[:2])
    stale = control_path(s, tgts[0])
    assert stale is not None
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(stale))  # a socket file nobody listens on: what a killed master leaves
    dead.close()
    spy = SpawnSpy(monkeypatch)
    result, out, _ = run(step_for(tgts, "echo hi", s))
    assert result.exit_code == 0 and sorted(out.splitlines()) == ["[w0] hi", "[w1] hi"]
    assert len(spy.passengers()) == 2


def test_a_master_that_dies_mid_command_is_a_lost_connection(
    sshd: Sshd, tmp_path: Path, control: Path
) -> None:
    s, tgts = with_masters(sshd, tmp_path, control, 1)
    sock = control_path(s, tgts[0])
    check = subprocess.run(
        ["ssh", "-o", f"ControlPath={sock}", "-O", "check", "x"], capture_output=True, text=True
    )
    found = re.search(r"pid=(\d+)", check.stderr)
    assert found, check.stderr
    killer = subprocess.Popen(["sh", "-c", f"sleep 1.5; kill -KILL {found.group(1)}"])
    started = time.monotonic()
    result, _, _ = run(step_for(tgts, "sleep 20", s))
    killer.wait()
    assert time.monotonic() - started < 15
    (outcome,) = result.outcomes
    assert (outcome.status, outcome.detail) == ("unreachable", "connection lost")
    assert result.exit_code == 255


SSH_G = """user me
port 2222
controlmaster auto
controlpath {path}
forwardx11 no
requesttty false
sessiontype default
forwardagent no
"""


@pytest.mark.parametrize(
    ("extra", "replace", "expected"),
    [
        ("", {}, SessionOptions()),
        (
            "sendenv LANG\nsendenv LC_*\nsetenv A=1\nsetenv B=x y\n",
            {},
            SessionOptions(env=("LANG=C.UTF-8", "LC_ALL=C", "A=1", "B=x y")),
        ),
        (
            "",
            {"forwardagent no": "forwardagent /run/agent.sock"},
            SessionOptions(forward_agent=True),
        ),
        ("", {"forwardagent no": "forwardagent yes"}, SessionOptions(forward_agent=True)),
        ("", {"controlpath {path}": "controlpath /elsewhere/%C"}, None),
        ("", {"requesttty false": "requesttty force"}, None),
        ("", {"forwardx11 no": "forwardx11 yes"}, None),
        ("", {"sessiontype default": "sessiontype subsystem"}, None),
    ],
)
def test_session_options_follow_ssh_g(
    extra: str, replace: dict[str, str], expected: SessionOptions | None
) -> None:
    text = SSH_G
    for old, new in replace.items():
        text = text.replace(old, new)
    path = Path("/cm/abc")
    environ = {"LANG": "C.UTF-8", "LC_ALL": "C", "HOME": "/root"}
    assert session_options(text.format(path=path) + extra, path, environ) == expected
