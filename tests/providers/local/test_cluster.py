"""The local provider end to end, with real processes: the CLI creates a v5litepod-16 x2 cluster
(8 workers), the real OpenSSH client and asyncssh reach every worker, then list, describe and
delete behave, and nothing is left running."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from tests.gateways.local_support import (
    create,
    delete,
    needs_openssh,
    pid_alive,
    run_all,
    scp_argv,
    ssh_argv,
    state,
    xcli,
)
from xcli.plan.cluster import ClusterRef, SshAccess, Worker
from xcli.providers.local.layout import Layout, Ports, worker_env
from xcli.providers.local.provider import LocalProvider

REF = ClusterRef("demo", "", "", "local")
LAYOUT = Layout("demo", "v5litepod-16", 2, 4)


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    home = tmp_path_factory.mktemp("local-demo")
    created = create(home, "demo", "v5litepod-16", "--num-slices", "2")
    assert "4 of 4 steps done" in created.stdout
    yield home
    delete(home, "demo", check=False)


@dataclass
class Demo:
    home: Path
    workers: list[Worker]
    access: SshAccess
    ports: Ports


@pytest.fixture
def demo(demo_home: Path, monkeypatch: pytest.MonkeyPatch) -> Demo:
    monkeypatch.setenv("HOME", str(demo_home))
    monkeypatch.setenv("XCLI_HOME", str(demo_home / "state"))
    provider = LocalProvider()
    ports = Ports.from_json(state(demo_home, "demo")["ports"])
    return Demo(demo_home, provider.workers(REF), provider.ssh_access(REF), ports)


def test_workers_and_access(demo: Demo) -> None:
    assert [w.label for w in demo.workers] == [f"s{s}/w{w}" for s, w in LAYOUT.workers()]
    assert {w.host for w in demo.workers} == {"127.0.0.1"}
    assert {w.accelerator for w in demo.workers} == {"v5litepod-16"}
    assert [w.port for w in demo.workers] == list(demo.ports.ssh)
    # 8 SSH + 8 multislice + 1 JAX + 8 profiler: no collision
    assert len(set(demo.ports.all())) == 25
    assert [w.profiler_port for w in demo.workers] == list(demo.ports.profiler)
    assert demo.access.key_file and demo.access.key_file.is_file()
    assert oct(demo.access.key_file.stat().st_mode & 0o777) == "0o600"
    assert demo.access.known_hosts and len(demo.access.known_hosts.read_text().splitlines()) == 8


def test_every_worker_has_its_environment_over_openssh(demo: Demo) -> None:
    results = run_all([ssh_argv(demo.access, w, "pwd; env") for w in demo.workers])
    root = demo.home / "state" / "local" / "demo" / "workers"
    for worker, result in zip(demo.workers, results, strict=True):
        assert result.rc == 0, result.err
        lines = result.out.splitlines()
        assert lines[0] == str(root / f"s{worker.slice}-w{worker.index}")
        env = dict(line.split("=", 1) for line in lines[1:] if "=" in line)
        expected = worker_env(LAYOUT, demo.ports, worker.slice, worker.index)
        assert {k: env.get(k) for k in expected} == expected
        assert env["SSH_CONNECTION"].split()[3] == str(worker.port)


def test_asyncssh_client_sees_the_same_contract(demo: Demo) -> None:
    async def ask(worker: Worker) -> str:
        async with asyncssh.connect(
            worker.host,
            worker.port,
            username=demo.access.user,
            client_keys=[str(demo.access.key_file)],
            known_hosts=str(demo.access.known_hosts),
            agent_path=None,
            config=[],
        ) as conn:
            result = await conn.run(
                "echo $TPU_WORKER_ID $MEGASCALE_SLICE_ID $JAX_PROCESS_ID $JAX_NUM_PROCESSES"
            )
            return str(result.stdout).strip()

    async def all_workers() -> list[str]:
        return list(await asyncio.gather(*(ask(w) for w in demo.workers)))

    answers = asyncio.run(all_workers())
    assert answers == [f"{w} {s} {LAYOUT.process_id(s, w)} 8" for s, w in LAYOUT.workers()]


def test_exit_status_streams_and_signals_propagate(demo: Demo) -> None:
    w = demo.workers[3]
    ok, failed, killed = run_all(
        [
            ssh_argv(demo.access, w, "echo out; echo err >&2"),
            ssh_argv(demo.access, w, "echo partial; exit 42"),
            ssh_argv(demo.access, w, "kill -TERM $$"),
        ]
    )
    assert (ok.rc, ok.out, ok.err) == (0, "out\n", "err\n")
    assert (failed.rc, failed.out) == (42, "partial\n")
    assert killed.rc == 255  # what OpenSSH reports for a command ended by a signal


def test_command_arrives_intact_and_stdin_flows(demo: Demo) -> None:
    w = demo.workers[0]
    tricky = "printf '%s|' \"a b\" 'c$d;e' \"$TPU_WORKER_ID\"; echo\necho line2"
    (quoted,) = run_all([ssh_argv(demo.access, w, tricky)])
    assert quoted.out == "a b|c$d;e|0|\nline2\n"
    (piped,) = run_all([ssh_argv(demo.access, w, "tr a-z A-Z")], stdin="hello\n")
    assert piped.out == "HELLO\n"


def test_client_signal_reaches_the_command_group(demo: Demo) -> None:
    w = demo.workers[5]

    async def go() -> tuple[object, str]:
        async with asyncssh.connect(
            w.host,
            w.port,
            username=demo.access.user,
            client_keys=[str(demo.access.key_file)],
            known_hosts=str(demo.access.known_hosts),
            agent_path=None,
            config=[],
        ) as conn:
            proc = await conn.create_process("sleep 300 & echo $!; wait")
            child = (await proc.stdout.readline()).strip()
            proc.send_signal("TERM")
            await asyncio.wait_for(proc.wait_closed(), 10)
            return proc.exit_signal, child

    exit_signal, child = asyncio.run(go())
    assert exit_signal is not None and exit_signal[0] == "TERM"  # type: ignore[index]
    assert not pid_alive(int(child))  # the whole group got it, not only the shell


def test_scp_both_protocols_and_sftp(demo: Demo, tmp_path: Path) -> None:
    w = demo.workers[1]
    wdir = demo.home / "state" / "local" / "demo" / "workers" / "s0-w1"
    src = tmp_path / "data.bin"
    src.write_bytes(os.urandom(200_000))
    sftp_mode = subprocess.run(
        scp_argv(demo.access, w.port, str(src), f"{demo.access.user}@127.0.0.1:up.bin"),
        capture_output=True,
        check=False,
    )
    assert sftp_mode.returncode == 0, sftp_mode.stderr
    assert (wdir / "up.bin").read_bytes() == src.read_bytes()  # relative = the worker's dir
    legacy = subprocess.run(
        scp_argv(demo.access, w.port, "-O", str(src), "127.0.0.1:legacy.bin"), check=False
    )
    assert legacy.returncode == 0 and (wdir / "legacy.bin").read_bytes() == src.read_bytes()
    back = tmp_path / "back.bin"
    down = subprocess.run(scp_argv(demo.access, w.port, "127.0.0.1:up.bin", str(back)), check=False)
    assert down.returncode == 0 and back.read_bytes() == src.read_bytes()
    missing = subprocess.run(
        scp_argv(demo.access, w.port, "127.0.0.1:nope.bin", str(back)), capture_output=True
    )
    assert missing.returncode != 0 and b"No such file" in missing.stderr

    async def via_sftp() -> bytes:
        async with (
            asyncssh.connect(
                w.host,
                w.port,
                username=demo.access.user,
                client_keys=[str(demo.access.key_file)],
                known_hosts=str(demo.access.known_hosts),
                agent_path=None,
                config=[],
            ) as conn,
            conn.start_sftp_client() as sftp,
        ):
            await sftp.put(str(src), "via-sftp.bin")
            async with sftp.open("via-sftp.bin", "rb") as f:
                return bytes(await f.read())

    assert asyncio.run(via_sftp()) == src.read_bytes()

    async def other_subsystem() -> None:
        async with asyncssh.connect(
            w.host,
            w.port,
            username=demo.access.user,
            client_keys=[str(demo.access.key_file)],
            known_hosts=str(demo.access.known_hosts),
            agent_path=None,
            config=[],
        ) as conn:
            await conn.run(subsystem="netconf")

    with pytest.raises(asyncssh.ChannelOpenError):
        asyncio.run(other_subsystem())


def test_pty_and_interactive_shell(demo: Demo) -> None:
    w = demo.workers[2]
    (tty,) = run_all([ssh_argv(demo.access, w, "tty; echo TERM=$TERM", "-tt")])
    assert tty.rc == 0 and tty.out.startswith("/dev/pts/") and "TERM=" in tty.out
    login = subprocess.run(
        ssh_argv(demo.access, w, "", "-T")[:-1],  # no command: a login shell reading stdin
        input="echo shell $TPU_WORKER_ID\nexit 3\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert login.returncode == 3 and "shell 2" in login.stdout


def test_wrong_key_user_or_host_key_is_refused(demo: Demo, tmp_path: Path) -> None:
    other = tmp_path / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    w = demo.workers[0]
    wrong_key = SshAccess(other, demo.access.known_hosts, demo.access.user)
    wrong_user = SshAccess(demo.access.key_file, demo.access.known_hosts, "nobody-here")
    bogus_hosts = tmp_path / "known_hosts"
    pub = (tmp_path / "other.pub").read_text().split()
    bogus_hosts.write_text(f"[127.0.0.1]:{w.port} {pub[0]} {pub[1]}\n")
    wrong_host = SshAccess(demo.access.key_file, bogus_hosts, demo.access.user)
    key, user, host = run_all([ssh_argv(a, w, "true") for a in (wrong_key, wrong_user, wrong_host)])
    assert key.rc == 255 and "Permission denied" in key.err
    assert user.rc == 255 and "Permission denied" in user.err
    assert host.rc == 255 and "Host key verification failed" in host.err


def test_listens_on_loopback_only(demo: Demo) -> None:
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        pytest.skip("no /proc/net/tcp here")
    listening: dict[int, set[str]] = {}
    for table in tables:
        for line in table.read_text().splitlines()[1:] if table.exists() else []:
            local, _, state_ = line.split()[1:4]
            addr, port = local.split(":")
            if state_ == "0A":  # LISTEN
                listening.setdefault(int(port, 16), set()).add(addr)
    for port in demo.ports.ssh:
        assert listening[port] == {"0100007F"}, port  # 127.0.0.1, nothing else


def test_list_describe_and_idempotent_create(demo: Demo) -> None:
    listed = xcli(demo.home, "cluster", "list", "--provider", "local", "-o", "json")
    rows = json.loads(listed.stdout)
    assert [(r["name"], r["accelerator"], r["slices"], r["status"]) for r in rows] == [
        ("demo", "v5litepod-16", 2, "running")
    ]
    info = json.loads(
        xcli(demo.home, "cluster", "describe", "--provider", "local", "--cluster", "demo", "-o",
             "json").stdout
    )  # fmt: skip
    assert info["status"] == "running" and len(info["workers"]) == 8
    assert info["workers"][5]["env"]["JAX_PROCESS_ID"] == "5"
    before = state(demo.home, "demo")
    again = create(demo.home, "demo", "v5litepod-16", "--num-slices", "2")
    assert "already running" in again.stderr
    assert state(demo.home, "demo") == before
    other = xcli(
        demo.home, "cluster", "create", "--provider", "local", "--cluster", "demo", "--tpu-type",
        "v5litepod-8", check=False,
    )  # fmt: skip
    assert (other.returncode, other.stdout) == (1, "")  # one line and a hint, no step output
    assert other.stderr.splitlines() == [
        "error: local cluster demo already runs as v5litepod-16 x2",
        "hint: delete it first (xcli cluster delete --provider local --cluster demo --yes), "
        "or choose another --cluster name",
    ]
    assert state(demo.home, "demo") == before
    spec = demo.home / "state" / "local" / "demo" / "cluster.json"
    spec.unlink()  # lost: the same shape is still recognised (state.json keeps a copy)
    same = create(demo.home, "demo", "v5litepod-16", "--num-slices", "2")
    assert "already running" in same.stderr and spec.is_file()
    assert state(demo.home, "demo") == before


def _expect(fd: int, marker: bytes, seconds: float = 10.0) -> bytes:
    """Read a terminal until `marker` shows up (or EOF); return what was read."""
    import select

    seen, deadline = b"", time.monotonic() + seconds
    while marker not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_interactive_login_shell_on_a_terminal(demo: Demo) -> None:
    pty = pytest.importorskip("pty")
    w = demo.workers[6]
    argv = ssh_argv(demo.access, w, "", "-tt")[:-1]  # no command: a login shell
    pid, fd = pty.fork()
    if pid == 0:  # the child becomes ssh, on the new terminal
        os.execvp(argv[0], argv)
    os.write(fd, b"echo worker-$TPU_WORKER_ID-$MEGASCALE_SLICE_ID; sleep 30\n")
    assert b"worker-2-1" in _expect(fd, b"worker-2-1", 60.0)  # a loaded machine logs in slowly
    # Ctrl-C: the terminal interrupts sleep, the shell goes on. The echo above can show up
    # before the shell has made sleep the terminal's foreground job, and a Ctrl-C then reaches
    # no sleep; the terminal also discards input typed before the shell is back at its prompt
    # (ISIG flushes the queue). So press Ctrl-C and type the next command until it is answered.
    seen, deadline = b"", time.monotonic() + 15
    while b"after-42" not in seen and time.monotonic() < deadline:
        os.write(fd, b"\x03")
        os.write(fd, b"echo after-$((6*7))\n")
        seen += _expect(fd, b"after-42", 1.0)
    assert b"after-42" in seen
    os.write(fd, b"exit 5\n")
    _expect(fd, b"closed")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 5
