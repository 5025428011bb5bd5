"""`xcli ssh --worker=all` to 1,024 emulated workers: every line arrives once, in order, under
its own worker, with a file-descriptor limit far below what 1,024 connections would need.

The workers are one OpenSSH sshd in a private network namespace, one 127.1.x.y address each
(tests/support/sshd_ns.py); the real CLI runs beside it, with the default engine. Not timed:
the sshd shares this machine's cores, so only correctness is checked (benchmarks/broadcast.py
measures).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.sshd_ns import available, in_namespace, worker_address

WORKERS = 1024
FAILING = range(100, 112)  # their command exits 7 (sshd Match LocalAddress ... ForceCommand)
LINES = 5
# The emulated workers' sshd shares this machine's cores: on a busy machine a handshake can
# wait past the default 10 s. Correctness is tested here, not speed.
SLOW_MACHINE = "--connect-timeout=120"
FD_LIMIT = 256  # soft = hard: 1,024 sockets could never be open at once

# Worker i prints LINES numbered lines naming the address it reached, one line on stderr.
COMMAND = (
    'set -- $SSH_CONNECTION; i=1; while [ $i -le 5 ]; do echo "$3 line $i"; i=$((i+1)); done; '
    'echo "$3 err" >&2'
)


def _limited(argv: list[str]) -> list[str]:
    """argv run with RLIMIT_NOFILE soft = hard = FD_LIMIT."""
    code = (
        "import os, resource, sys; "
        f"resource.setrlimit(resource.RLIMIT_NOFILE, ({FD_LIMIT}, {FD_LIMIT})); "
        "os.execv(sys.argv[1], sys.argv[1:])"
    )
    return [sys.executable, "-c", code, *argv]


def test_a_1024_worker_broadcast_delivers_every_line_once_and_in_order(tmp_path: Path) -> None:
    why = available()
    if why is not None:
        if os.environ.get("CI") and os.geteuid() == 0:
            pytest.fail(f"CI runs as root and must run this test: {why}")
        pytest.skip(why)
    empty = tmp_path / "ssh_config"
    empty.write_text("")
    cli = [
        sys.executable,
        "-m",
        "tests.support.xcli_sshd_main",
        "ssh",
        "--provider=local",
        "--cluster=big",
        "--worker=all",
        f"--command={COMMAND}",
        f"--output-dir={tmp_path / 'logs'}",
        f"--ssh-flag=-F{empty}",
        SLOW_MACHINE,
    ]
    fail = ",".join(f"{i}=7" for i in FAILING)
    run = subprocess.run(
        in_namespace(WORKERS, tmp_path / "slice", _limited(cli), fail=fail),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 7, run.stderr[-3000:]
    seen: dict[int, list[str]] = {}
    for line in run.stdout.splitlines():
        found = re.fullmatch(r"\[w(\d+)\] (\S+) line (\d+)", line)
        assert found, f"unprefixed or mixed line: {line[:120]!r}"
        worker = int(found.group(1))
        assert found.group(2) == worker_address(worker), line  # under its own worker's prefix
        seen.setdefault(worker, []).append(found.group(3))
    expected = [str(n) for n in range(1, LINES + 1)]
    ok = [i for i in range(WORKERS) if i not in FAILING]
    assert sorted(seen) == ok
    assert all(seen[i] == expected for i in ok), "a line lost, repeated or out of order"
    err = run.stderr.splitlines()
    assert sorted(line for line in err if line.endswith(" err")) == sorted(
        f"[w{i}] {worker_address(i)} err" for i in ok
    )
    assert f"{len(ok)} of {WORKERS} workers succeeded" in run.stderr
    # 12 failures: one line for their cause, their workers as a range
    assert "  FAILED 12 worker(s), exit code 7: w100-111" in err
    assert not any("[Errno 24]" in line or "Too many open files" in line for line in err)
    # the window (64) did not fit in FD_LIMIT descriptors: narrowed, and said so
    assert any(re.search(r"note: \d+ workers at once, not 64", line) for line in err), err[-5:]
    assert len(list((tmp_path / "logs").iterdir())) == WORKERS


JUMP_WORKERS = 60


def test_through_a_jump_host_with_default_maxstartups_every_handshake_gets_in(
    tmp_path: Path,
) -> None:
    """The emulator's sshd keeps OpenSSH's default MaxStartups (10:30:100) and is also the jump
    host (127.0.0.1): 60 workers through `-J`, each a connection to the jump host's sshd and
    then one to the worker, both counted there until they log in. xcli's cap of 10 handshakes
    at once keeps it below the point where sshd drops; the plan says so in one line."""
    why = available()
    if why is not None:
        if os.environ.get("CI") and os.geteuid() == 0:
            pytest.fail(f"CI runs as root and must run this test: {why}")
        pytest.skip(why)
    slice_ = tmp_path / "slice"
    config = tmp_path / "ssh_config"
    # what the jump connection needs comes from -F (OpenSSH passes only -F and a few flags to
    # the ssh it starts for ProxyJump); curve25519 keeps the 120 key exchanges cheap
    config.write_text(
        "Host *\n  KexAlgorithms curve25519-sha256\n  BatchMode yes\n  IdentitiesOnly yes\n"
        f"  IdentityFile {slice_ / 'client_key'}\n  UserKnownHostsFile {slice_ / 'known_hosts'}\n"
    )
    cli = [
        sys.executable,
        "-m",
        "tests.support.xcli_sshd_main",
        "ssh",
        "--provider=local",
        "--cluster=jumped",
        "--worker=all",
        "--engine=openssh",
        "--no-reuse",
        SLOW_MACHINE,
        '--command=set -- $SSH_CONNECTION; echo "$3 reached from $1"',
        f"--ssh-flag=-F{config}",
        "--ssh-flag=-J127.0.0.1:2222",
    ]
    run = subprocess.run(
        in_namespace(JUMP_WORKERS, slice_, cli, max_startups="10:30:100"),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = sorted(run.stdout.splitlines())
    assert lines == sorted(
        f"[w{i}] {worker_address(i)} reached from 127.0.0.1" for i in range(JUMP_WORKERS)
    )
    assert (
        "note: through jump host 127.0.0.1:2222: at most 10 SSH handshakes at once (its sshd "
        "drops more under the default MaxStartups 10:30:100); xcli backs off if it refuses"
    ) in run.stderr
    assert f"{JUMP_WORKERS} of {JUMP_WORKERS} workers succeeded" in run.stderr
    # nothing dropped (with 64 at once, sshd drops about a dozen and xcli has to back off)
    assert "refused" not in run.stderr and "retrying" not in run.stderr
