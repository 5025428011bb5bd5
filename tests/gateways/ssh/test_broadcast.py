"""Both SSH engines against a real OpenSSH sshd on loopback (32 workers = 32 ports) and, for the
same tests, against a 32-worker local-provider cluster.

Each remote command learns which worker it runs on from $SSH_CONNECTION (field 4 is the
server port), so a line printed under the wrong prefix is caught.
"""

from __future__ import annotations

import asyncio
import io
import re
import shlex
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.gateways.local_support import LocalServers, delete, local_servers, needs_openssh
from tests.support.sshd import Sshd, free_ports, keygen
from xcli.gateways.ssh.broadcast import run_broadcast
from xcli.gateways.ssh.output import OutputSink
from xcli.plan.fanout import Action, Broadcast, Exec, SshSettings, Target, plan_broadcast
from xcli.plan.fanout_result import ONE_BY_ONE, FanoutResult, ranges

ENGINES = ["openssh", "asyncssh"]
SLACK = 8  # seconds a deadline may be overrun on a loaded machine; a hang is 120 s or more
PORT = "P=$(echo $SSH_CONNECTION | cut -d' ' -f4); "

# The same tests against OpenSSH's sshd and against the local provider's workers (asyncssh
# servers started by `xcli cluster create --provider local`, a 32-worker slice).
SERVERS = ["sshd", "local"]
Server = Sshd | LocalServers


@pytest.fixture(scope="module")
def local_slice(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServers]:
    needs_openssh()
    home = tmp_path_factory.mktemp("broadcast-local")
    servers = local_servers(home, "bcast", "v5litepod-128")
    assert len(servers.ports) == 32
    try:
        yield servers
    finally:
        delete(home, "bcast", check=False)


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Server:
    kind: str = request.param
    found: Server = request.getfixturevalue("sshd" if kind == "sshd" else "local_slice")
    return found


@pytest.fixture(autouse=True)
def _no_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)


def settings(tmp_path: Path, server: Server, **kw: object) -> SshSettings:
    empty = tmp_path / "ssh_config"  # the machine user's ~/.ssh/config must not leak in
    empty.write_text("")
    values: dict[str, object] = {
        "known_hosts": server.pin(tmp_path / "known_hosts"),
        "identity": server.client_key,
        "connect_timeout": 3,
        # curve25519 rather than OpenSSH 9.x's default PQ-hybrid KEX: ~6x less client CPU, which
        # keeps 32-worker runs quick on a 2-core machine (asyncssh negotiates it anyway).
        "ssh_flags": ("-F", str(empty), "-o", "KexAlgorithms=curve25519-sha256"),
    }
    values.update(kw)
    return SshSettings(**values)  # type: ignore[arg-type]


def targets(server: Server, ports: Sequence[int] | None = None) -> list[Target]:
    return [
        Target(f"w{i}", "127.0.0.1", p, server.user) for i, p in enumerate(ports or server.ports)
    ]


def run(
    engine: str,
    tgts: Sequence[Target],
    action: Action,
    s: SshSettings,
    tmp_path: Path,
    **kw: object,
) -> tuple[FanoutResult, str, str]:
    plan = plan_broadcast("test", tgts, action, s, engine=engine, **kw)  # type: ignore[arg-type]
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    out, err = io.BytesIO(), io.BytesIO()
    result = run_broadcast(step, OutputSink(out, err, tmp_path / "logs"))
    return result, out.getvalue().decode(), err.getvalue().decode()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_every_line_arrives_once_under_its_own_prefix(
    engine: str, server: Server, tmp_path: Path
) -> None:
    command = PORT + (
        'for i in $(seq 1 40); do echo "$P out $i"; echo "$P err $i" >&2; done; '
        "head -c 20000 /dev/zero | tr '\\0' x; echo; printf \"$P no-newline\""
    )
    result, out, err = run(
        engine, targets(server), Exec(command), settings(tmp_path, server), tmp_path, batch_size=12
    )
    assert result.exit_code == 0, result.summary_lines()
    port_of = {f"w{i}": p for i, p in enumerate(server.ports)}
    seen: dict[str, list[str]] = {w: [] for w in port_of}
    for line in out.splitlines():
        m = re.fullmatch(r"\[(w\d+)\] (.*)", line)
        assert m, f"unprefixed or mixed line: {line[:80]!r}"
        seen[m.group(1)].append(m.group(2))
    for worker, port in port_of.items():
        expected = [f"{port} out {i}" for i in range(1, 41)] + ["x" * 20000, f"{port} no-newline"]
        assert seen[worker] == expected
    err_lines = err.splitlines()
    assert len(err_lines) == 32 * 40
    for line in err_lines:
        m = re.fullmatch(r"\[(w\d+)\] (\d+) err \d+", line)
        assert m and int(m.group(2)) == port_of[m.group(1)], line
    log = (tmp_path / "logs" / "w5.log").read_text()
    assert f"{port_of['w5']} out 40\n" in log and f"{port_of['w5']} err 1\n" in log


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_exit_status_is_the_largest_remote_code(
    engine: str, server: Server, tmp_path: Path
) -> None:
    ports = server.ports[:12]
    result, _, _ = run(
        engine,
        targets(server, ports),
        Exec(PORT + "exit $((P % 7))"),
        settings(tmp_path, server),
        tmp_path,
    )
    codes = {f"w{i}": p % 7 for i, p in enumerate(ports)}
    assert result.exit_code == max(codes.values())
    for o in result.outcomes:
        assert (o.status, o.exit_code or 0) == (
            ("ok", 0) if codes[o.label] == 0 else ("exit", codes[o.label])
        )
    failed = {o.label for o in result.failed}
    assert failed == {w for w, c in codes.items() if c}
    assert {o.attempts for o in result.outcomes} == {1}  # a command's failure is not retried
    text = "\n".join(result.summary_lines())
    assert f"{12 - len(failed)} of 12 workers succeeded" in text
    if len(failed) <= ONE_BY_ONE:
        for w in failed:
            assert f"[{w}] exit code {codes[w]}  log: {tmp_path / 'logs' / (w + '.log')}" in text
    else:  # grouped by cause, each with its workers (in worker order) and the log folder
        for code in {c for c in codes.values() if c}:
            labels = [w for w, c in codes.items() if c == code]
            assert f"FAILED {len(labels)} worker(s), exit code {code}: {ranges(labels)}" in text
        assert f"logs: {tmp_path / 'logs'}/<worker>.log" in text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_a_command_killed_by_a_signal_reports_128_plus_n(
    engine: str, server: Server, tmp_path: Path
) -> None:
    # `sh -c` is the command's last step: the asyncssh form execs it (server reports exit-signal,
    # the engine maps it), the openssh form keeps the shell, which reports 128+N itself.
    result, _, _ = run(
        engine,
        targets(server, server.ports[:2]),
        Exec("echo started; sh -c 'kill -TERM $$'"),
        settings(tmp_path, server),
        tmp_path,
    )
    assert result.exit_code == 128 + 15
    assert {(o.status, o.exit_code) for o in result.outcomes} == {("exit", 143)}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_unreachable_workers_are_named_and_do_not_hold_up_the_rest(
    engine: str, server: Server, blackhole: int, tmp_path: Path
) -> None:
    refused = free_ports(1)[0]
    ports = [*server.ports[:15], refused, blackhole, *server.ports[15:30]]
    tgts = targets(server, ports)
    start = time.monotonic()
    result, out, _ = run(
        engine,
        tgts,
        Exec(PORT + 'echo "$P alive"'),
        settings(tmp_path, server, connect_timeout=2),
        tmp_path,
    )
    elapsed = time.monotonic() - start
    # Without the timeouts this hangs (OpenSSH: forever; asyncssh: 120 s login timeout). The
    # slack absorbs a busy 2-core machine that also runs the 30 healthy sessions and the servers.
    assert elapsed < 2 + SLACK, f"took {elapsed:.1f}s with a 2s connect timeout"
    by_label = {o.label: o for o in result.outcomes}
    assert by_label["w15"].status == "unreachable" and "refused" in by_label["w15"].reason
    assert by_label["w16"].status == "timed out"
    assert len(result.failed) == 2
    assert result.exit_code == 255
    lines = out.splitlines()
    assert sorted(lines) == sorted(
        f"[{t.label}] {t.port} alive" for t in tgts if t.port not in (refused, blackhole)
    )
    text = "\n".join(result.summary_lines())
    assert "30 of 32 workers succeeded" in text
    assert "[w15] unreachable" in text and "[w16] timed out" in text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_a_refused_key_is_reported_as_authentication(
    engine: str, server: Server, tmp_path: Path
) -> None:
    s = settings(tmp_path, server, identity=server.wrong_key)
    result, _, _ = run(
        engine, targets(server, server.ports[:2]), Exec("true"), s, tmp_path, retry_for=0
    )
    assert [o.status for o in result.outcomes] == ["auth", "auth"]
    assert "authentication refused" in result.outcomes[0].reason
    assert "publickey" in result.outcomes[0].reason
    assert result.exit_code == 255


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_the_command_arrives_intact(engine: str, server: Server, tmp_path: Path) -> None:
    payload = 'it\'s "quoted"; $HOME `x` \\ back\nsecond; line $((1+1))\n\ttab'
    command = f"printf '%s\\n' {shlex.quote(payload)}; a='x;y'\necho \"$a\" done"
    result, out, _ = run(
        engine,
        targets(server, server.ports[:3]),
        Exec(command),
        settings(tmp_path, server),
        tmp_path,
    )
    assert result.exit_code == 0
    for w in ("w0", "w1", "w2"):
        got = [line[len(w) + 3 :] for line in out.splitlines() if line.startswith(f"[{w}] ")]
        assert got == [*payload.split("\n"), "x;y done"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_a_changed_host_key_is_refused_with_a_clear_message(
    engine: str, server: Server, tmp_path: Path
) -> None:
    s = settings(tmp_path, server, host_keys="accept-new")
    client_pub = server.client_key.with_name(server.client_key.name + ".pub")
    other = client_pub.read_text().split()[:2]  # not the host's key
    s.known_hosts.write_text(f"[127.0.0.1]:{server.ports[0]} {' '.join(other)}\n")
    result, _, _ = run(engine, targets(server, server.ports[:1]), Exec("true"), s, tmp_path)
    (o,) = result.outcomes
    assert o.status == "host key"
    assert "changed" in o.reason and "ssh-keygen -R" in o.reason
    assert result.exit_code == 255


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_first_contact_pins_only_when_allowed(engine: str, server: Server, tmp_path: Path) -> None:
    s = settings(tmp_path, server, host_keys="yes")
    s.known_hosts.write_text("")
    result, _, _ = run(engine, targets(server, server.ports[:1]), Exec("true"), s, tmp_path)
    assert result.outcomes[0].status == "host key"
    assert "no key pinned" in result.outcomes[0].reason
    s = settings(tmp_path, server, host_keys="accept-new")
    s.known_hosts.write_text("")
    result, _, err = run(engine, targets(server, server.ports[:1]), Exec("true"), s, tmp_path)
    assert result.exit_code == 0
    # the first trust is said (issue 26: asyncssh pinned an unknown key without a word)
    said = "Permanently added" if engine == "openssh" else "first contact: trusted the host key"
    assert said in err
    pinned = s.known_hosts.read_text()
    assert f"[127.0.0.1]:{server.ports[0]} " in pinned
    assert server.host_key.split()[1] in pinned


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_timeout_stops_the_run(engine: str, server: Server, tmp_path: Path) -> None:
    start = time.monotonic()
    result, out, _ = run(
        engine,
        targets(server, server.ports[:3]),
        Exec("echo started; sleep 30"),
        settings(tmp_path, server),
        tmp_path,
        timeout=2,
    )
    assert time.monotonic() - start < 2 + SLACK
    assert out.count("started") == 3
    assert {o.status for o in result.outcomes} == {"timed out"}
    assert result.exit_code == 124


def remote_pids(marker: str) -> list[int]:
    """Processes (on this machine, where the test workers run) whose command line has marker."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_cancel_stops_remote_commands_and_keeps_a_partial_summary(
    engine: str, server: Server, tmp_path: Path
) -> None:
    marker = f"xcli-mark-{uuid.uuid4().hex}"
    first = server.ports[0]
    command = (
        f": {marker}; " + PORT + 'echo "$P up"; [ "$P" = ' + str(first) + " ] && exit 0; "
        "while true; do echo tick; sleep 0.2; done"
    )
    tgts = targets(server, server.ports[:3])
    plan = plan_broadcast("t", tgts, Exec(command), settings(tmp_path, server), engine=engine)  # type: ignore[arg-type]
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    cancelled = threading.Event()
    timer = threading.Timer(1.5, cancelled.set)
    timer.start()
    start = time.monotonic()
    result = run_broadcast(step, OutputSink(io.BytesIO(), io.BytesIO(), None), cancelled)
    assert time.monotonic() - start < 1.5 + SLACK
    assert result.interrupted
    assert [o.status for o in result.outcomes] == ["ok", "interrupted", "interrupted"]
    assert "1 of 3 workers succeeded" in result.summary_lines()[0]
    assert result.exit_code == 130
    deadline = time.monotonic() + 5
    while remote_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert remote_pids(marker) == [], "the remote commands kept running"


CLIENT_PORT = "echo $SSH_CONNECTION | cut -d' ' -f2"


def _client_ports(out: str) -> dict[str, str]:
    return dict(line[1:].split("] ", 1) for line in out.splitlines())


@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_openssh_reuses_connections_on_the_next_run(server: Server, tmp_path: Path) -> None:
    """With ControlMaster, the second run's commands arrive over the first run's connections
    (same client port seen by the server), and close_masters ends them."""
    from xcli.gateways.ssh.openssh_engine import close_masters, ensure_control_dir

    control = Path(tempfile.mkdtemp(prefix="xcm-"))  # short: socket paths are limited
    try:
        ensure_control_dir(control)
        s = settings(tmp_path, server, control_dir=control)
        tgts = targets(server, server.ports[:6])
        first, out1, _ = run("openssh", tgts, Exec(CLIENT_PORT), s, tmp_path)
        assert first.exit_code == 0 and len(list(control.iterdir())) == 6
        second, out2, _ = run("openssh", tgts, Exec(CLIENT_PORT), s, tmp_path)
        assert second.exit_code == 0
        assert _client_ports(out1) == _client_ports(out2)
        plan = plan_broadcast("t", tgts, Exec("true"), s)
        step = plan.steps[0]
        assert isinstance(step, Broadcast)
        close_masters(step)
        deadline = time.monotonic() + 5
        while list(control.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(control.iterdir()) == []
    finally:
        shutil.rmtree(control, ignore_errors=True)


@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_asyncssh_reuses_connections_within_one_engine(server: Server, tmp_path: Path) -> None:
    from xcli.gateways.ssh.asyncssh_engine import AsyncSshEngine
    from xcli.gateways.ssh.pool import run_pool

    plan = plan_broadcast(
        "t",
        targets(server, server.ports[:6]),
        Exec(CLIENT_PORT),
        settings(tmp_path, server),
        engine="asyncssh",
    )
    step = plan.steps[0]
    assert isinstance(step, Broadcast)

    async def twice() -> tuple[str, str]:
        engine = AsyncSshEngine()
        outs = []
        for _ in range(2):
            out = io.BytesIO()
            result = await run_pool(step, engine, OutputSink(out, io.BytesIO(), None))
            assert result.exit_code == 0
            outs.append(out.getvalue().decode())
        await engine.aclose()
        return outs[0], outs[1]

    out1, out2 = asyncio.run(twice())
    assert len(_client_ports(out1)) == 6
    assert _client_ports(out1) == _client_ports(out2)


def test_the_live_executor_runs_broadcast_steps(sshd: Sshd, tmp_path: Path) -> None:
    """Other plans (workloads on TPU VMs) embed the same step; the handler runs it."""
    from xcli.execute.live import LiveExecutor
    from xcli.gateways.ssh.broadcast import handler

    tgts = targets(sshd, sshd.ports[:3])
    good = plan_broadcast("t", tgts, Exec("echo fine"), settings(tmp_path, sshd))
    result = LiveExecutor({"ssh": handler}).run(good)
    assert result.ok and result.results["ssh"].outputs["workers"] == 3
    log_dir = Path(result.results["ssh"].outputs["log_dir"])
    assert (log_dir / "w2.log").read_text() == "fine\n"
    bad = plan_broadcast("t", tgts, Exec("exit 4"), settings(tmp_path, sshd))
    result = LiveExecutor({"ssh": handler}).run(bad)
    error = result.results["ssh"].error
    assert not result.ok and error is not None
    assert str(error).startswith("0 of 3 workers succeeded") and "[w0] exit code 4" in str(error)


@pytest.mark.parametrize("engine", ENGINES)
def test_connection_failures_are_retried_until_the_worker_comes_up(
    engine: str, tmp_path: Path
) -> None:
    """A worker whose sshd starts a moment late (a fresh VM) is retried and succeeds; a command
    failing on the worker is never retried."""
    from tests.support.sshd import make_sshd, sshd_binary

    if sshd_binary() is None:
        pytest.skip("OpenSSH server (sshd) is not installed")
    late = make_sshd(tmp_path / "late", 1)
    timer = threading.Timer(1.0, late.start)
    timer.start()
    try:
        s = settings(tmp_path, late, host_keys="accept-new")
        s.known_hosts.write_text("")  # first contact pins the new VM's key
        tgts = targets(late)
        result, out, err = run(engine, tgts, Exec("echo up; exit 5"), s, tmp_path, retry_for=15)
        (o,) = result.outcomes
        assert (o.status, o.exit_code) == ("exit", 5) and o.attempts > 1
        assert out == "[w0] up\n" and "retrying in" in err
    finally:
        timer.join()
        late.stop()


@pytest.mark.parametrize("engine", ENGINES)
def test_two_first_contacts_at_once_give_no_false_key_changed(
    engine: str, sshd: Sshd, tmp_path: Path
) -> None:
    """Two connections to the same new worker at once (two targets on one host:port, or two
    xcli runs): the second sees the key the first just pinned, the same key, and accepts it;
    it was refused with "the key changed ... ssh-keygen -R" (issue 37, Faults)."""
    port = sshd.ports[0]
    tgts = [Target("w0", "127.0.0.1", port, sshd.user)]
    s = settings(tmp_path, sshd, host_keys="accept-new")
    for attempt in range(3):  # the race is narrow: several rounds of four runs at once
        s.known_hosts.write_text("")
        got: list[tuple[FanoutResult, str, str]] = []

        def one(n: int, got: list[tuple[FanoutResult, str, str]] = got, r: int = attempt) -> None:
            got.append(run(engine, tgts, Exec("true"), s, tmp_path / f"r{r}-{n}"))

        runs = [threading.Thread(target=one, args=(n,)) for n in range(4)]
        for t in runs:
            t.start()
        for t in runs:
            t.join(timeout=60)
        assert len(got) == 4
        for result, _, err in got:
            assert result.exit_code == 0, result.summary_lines()
            assert "changed" not in err
    # a really different key is still refused as changed
    other = " ".join(keygen(tmp_path / "other_host_key").split()[:2])
    s.known_hosts.write_text(f"[127.0.0.1]:{port} {other}\n")
    result, _, _ = run(engine, tgts[:1], Exec("true"), s, tmp_path)
    assert result.outcomes[0].status == "host key"
