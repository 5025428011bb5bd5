"""The remote prefix, run by real local shells (bash, and dash when installed) as sshd would:
`$SHELL -c STRING` in a new session, with the channel's stdin as a pipe the client holds open.
Both forms: the shell execs the command (asyncssh engine) or stays to report 128+N (openssh)."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import time

import pytest

from xcli.plan.remote import remote_command

SHELLS = [s for s in ("bash", "dash") if shutil.which(s)]


def start(shell: str, command: str, keep_shell: bool = False) -> subprocess.Popen[bytes]:
    path = shutil.which(shell)
    assert path
    return subprocess.Popen(
        [path, "-c", remote_command(command, keep_shell=keep_shell)],
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


KEEP = pytest.mark.parametrize("keep", [False, True], ids=["exec", "keep-shell"])


@KEEP
@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("code", [0, 3, 255])
def test_exit_codes_and_streams_pass_through(shell: str, code: int, keep: bool) -> None:
    proc = start(shell, f"echo out; echo err >&2; cat; exit {code}", keep)
    assert finish(proc) == (code, b"out\n", b"err\n")  # cat sees /dev/null, not the channel


@KEEP
@pytest.mark.parametrize("shell", SHELLS)
def test_the_command_arrives_intact(shell: str, keep: bool) -> None:
    payload = 'it\'s "quoted"; $HOME `x` \\ back\nsecond; line $((1+1))\n\ttab'
    proc = start(shell, f"printf '%s\\n' {shlex.quote(payload)}", keep)
    assert finish(proc) == (0, (payload + "\n").encode(), b"")


@pytest.mark.parametrize("shell", SHELLS)
def test_a_signal_death_is_128_plus_n_when_the_shell_stays(shell: str) -> None:
    # exec form: the command replaces the shell, so the death shows as the signal itself
    # (sshd sends exit-signal; the asyncssh engine maps it to 128+N).
    assert finish(start(shell, "sleep 0.1; kill -TERM $$"))[0] == -15
    assert finish(start(shell, "sleep 0.1; sh -c 'kill -TERM $$'", True))[0] == 128 + 15


@pytest.mark.parametrize("shell", SHELLS)
def test_a_syntax_error_reads_as_line_1_like_plain_sh_c(shell: str) -> None:
    path = shutil.which(shell)
    assert path
    plain = subprocess.run([path, "-c", "echo 'unterminated"], capture_output=True, check=False)
    code, _out, err = finish(start(shell, "echo 'unterminated"))
    assert code == plain.returncode != 0
    assert err == plain.stderr  # same message, same line number


@KEEP
@pytest.mark.parametrize("shell", SHELLS)
def test_eof_on_stdin_stops_the_whole_process_group(shell: str, keep: bool) -> None:
    proc = start(shell, "sleep 300 & echo $!; while true; do sleep 0.2; done", keep)
    assert proc.stdout and proc.stdin
    child = int(proc.stdout.readline())
    proc.stdin.close()  # what the client sends when it stops
    assert proc.wait(timeout=10) in (-15, 128 + 15)
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{child}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{child}"), "the command's background child survived"


@KEEP
@pytest.mark.parametrize("shell", SHELLS)
def test_a_finished_command_leaves_its_background_processes_alone(shell: str, keep: bool) -> None:
    # like plain ssh: `nohup server &` outlives the command, and closing the channel after the
    # command ended must not stop it
    proc = start(shell, "sleep 300 >/dev/null 2>&1 & echo $!", keep)
    code, out, _err = finish(proc)
    child = int(out)
    try:
        assert code == 0
        assert proc.stdin
        proc.stdin.close()  # the client closes the channel after the exit status
        time.sleep(1.0)
        assert os.path.exists(f"/proc/{child}"), "a finished command's background child was killed"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, 9)
