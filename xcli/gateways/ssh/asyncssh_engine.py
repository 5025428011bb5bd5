"""The in-process SSH engine (asyncssh): far less CPU and memory per worker than OpenSSH.

Same interface and outcomes as the OpenSSH engine. Host keys are checked against xcli's own
known_hosts file (pinning on first contact only with host_keys="accept-new"); connect and login
share one explicit timeout (asyncssh's own login timeout is 2 minutes); keepalives are always on.
Connections stay open in the engine until `aclose()`, so several runs in one event loop reuse
them, as many as the file descriptors the pool leaves spare (`spare_fds`) and at most `keep`;
a worker's connection beyond that is closed once its command ends. `make_engine` builds it
with keep=0 for a single run (nothing would reuse them: on a 2,304-worker slice they would
only hold 2,304 sockets, and as many sshd processes on the workers, until the end).
asyncssh reads only part of ~/.ssh/config (no ControlMaster).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xcli.gateways.file_lock import locked
from xcli.gateways.ssh.output import WorkerStream
from xcli.gateways.ssh.pool import Attempt
from xcli.gateways.ssh.waits import within
from xcli.plan.fanout import (
    KEEPALIVE_COUNT,
    KEEPALIVE_INTERVAL,
    Broadcast,
    Download,
    Exec,
    SshSettings,
    Target,
    Upload,
)
from xcli.plan.remote import remote_command
from xcli.state_files import open_private

CLOSE_GRACE = 2.0  # seconds aclose waits for the connections to finish closing
PREFERRED_CIPHERS = "^aes128-gcm@openssh.com,aes256-gcm@openssh.com"


def known_name(host: str, port: int) -> str:
    return host if port == 22 else f"[{host}]:{port}"


def _pinned_keys(path: Path, name: str) -> set[tuple[str, str]]:
    """The (type, base64) keys pinned for `name`."""
    keys: set[tuple[str, str]] = set()
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = line.split()
            usable = len(fields) >= 3 and not line.startswith(("#", "@"))
            if usable and name in fields[0].split(","):
                keys.add((fields[1], fields[2]))
    return keys


def _pinned_names(path: Path) -> set[str]:
    names: set[str] = set()
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith(("#", "@")):
                names.update(line.split()[0].split(","))
    return names


class AsyncSshEngine:
    name = "asyncssh"

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep  # connections kept open after their attempt (None: as fds allow)
        self._spare = 1 << 20
        self._closing: set[asyncio.Task[None]] = set()
        self._conns: dict[tuple[str, int, str | None], Any] = {}
        # Parsed known_hosts by file, with the mtime it was read at: parsing it once per
        # connection would cost O(workers^2) on a large slice.
        self._known: dict[Path, tuple[int, Any]] = {}

    async def attempt(self, step: Broadcast, index: int, stream: WorkerStream) -> Attempt:
        import asyncssh

        assert step.settings is not None
        target = step.targets[index]
        try:
            conn = await self._connect(target, step.settings, stream.note)
        except (asyncio.TimeoutError, TimeoutError):
            return Attempt(
                "timed out",
                detail=f"no SSH answer within {step.settings.connect_timeout}s (connect timeout)",
            )
        except asyncssh.HostKeyNotVerifiable as exc:
            return _host_key_failure(target, step.settings, str(exc))
        except asyncssh.PermissionDenied as exc:
            offered = f"key {s.identity}" if (s := step.settings).identity else "default keys"
            stream.note(f"authentication refused: {exc.reason}")
            return Attempt(
                "auth", detail=f"Permission denied (publickey, {offered})", retryable=True
            )
        except (OSError, asyncssh.Error) as exc:
            stream.note(f"cannot connect: {exc}")
            return Attempt("unreachable", detail=_short(exc), retryable=True)
        stream.connected = True
        try:
            done = await self._act(conn, step.action_for(index), stream, step.settings)
            self._keep_or_close(target)
            return done
        except _NoSession:
            # a worker that froze behind a connection opened earlier (a reused one): its
            # keepalives would notice only after 30 s; drop it, the next attempt reconnects
            self._conns.pop((target.host, target.port, target.user), None)
            conn.abort()
            stream.note("no answer over the open connection; closed it")
            return Attempt(
                "timed out",
                detail=f"no SSH answer within {step.settings.connect_timeout}s (connect timeout)",
            )
        except (OSError, asyncssh.Error) as exc:
            self._conns.pop((target.host, target.port, target.user), None)
            stream.note(f"connection lost: {exc}")
            return Attempt("unreachable", detail=_short(exc), reached=True)

    async def _connect(
        self, target: Target, s: SshSettings, say: Callable[[str], None] = lambda _m: None
    ) -> Any:
        import asyncssh

        key = (target.host, target.port, target.user)
        if key in self._conns:
            return self._conns[key]
        options: dict[str, Any] = {
            "port": target.port,
            "known_hosts": self._known_hosts(s.known_hosts),
            "connect_timeout": s.connect_timeout,
            "login_timeout": s.connect_timeout,
            "keepalive_interval": KEEPALIVE_INTERVAL,
            "keepalive_count_max": KEEPALIVE_COUNT,
            # AES-GCM first (then asyncssh's defaults): with the CPU's AES instructions it costs
            # a fraction of chacha20-poly1305 per packet, which asyncssh computes in Python.
            "encryption_algs": PREFERRED_CIPHERS,
        }
        if target.user:
            options["username"] = target.user
        if s.identity is not None:  # like IdentitiesOnly=yes: this key and no other
            options["client_keys"] = [str(s.identity)]
            options["agent_path"] = None
        factory = _client_factory(s, known_name(target.host, target.port), say)
        conn, _ = await asyncssh.create_connection(factory, target.host, **options)
        self._conns[key] = conn
        return conn

    def _known_hosts(self, path: Path) -> Any:
        import asyncssh

        stamp = path.stat().st_mtime_ns if path.is_file() else -1
        cached = self._known.get(path)
        if cached is None or cached[0] != stamp:
            text = path.read_text(encoding="utf-8") if stamp != -1 else ""
            cached = (stamp, asyncssh.import_known_hosts(text))
            self._known[path] = cached
        return cached[1]

    async def _act(
        self, conn: Any, action: Any, stream: WorkerStream, settings: SshSettings
    ) -> Attempt:
        import asyncssh

        if isinstance(action, Exec):
            # stdin stays open (never written): the remote wrapper stops the command at EOF.
            env = settings.send_env
            extra = {"env": dict(e.split("=", 1) for e in env if "=" in e)} if env else {}
            opening = conn.create_process(remote_command(action.command), encoding=None, **extra)
            try:  # the session must open within the connect timeout, as a connection must
                proc = await within(opening, settings.connect_timeout)
            except asyncio.TimeoutError:
                raise _NoSession from None
            try:
                await asyncio.gather(
                    _pump(proc.stdout, stream, False), _pump(proc.stderr, stream, True)
                )
                done = await proc.wait()
            finally:
                if proc.exit_status is None:
                    _stop(proc)
            if done.exit_status is None or done.exit_status < 0:
                # killed by a signal on the worker: report 128+N, as a shell does
                return _signal_death(done.exit_signal)
            return Attempt.finished(done.exit_status)
        try:
            if isinstance(action, Upload):
                if action.dest.endswith("/"):
                    await _make_folder(conn, action.dest)
                # local names as bytes: a name that is not UTF-8 (a surrogate-escaped str) is
                # sent as it is, as OpenSSH's scp does, instead of failing to encode
                sources = [os.fsencode(source) for source in action.sources]
                await asyncssh.scp(sources, (conn, action.dest), recurse=action.recursive)
            elif isinstance(action, Download):
                local = os.fsencode(action.dest)
                await asyncssh.scp((conn, action.source), local, recurse=action.recursive)
        except asyncssh.SFTPError as exc:
            stream.note(f"copy failed: {exc.reason}")
            return Attempt("exit", 1, detail=exc.reason, reached=True)
        return Attempt("ok", 0, reached=True)

    def connected(self, step: Broadcast, index: int) -> bool:
        """The stream's flag says it (set once the connection is up)."""
        return False

    def spare_fds(self, count: int) -> None:
        self._spare = count

    def _keep_or_close(self, target: Target) -> None:
        """Keep the worker's connection for a later run while the budget allows, else close it
        now (a task waits for it to finish closing; aclose() waits for those still going)."""
        limit = self._spare if self.keep is None else min(self.keep, self._spare)
        if len(self._conns) <= limit:
            return
        conn = self._conns.pop((target.host, target.port, target.user), None)
        if conn is None:
            return
        conn.close()
        task = asyncio.ensure_future(conn.wait_closed())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        conns, self._conns = list(self._conns.values()), {}
        for conn in conns:
            conn.close()
        waits = [*(c.wait_closed() for c in conns), *self._closing]
        # bounded: a worker that stopped answering must not hold the end of the run (the
        # connection is closed on our side already; the OS reclaims it at exit)
        with contextlib.suppress(asyncio.TimeoutError):
            await within(asyncio.gather(*waits, return_exceptions=True), CLOSE_GRACE)


class _NoSession(Exception):
    """The session did not open within the connect timeout."""


def _signal_death(exit_signal: Any) -> Attempt:
    """sshd's exit-signal ("TERM", core dumped, message, language) -> exit 128+N."""
    name = str(exit_signal[0]) if exit_signal else ""
    try:
        number = int(signal.Signals[f"SIG{name}"])
    except KeyError:
        return Attempt("exit", 128, detail=f"killed by signal {name or '?'}", reached=True)
    return Attempt("exit", 128 + number, detail=f"killed by signal {name}", reached=True)


def _stop(proc: Any) -> None:
    """Send EOF (the remote wrapper then stops the command's process group) and ask sshd to
    signal the command (a "signal" request, RFC 4254 6.9, which sshd ignores for root), then
    close the channel."""
    with contextlib.suppress(OSError, ValueError):  # the channel may be closing already
        proc.stdin.write_eof()
    with contextlib.suppress(OSError, ValueError):
        proc.send_signal("TERM")
    proc.close()


async def _pump(reader: Any, stream: WorkerStream, err: bool) -> None:
    while chunk := await reader.read(65536):
        stream.feed(chunk, err)


def _client_factory(s: SshSettings, name: str, say: Callable[[str], None]) -> Any:
    """An SSHClient that, for a host with no pinned key and host_keys="accept-new", pins the
    key it is shown (first contact) and says so, as OpenSSH's "Permanently added" warning
    does. A host that has a pinned key never gets another one."""
    import asyncssh

    class PinningClient(asyncssh.SSHClient):
        def validate_host_public_key(self, host: str, addr: str, port: int, key: Any) -> bool:
            if s.host_keys != "accept-new":
                return False
            line = key.export_public_key("openssh").decode().strip()
            # under the lock other xcli processes take to rewrite this file (tpu_access.pin)
            with locked(s.known_hosts):
                pinned = _pinned_keys(s.known_hosts, name)
                if pinned:
                    # pinned meanwhile by another connection to it (two first contacts at
                    # once): the same key is that worker's; another key is a change (issue 37)
                    return tuple(line.split()[:2]) in pinned
                with open_private(s.known_hosts) as f:  # 0600 whatever the umask
                    f.write(f"{name} {line}\n".encode())
            say(
                f"first contact: trusted the host key of {name} ({key.get_fingerprint()}) "
                f"and pinned it in {s.known_hosts}"
            )
            return True

    return PinningClient


def _host_key_failure(target: Target, s: SshSettings, message: str) -> Attempt:
    name = known_name(target.host, target.port)
    if name in _pinned_names(s.known_hosts):
        return Attempt(
            "host key",
            detail=f"the key changed; if the VM was recreated, forget the old one with "
            f"ssh-keygen -R '{name}' -f {s.known_hosts}",
        )
    return Attempt("host key", detail=f"no key pinned for it in {s.known_hosts}")


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return text.splitlines()[0][:160]


async def _make_folder(conn: Any, dest: str) -> None:
    """A destination written as a folder (`:~/job/`) is created first, as OpenSSH's scp does
    in its SFTP mode; legacy SCP, which asyncssh speaks, would refuse a folder that is not
    there. SFTP paths are relative to the login directory, so `~/` is dropped."""
    path = dest[2:] if dest.startswith("~/") else dest
    if path.strip("/") in ("", "~"):
        return
    async with conn.start_sftp_client() as sftp:
        await sftp.makedirs(path, exist_ok=True)
