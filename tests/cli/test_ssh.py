"""`xcli ssh` and `xcli scp` end to end: the real CLI in a subprocess against a real sshd."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.sshd import Sshd, provider_file
from xcli.plan.remote import remote_command

BASE = ["--provider", "local", "--cluster", "demo", "--project", "p-test1", "--zone", "us-east5-b"]


@pytest.fixture
def env(tmp_path: Path, sshd: Sshd, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    empty = tmp_path / "ssh_config"
    empty.write_text("")
    monkeypatch.setenv("XCLI_TEST_SSHD", str(provider_file(tmp_path, sshd, sshd.ports[:4], 2)))
    return dict(os.environ)


def flags(tmp_path: Path) -> list[str]:
    return [
        f"--ssh-flag=-F{tmp_path / 'ssh_config'}",
        "--ssh-flag=-oKexAlgorithms=curve25519-sha256",
    ]


def xcli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.support.xcli_sshd_main", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_runs_on_every_worker_and_returns_the_largest_exit_code(
    tmp_path: Path, sshd: Sshd, env: dict[str, str]
) -> None:
    command = (
        "P=$(echo $SSH_CONNECTION | cut -d' ' -f4); "
        'echo "port $P"; echo oops >&2; exit $((P % 5))'
    )
    out_dir = tmp_path / "logs"
    run = xcli(
        "ssh",
        *BASE,
        "--worker=all",
        "--command",
        command,
        "--output-dir",
        str(out_dir),
        *flags(tmp_path),
        env=env,
    )
    labels = ["s0/w0", "s0/w1", "s1/w0", "s1/w1"]
    codes = {lab: p % 5 for lab, p in zip(labels, sshd.ports[:4], strict=True)}
    assert run.returncode == max(codes.values()), run.stderr
    assert sorted(run.stdout.splitlines()) == sorted(
        f"[{lab}] port {p}" for lab, p in zip(labels, sshd.ports[:4], strict=True)
    )
    err = run.stderr.splitlines()
    assert sorted(line for line in err if line.endswith("oops")) == sorted(
        f"[{lab}] oops" for lab in labels
    )
    bad = [lab for lab, c in codes.items() if c]
    assert f"{4 - len(bad)} of 4 workers succeeded" in run.stderr
    for lab in bad:
        log = out_dir / (lab.replace("/", "-") + ".log")
        assert f"FAILED [{lab}] exit code {codes[lab]}  log: {log}" in run.stderr
        assert log.read_text().startswith("port ")


def test_selection_and_json_summary(tmp_path: Path, env: dict[str, str]) -> None:
    run = xcli(
        "ssh",
        *BASE,
        "--worker=1",
        "--slice",
        "0",
        "--command",
        "echo hello",
        "-o",
        "json",
        *flags(tmp_path),
        env=env,
    )
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)  # stdout is only the JSON; worker output is on stderr
    assert [w["worker"] for w in summary["workers"]] == ["s0/w1"] and summary["ok"]
    assert summary["exit_code"] == 0 and summary["workers"][0]["status"] == "ok"
    assert "[s0/w1] hello" in run.stderr.splitlines()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--worker=7", "--command", "true"], "error: --worker 7 is out of range"),
        (["--worker=all"], "error: --worker selects 4 workers but gives no --command"),
        (["--worker=1-0", "--command", "x"], "error: --worker range 1-0 goes backwards"),
        (["--timeout", "10", "--command", "x"], "error: --timeout '10' has no unit"),
        (["--timeout", "0s", "--command", "x"], "error: --timeout 0s would stop every command"),
    ],
)
def test_bad_input_is_one_line_and_touches_no_worker(
    args: list[str], message: str, tmp_path: Path, env: dict[str, str]
) -> None:
    run = xcli("ssh", *BASE, *args, env=env)
    assert run.returncode == 1
    lines = run.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith(message) and lines[1].startswith("hint:")
    assert not (Path(env["XCLI_HOME"]) / "runs").exists()


def test_scp_of_a_folder_without_r_is_refused_before_any_connection(
    tmp_path: Path, env: dict[str, str]
) -> None:
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "a.txt").write_text("a")
    run = xcli("scp", *BASE, "--worker=all", str(folder), ":~/x/", env=env)
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        f"error: {folder} is a folder",
        "hint: pass -r (--recursive) to copy folders",
    ]
    assert not (Path(env["XCLI_HOME"]) / "runs").exists()


def test_dry_run_prints_each_worker_argv_and_is_deterministic(
    tmp_path: Path, env: dict[str, str]
) -> None:
    command = 'echo "a b"; cd $HOME && ls'
    args = ["ssh", *BASE, "--worker=all", "--command", command, "--dry-run"]
    text = xcli(*args, env=env)
    assert text.returncode == 0, text.stderr
    # The command is one argument: after the remote prefix that stops it with the channel.
    wrapped = shlex.quote(remote_command(command, keep_shell=True))
    assert re.search(r"\[s1/w1\] 127\.0\.0\.1: ssh -T .* -- 127\.0\.0\.1 ", text.stdout)
    assert text.stdout.count(f" -- 127.0.0.1 {wrapped}\n") == 4
    first = xcli(*args, "-o", "json", env=env)
    second = xcli(*args, "-o", "json", env=env)
    assert first.stdout == second.stdout
    (step,) = json.loads(first.stdout)["plan"]
    assert step["kind"] == "ssh" and len(step["workers"]) == 4
    assert {w["argv"][-1] for w in step["workers"]} == {remote_command(command, keep_shell=True)}
    assert not (Path(env["XCLI_HOME"]) / "runs").exists()


def test_auto_engine_is_asyncssh_unless_the_openssh_setup_needs_openssh(
    tmp_path: Path, env: dict[str, str]
) -> None:
    args = ["ssh", *BASE, "--worker=all", "--command", "hostname", "--dry-run", "-o", "json"]
    empty = f"--ssh-flag=-F{tmp_path / 'ssh_config'}"  # nothing asyncssh cannot honour
    plain = json.loads(xcli(*args, empty, env=env).stdout)
    assert plain["plan"][0]["engine"] == "asyncssh"
    # said only where this OpenSSH client would offer a post-quantum hybrid that asyncssh
    # does not speak (OpenSSH 9.0-9.8: sntrup761)
    defaults = subprocess.run(
        ["ssh", "-G", "-F", "/dev/null", "127.0.0.1"], capture_output=True, text=True, check=True
    ).stdout
    kex = next(line.split()[1] for line in defaults.splitlines() if line.startswith("kexalg"))
    if kex.split(",")[0].startswith("sntrup"):
        (note,) = plain["notes"]
        assert note.startswith("engine asyncssh (fastest first connections): it offers ")
        assert note.endswith(f"your OpenSSH would offer {kex.split(',')[0]} first "
                             "(--engine openssh to use it)")  # fmt: skip
    else:
        assert plain["notes"] == []

    jump = tmp_path / "jump_config"
    jump.write_text("Host 127.0.0.1\n  ProxyJump bastion.example\n")
    for extra, why in [
        (f"--ssh-flag=-F{jump}", "your OpenSSH configuration for 127.0.0.1 sets proxyjump"),
        ("--ssh-flag=-oKexAlgorithms=curve25519-sha256", "--ssh-flag -oKexAlgorithms="),
    ]:
        picked = xcli(*args, extra, env=env)
        assert picked.returncode == 0, picked.stderr
        plan = json.loads(picked.stdout)
        assert plan["plan"][0]["engine"] == "openssh"
        *capped, note = plan["notes"]
        assert note.startswith("engine openssh: ") and why in note, note
        # the jump host the configuration names caps the handshakes (docs/ssh.md)
        jumped = "proxyjump" in why
        assert [c.split(":")[0] for c in capped] == (
            ["through jump host bastion.example"] if jumped else []
        )
        text = xcli(*args[:-2], extra, env=env)  # the text dry-run says it too
        assert f"note: {note}" in text.stdout

    bare = tmp_path / "bin-without-ssh"  # only the Python that runs xcli, no ssh client
    bare.mkdir()
    (bare / "python").symlink_to(sys.executable)
    without = xcli(*args, env={**env, "PATH": str(bare)})
    assert without.returncode == 0, without.stderr
    step = json.loads(without.stdout)["plan"][0]
    assert step["engine"] == "asyncssh"


def test_auto_engine_runs_asyncssh_and_sends_what_sendenv_names(
    tmp_path: Path, env: dict[str, str]
) -> None:
    config = tmp_path / "sendenv_config"
    config.write_text("Host *\n  SendEnv XCLI_TEST_*\n  SetEnv XCLI_TEST_SET=fixed\n")
    run = xcli(
        "ssh", *BASE, "--worker=0", "--slice=0", "--command",
        'echo "$XCLI_TEST_SENT/$XCLI_TEST_SET"', f"--ssh-flag=-F{config}", "-o", "json",
        env={**env, "XCLI_TEST_SENT": "from-client"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "[s0/w0] from-client/fixed" in run.stderr.splitlines()  # worker output: stderr
    assert "note: engine openssh:" not in run.stderr  # asyncssh was picked


def test_ctrl_c_stops_and_prints_the_partial_summary(tmp_path: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.support.xcli_sshd_main",
            "ssh",
            *BASE,
            "--worker=all",
            "--command",
            "while true; do echo tick; sleep 0.2; done",
            *flags(tmp_path),
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert "tick" in proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    _, err = proc.communicate(timeout=15)
    assert time.monotonic() - start < 10  # a remote `while true` loop: it would never end
    assert proc.returncode == 130
    assert "0 of 4 workers succeeded" in err and "(interrupted)" in err
    assert "FAILED [s0/w0] interrupted" in err


def test_scp_to_every_worker_and_back_from_one(tmp_path: Path, env: dict[str, str]) -> None:
    src = tmp_path / "a file.txt"
    src.write_text("payload\n")
    remote = tmp_path / "remote"
    remote.mkdir()
    run = xcli("scp", *BASE, "--worker=all", str(src), f":{remote}/", *flags(tmp_path), env=env)
    assert run.returncode == 0, run.stderr
    assert "4 of 4 workers succeeded" in run.stderr
    assert (remote / "a file.txt").read_text() == "payload\n"
    back = tmp_path / "back.txt"
    run = xcli(
        "scp",
        *BASE,
        "--worker=1",
        "--slice=1",
        f":{remote}/a file.txt",
        str(back),
        *flags(tmp_path),
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert back.read_text() == "payload\n"
    run = xcli("scp", *BASE, "--worker=all", f":{remote}/a file.txt", str(back), env=env)
    assert run.returncode == 1 and "needs a folder, and " in run.stderr  # back.txt is a file
    every = tmp_path / "every"
    run = xcli("scp", *BASE, "--worker=all", f":{remote}/a file.txt", str(every),
               *flags(tmp_path), env=env)  # fmt: skip
    assert run.returncode == 0, run.stderr
    got = sorted(str(p.relative_to(every)) for p in every.rglob("*") if p.is_file())
    assert got == [f"s{s}-w{w}/a file.txt" for s in range(2) for w in range(2)]
    run = xcli("scp", *BASE, "--worker=all", str(tmp_path / "missing"), ":x", env=env)
    assert run.returncode == 1 and "missing does not exist" in run.stderr


def test_one_worker_without_command_is_a_shell(tmp_path: Path, env: dict[str, str]) -> None:
    """xcli replaces itself with `ssh -t`; here stdin is a pipe rather than a terminal."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.support.xcli_sshd_main",
            "ssh",
            *BASE,
            "--worker=1",
            "--slice=1",
            *flags(tmp_path),
        ],
        cwd=REPO,
        env=env,
        input="echo shell-$((40+2)) $SSH_CONNECTION\nexit 3\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 3, run.stderr
    assert "shell-42" in run.stdout
