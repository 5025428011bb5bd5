"""The remote wrapper, run by real local shells (bash, and dash when installed) as sshd would:
`$SHELL -c WRAPPER` with the channel's stdin as a pipe the client holds open."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time

import pytest

from xcli.plan.remote import remote_command

SHELLS = [s for s in ("bash", "dash") if shutil.which(s)]


def start(shell: str, command: str) -> subprocess.Popen[bytes]:
    path = shutil.which(shell)
    assert path
    return subprocess.Popen(
        [path, "-c", remote_command(command)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "SHELL": path},
        start_new_session=True,
    )


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, bytes, bytes]:
    """Read both streams to the end without closing stdin (the client keeps it open)."""
    assert proc.stdout and proc.stderr
    out, err = proc.stdout.read(), proc.stderr.read()
    return proc.wait(timeout=10), out, err


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("code", [0, 3, 255])
def test_exit_codes_and_streams_pass_through(shell: str, code: int) -> None:
    proc = start(shell, f"echo out; echo err >&2; cat; exit {code}")
    assert finish(proc) == (code, b"out\n", b"err\n")  # cat sees /dev/null, not the channel


@pytest.mark.parametrize("shell", SHELLS)
def test_the_command_arrives_intact(shell: str) -> None:
    payload = 'it\'s "quoted"; $HOME `x` \\ back\nsecond; line $((1+1))\n\ttab'
    proc = start(shell, f"printf '%s\\n' {shlex.quote(payload)}")
    assert finish(proc) == (0, (payload + "\n").encode(), b"")


@pytest.mark.parametrize("shell", SHELLS)
def test_eof_on_stdin_stops_the_whole_process_group(shell: str) -> None:
    proc = start(shell, "sleep 300 & echo $!; while true; do sleep 0.2; done")
    assert proc.stdout and proc.stdin
    child = int(proc.stdout.readline())
    proc.stdin.close()  # what the client sends when it stops
    assert proc.wait(timeout=10) == 128 + 15
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{child}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{child}"), "the command's background child survived"
