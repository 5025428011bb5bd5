"""One emulated worker's SSH server (asyncssh), listening on loopback only.

It behaves like sshd where a client can tell: public-key authentication only (the cluster's
client key, for the local user); a command runs as `$SHELL -c COMMAND` in a new session, in the
worker's directory, with the worker's environment; no command means a login shell; a pty is
given when asked for; exit status, or the signal that ended the command, is sent back; signals
and breaks from the client go to the command's process group; SFTP (and so `scp`, legacy
`scp -O` too) works, with relative paths inside the worker's directory. When a client goes
away mid-command the command's group gets SIGHUP, as with a terminal hangup.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh
from asyncssh.sftp import MIN_SFTP_VERSION

from xcli.errors import UserError
from xcli.providers.local.process import signal_group, start_command
from xcli.state_files import write_private

CHUNK = 65536
CLIENT_ENV = ("LANG", "LC_")  # what Debian's sshd accepts from clients (AcceptEnv LANG LC_*)


@dataclass
class WorkerSite:
    """Everything one worker's server needs; env is the full environment of its commands."""

    label: str
    directory: Path
    env: dict[str, str]
    user: str
    shell: str
    client_key: Any  # asyncssh.SSHKey
    procs: Path  # registry folder: one file per live process group
    children: set[int] = field(default_factory=set)
    # what every command runs under: the worker's own hostname (hostnames.py); () for none
    wrap: tuple[str, ...] = ()


class _Auth(asyncssh.SSHServer):
    def __init__(self, site: WorkerSite) -> None:
        self._site = site

    def begin_auth(self, username: str) -> bool:
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: Any) -> bool:
        wanted: bytes = self._site.client_key.public_data
        return username == self._site.user and bool(key.public_data == wanted)

    def session_requested(self) -> Any:
        return _Session(self._site)

    def connection_requested(
        self, dest_host: str, dest_port: int, orig_host: str, orig_port: int
    ) -> bool:
        """A port forward (`ssh -L`, direct-tcpip), as sshd's default AllowTcpForwarding yes
        allows, to the worker's own loopback only (`xcli workload profile` reaches each
        worker's profiler server this way); anything else is refused."""
        return dest_host in ("127.0.0.1", "localhost", "::1")


class _WorkerSFTP(asyncssh.SFTPServer):
    """Relative paths (and so `scp file host:`) land in the worker's directory."""

    def __init__(self, chan: Any, directory: Path) -> None:
        super().__init__(chan)
        self._base = os.fsencode(directory)

    def map_path(self, path: bytes) -> bytes:
        # Legacy SCP (asyncssh's engine) sends the path as typed; on a real worker the login
        # shell turns `~` into the login directory, which is the worker's directory here.
        if path == b"~" or path.startswith(b"~/"):
            path = path[2:]
        return path if path.startswith(b"/") else os.path.join(self._base, path)

    def exit(self) -> None:
        # sshd reports sftp-server's exit status; OpenSSH's scp (SFTP mode) fails without one.
        if self.channel.get_subsystem() == "sftp":
            self.channel.exit(0)


class _Session(asyncssh.SSHServerProcess[bytes]):
    def __init__(self, site: WorkerSite) -> None:
        def sftp(chan: Any) -> _WorkerSFTP:
            return _WorkerSFTP(chan, site.directory)

        super().__init__(self._run, sftp, MIN_SFTP_VERSION, True)
        self._site = site
        self._pgid: int | None = None
        self._master: int | None = None
        self._done = False

    def subsystem_requested(self, subsystem: str) -> bool:
        return subsystem == "sftp"  # like sshd with only `Subsystem sftp` configured

    # --- what the client sends while the command runs -----------------------------------
    def signal_received(self, signal_name: str) -> None:
        sig = getattr(signal, f"SIG{signal_name}", None)
        if self._pgid is not None and isinstance(sig, signal.Signals):
            signal_group(self._pgid, sig)

    def break_received(self, msec: int) -> bool:
        self.signal_received("INT")
        return True

    def terminal_size_changed(self, width: int, height: int, pixw: int, pixh: int) -> None:
        if self._master is not None:
            _set_size(self._master, width, height, pixw, pixh)
            self.signal_received("WINCH")

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._done:
            self.signal_received("HUP")
        super().connection_lost(exc)

    # --- running the command --------------------------------------------------------------
    def _argv(self) -> list[str]:
        shell, wrap = self._site.shell, list(self._site.wrap)
        if self.command is None:
            return [*wrap, shell, "-l"]
        return [*wrap, shell, "-c", self.command]

    def _env(self) -> dict[str, str]:
        env = dict(self._site.env)
        for key, value in self.env.items():
            if isinstance(key, str) and key.startswith(CLIENT_ENV):
                env[key] = str(value)
        peer_host, peer_port = self.get_extra_info("peername")[:2]
        local_host, local_port = self.get_extra_info("sockname")[:2]
        env["SSH_CLIENT"] = f"{peer_host} {peer_port} {local_port}"
        env["SSH_CONNECTION"] = f"{peer_host} {peer_port} {local_host} {local_port}"
        if self.term_type:
            env["TERM"] = self.term_type
        return env

    async def _run(self, _process: Any) -> None:
        env = self._env()
        try:
            if self.term_type:
                status = await self._run_pty(env)
            else:
                status = await self._run_pipes(env)
        except (OSError, UserError) as exc:  # nothing of the command runs (see _reserve)
            self.stderr.write(f"xcli local worker {self._site.label}: {exc}\n".encode())
            status = 127
        self._done = True
        if status < 0:
            name = signal.Signals(-status).name.removeprefix("SIG")
            self.exit_with_signal(name)
        else:
            self.exit(status)

    def _reserve(self) -> Path:
        """The command's entry in the registry, written before it starts (issue 26: written
        after, a full disk left the command running unsupervised while the client was told
        127). If this fails, nothing runs."""
        name = f"starting-{secrets.token_hex(6)}"  # not a number: cleanup never reads it
        return write_private(self._site.procs / name, self._site.label + "\n")

    async def _register(self, proc: asyncio.subprocess.Process, entry: Path) -> None:
        """Name the reserved entry after the command's group (a rename needs no space); if
        even that fails, the command is stopped at once rather than left unsupervised."""
        try:
            os.replace(entry, self._site.procs / str(proc.pid))
        except OSError as exc:
            signal_group(proc.pid, signal.SIGKILL)
            await proc.wait()
            with contextlib.suppress(OSError):
                entry.unlink()
            raise OSError(
                f"cannot record the command's process, so it was stopped: {exc}"
            ) from None
        self._pgid = proc.pid
        self._site.children.add(proc.pid)

    def _unregister(self) -> None:
        if self._pgid is not None:
            self._site.children.discard(self._pgid)
            with contextlib.suppress(OSError):
                (self._site.procs / str(self._pgid)).unlink()

    async def _run_pipes(self, env: dict[str, str]) -> int:
        entry = self._reserve()
        try:
            proc = await start_command(self._argv(), cwd=self._site.directory, env=env)
        except BaseException:
            entry.unlink(missing_ok=True)
            raise
        await self._register(proc, entry)
        try:
            assert proc.stdin and proc.stdout and proc.stderr
            feeder = asyncio.ensure_future(self._feed(proc.stdin))
            await asyncio.gather(_copy(proc.stdout, self.stdout), _copy(proc.stderr, self.stderr))
            status = await proc.wait()
            feeder.cancel()
            return status
        finally:
            self._unregister()

    async def _feed(self, target: asyncio.StreamWriter) -> None:
        """Client stdin -> the command, until EOF (then the command sees EOF too)."""
        try:
            while True:
                try:
                    data = await self.stdin.read(CHUNK)
                except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                    continue
                except asyncssh.TerminalSizeChanged:
                    continue
                if not data:
                    break
                target.write(data)
                await target.drain()
        except (BrokenPipeError, ConnectionResetError, asyncssh.Error):
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                target.close()

    async def _run_pty(self, env: dict[str, str]) -> int:
        master, slave = os.openpty()
        self._master = master
        width, height, pixw, pixh = self.term_size
        if width and height:
            _set_size(master, width, height, pixw, pixh)
        env["SSH_TTY"] = os.ttyname(slave)
        try:
            entry = self._reserve()
            try:
                argv = self._argv()
                proc = await start_command(argv, cwd=self._site.directory, env=env, tty=slave)
            except BaseException:
                entry.unlink(missing_ok=True)
                raise
        finally:
            os.close(slave)
        await self._register(proc, entry)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(master, "rb", 0, closefd=False)
        )
        feeder = asyncio.ensure_future(self._feed_tty(master))
        try:
            with contextlib.suppress(OSError):  # EIO once the last holder of the tty exits
                await _copy(reader, self.stdout)
            return await proc.wait()
        finally:
            feeder.cancel()
            transport.close()
            self._master = None
            os.close(master)
            self._unregister()

    async def _feed_tty(self, master: int) -> None:
        while True:
            try:
                data = await self.stdin.read(CHUNK)
            except (asyncssh.BreakReceived, asyncssh.SignalReceived, asyncssh.TerminalSizeChanged):
                continue
            if not data:
                return
            while data:
                try:
                    data = data[os.write(master, data) :]
                except BlockingIOError:
                    await asyncio.sleep(0.01)


async def _copy(reader: asyncio.StreamReader, writer: Any) -> None:
    """The command's output -> the channel; if the client is gone, keep draining."""
    alive = True
    while True:
        data = await reader.read(CHUNK)
        if not data:
            return
        if alive:
            try:
                writer.write(data)
                await writer.drain()
            except (BrokenPipeError, ConnectionResetError, asyncssh.Error):
                alive = False


def _set_size(fd: int, width: int, height: int, pixw: int, pixh: int) -> None:
    import fcntl
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, pixw, pixh))


async def serve(site: WorkerSite, host: str, port: int, host_key: Any) -> asyncssh.SSHAcceptor:
    """Start listening; returns the asyncssh acceptor (get_port(), close())."""
    return await asyncssh.create_server(
        lambda: _Auth(site),
        host,
        port,
        server_host_keys=[host_key],
        encoding=None,
        line_editor=False,
        allow_pty=True,
        agent_forwarding=False,
        x11_forwarding=False,
        password_auth=False,
        kbdint_auth=False,
        gss_host=None,
        login_timeout=30,
        keepalive_interval=30,
        reuse_address=True,
    )
