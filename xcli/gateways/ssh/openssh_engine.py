"""The default SSH engine: one OpenSSH `ssh`/`scp` process per worker.

It runs exactly the argv the plan holds (`Broadcast.workers[i].argv`, printed by --dry-run), so
the user's ~/.ssh/config, agent, ProxyJump and security keys all work as with plain ssh, while
xcli's -o options (timeouts, keepalives, BatchMode, its own known_hosts, ControlMaster) come
first on the command line and so win over any `Host *` block. OpenSSH reports every failure of
its own as exit status 255 plus a message on stderr; `classify` turns that into a reason.

With connection reuse, a command for a worker whose ControlMaster is already up does not start
the passenger `ssh` at all: the engine asks the master for the session itself (gateways/ssh_mux,
OpenSSH's own multiplexing protocol), which is what that `ssh` would do, minus a process start
per worker. Without a master (first run, or it exited), the printed argv runs as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
import tempfile
from pathlib import Path

from xcli import paths
from xcli.gateways import process
from xcli.gateways.ssh import mux as ssh_mux
from xcli.gateways.ssh.output import WorkerStream
from xcli.gateways.ssh.pool import Attempt
from xcli.gateways.ssh.waits import within
from xcli.plan.fanout import Broadcast, Exec, SshSettings, Target, control_path

# A ControlPath must fit a Unix socket address (108 bytes): the folder, "/" + the 40-character
# name from plan.fanout.control_path, and the ".XXXXXXXXXXXXXXXX" OpenSSH adds while it creates
# the socket.
MAX_CONTROL_DIR = 48
TAIL = 4096  # bytes of stderr kept to classify a failure
GRACE = 2.0  # seconds a stopped ssh gets to close its channel before it is killed


class OpenSshEngine:
    name = "openssh"

    def __init__(self) -> None:
        # Per step: what a passenger ssh would send (ssh -G, once per step), None = always ssh.
        self._session: dict[int, tuple[Broadcast, asyncio.Task[ssh_mux.SessionOptions | None]]] = {}
        # The ssh processes running now, by (step, worker index): see connected().
        self._running: dict[tuple[int, int], asyncio.subprocess.Process] = {}

    async def attempt(self, step: Broadcast, index: int, stream: WorkerStream) -> Attempt:
        direct = await self._over_master(step, index, stream)
        if direct is not None:
            return direct
        # ssh's stdin stays open: the remote wrapper (plan/remote.py) stops the command when
        # it reaches EOF, which is what closing it (or the connection going) sends.
        argv = step.workers[index].argv
        proc = await process.spawn(argv, hold_stdin=argv[0] == "ssh")
        if proc.stdin is not None:
            # One newline, which the remote wrapper's watcher reads and ignores. ssh reads its
            # stdin only once the session channel is open, so while this byte still sits in the
            # pipe, the worker has not been reached (connected() asks).
            proc.stdin.write(b"\n")
        self._running[(id(step), index)] = proc
        tail = bytearray()

        async def pump(reader: asyncio.StreamReader | None, err: bool) -> None:
            assert reader is not None
            while chunk := await reader.read(65536):
                stream.feed(chunk, err)
                if err:
                    tail.extend(chunk)
                    del tail[:-TAIL]

        try:
            await asyncio.gather(pump(proc.stdout, False), pump(proc.stderr, True))
            code = await proc.wait()
        finally:
            self._running.pop((id(step), index), None)
            if proc.returncode is None:
                await _stop(proc)
        assert step.settings is not None, "a Broadcast step always carries its SshSettings"
        return classify(code, stream.saw_stdout, bytes(tail), step.targets[index], step.settings)

    async def _over_master(
        self, step: Broadcast, index: int, stream: WorkerStream
    ) -> Attempt | None:
        """The command through an open master, or None to start ssh (no master, or a session
        this path cannot open the way ssh would)."""
        argv = step.workers[index].argv
        if argv[0] != "ssh" or not isinstance(step.action_for(index), Exec):
            return None
        assert step.settings is not None
        path = control_path(step.settings, step.targets[index])
        if path is None or not path.exists():
            return None
        options = await self._options(step, index, path)
        if options is None:
            return None
        timeout = step.settings.connect_timeout
        try:
            status = await ssh_mux.run(path, argv[-1], options, stream.feed, open_timeout=timeout)
        except ssh_mux.NoSession:
            return None
        except ssh_mux.NoAnswer:
            # The worker froze behind a connection that is still up: the master would notice
            # only after its keepalives (30 s and more). Close that master, so the next run
            # connects afresh (and meets the connect timeout) instead of waiting on it.
            await _close_master(path)
            stream.note(f"no answer over the open connection within {timeout}s; closed it")
            return Attempt("timed out", detail=f"no SSH answer within {timeout}s (connect timeout)")
        except OSError as exc:
            stream.note(f"connection lost: {exc}")
            return Attempt("unreachable", detail="the shared connection failed", reached=True)
        if status is None:
            return Attempt("unreachable", detail="connection lost", reached=True)
        return Attempt.finished(status)

    async def _options(
        self, step: Broadcast, index: int, path: Path
    ) -> ssh_mux.SessionOptions | None:
        """`ssh -G` for the first worker that gets here, shared by the step's other workers
        (they share xcli's options; per-host ssh_config blocks that set SendEnv, SetEnv or
        ForwardAgent differently for some workers of one slice are not told apart)."""
        key = id(step)
        if key not in self._session or self._session[key][0] is not step:
            argv = step.workers[index].argv
            self._session[key] = (step, asyncio.ensure_future(ssh_mux.probe_options(argv, path)))
        try:
            return await asyncio.shield(self._session[key][1])
        except Exception:
            return None

    def connected(self, step: Broadcast, index: int) -> bool:
        """Whether this worker's session is open: ssh has read the newline written to its
        stdin (it reads stdin only once the session channel is open), or, with reuse, the
        worker's master socket exists (OpenSSH creates it once it has logged in)."""
        proc = self._running.get((id(step), index))
        if proc is not None and proc.stdin is not None and _pipe_drained(proc.stdin):
            return True
        if step.settings is None:
            return False
        path = control_path(step.settings, step.targets[index])
        return path is not None and path.exists()

    def spare_fds(self, count: int) -> None:
        """Nothing to bound: reusable masters are processes of their own, holding no
        descriptor of this one."""

    async def aclose(self) -> None:
        """Reusable masters (ControlPersist) outlive the run on purpose."""
        for _step, task in self._session.values():
            task.cancel()
        self._session.clear()


def _pipe_drained(writer: asyncio.StreamWriter) -> bool:
    """No byte left in the pipe: FIONREAD on a pipe's write end counts what the reader has not
    read yet (Linux; elsewhere the ioctl fails and this says False)."""
    import fcntl
    import struct
    import termios

    pipe = writer.get_extra_info("pipe")
    if pipe is None or writer.transport.get_write_buffer_size():
        return False
    try:
        raw = fcntl.ioctl(pipe.fileno(), termios.FIONREAD, b"\0\0\0\0")
    except (OSError, ValueError):
        return False
    pending: int = struct.unpack("i", raw)[0]
    return pending == 0


async def _close_master(path: Path) -> None:
    """`ssh -O exit` on one ControlMaster socket (the master answers it locally)."""
    proc = await process.spawn(
        ["ssh", "-F", "/dev/null", "-o", f"ControlPath={path}", "-O", "exit", "xcli-master"]
    )
    try:
        await within(proc.communicate(), GRACE)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """Closing ssh's stdin sends EOF down the channel, so the remote wrapper stops the command;
    SIGTERM then makes ssh close its channel (the remote side sees EOF as well if the first
    message is lost); SIGKILL if it does not exit in time."""
    if proc.stdin is not None:
        proc.stdin.close()
    try:
        proc.send_signal(signal.SIGTERM)
        await within(proc.wait(), GRACE)
    except ProcessLookupError:
        pass
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
    # Read its pipes to the end while the loop still runs: the transport closes only once
    # both reach EOF, and one left open is closed by the garbage collector after
    # asyncio.run() has closed the loop ("Exception ignored ... Event loop is closed" on
    # Ctrl-C). The output is already in the log up to here; the rest is dropped.
    # If something else holds them (a process ssh started that outlives it), close them.
    try:
        with contextlib.suppress(asyncio.TimeoutError, OSError):
            await within(_drain(proc), GRACE)
    finally:  # also when the run cancels this cleanup again (pool._cancel_all)
        transport = getattr(proc, "_transport", None)  # asyncio.subprocess.Process has no
        if transport is not None:  # public handle on it; closing it twice is harmless
            transport.close()


async def _drain(proc: asyncio.subprocess.Process) -> None:
    for reader in (proc.stdout, proc.stderr):
        if reader is not None:
            while await reader.read(65536):
                pass


_UNREACHABLE = (
    "connection refused",
    "no route to host",
    "network is unreachable",
    "connection reset",
    "connection closed",
    "kex_exchange_identification",
    "broken pipe",
    "could not resolve hostname",
)


def classify(code: int, saw_stdout: bool, stderr: bytes, target: Target, s: SshSettings) -> Attempt:
    """Exit status + stderr of one ssh run -> outcome. Only OpenSSH's own failures (255 before
    any output) count as connection problems; anything else is the remote command's status."""
    if code != 255 or saw_stdout:
        return Attempt.finished(code if code >= 0 else 128 - code)
    text = stderr.decode(errors="replace")
    low = text.lower()
    if "remote host identification has changed" in low:
        name = f"[{target.host}]:{target.port}" if target.port != 22 else target.host
        return Attempt(
            "host key",
            detail=f"the key changed; if the VM was recreated, forget the old one with "
            f"ssh-keygen -R '{name}' -f {s.known_hosts}",
        )
    if "host key verification failed" in low:
        return Attempt("host key", detail=f"no key pinned for it in {s.known_hosts}")
    if "permission denied" in low or "too many authentication failures" in low:
        return Attempt("auth", detail=_last_line(text), retryable=True)
    if "timed out" in low:
        return Attempt(
            "timed out", detail=f"no SSH answer within {s.connect_timeout}s (connect timeout)"
        )
    for marker in _UNREACHABLE:
        if marker in low:
            return Attempt(
                "unreachable", detail=marker, retryable=marker != "could not resolve hostname"
            )
    # 255 with no OpenSSH message: the remote command itself exited 255.
    return Attempt("exit", 255, reached=True)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:160] if lines else ""


def control_dir() -> Path:
    """Where reusable connections' sockets live: under the xcli state dir when that path is
    short enough for a socket address, else in a folder of the temp dir named after this user
    and that state dir (two state dirs never share connections)."""
    preferred = paths.state_dir() / "cm"
    if len(str(preferred)) <= MAX_CONTROL_DIR:
        return preferred
    tag = hashlib.sha256(str(paths.state_dir().resolve()).encode()).hexdigest()[:10]
    return Path(tempfile.gettempdir()) / f"xcli-cm-{os.getuid()}-{tag}"


def ensure_control_dir(folder: Path) -> None:
    """Create it private to this user; refuse one that someone else owns or can write."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        from xcli.errors import UserError

        raise UserError(
            f"{folder} is not private to you, so xcli will not keep SSH sockets in it",
            hint="remove it, or run with --no-reuse",
        )


def close_masters(step: Broadcast) -> None:
    """Ask every reusable connection (ControlMaster) of these workers to exit."""
    settings = step.settings
    if settings is None or settings.control_dir is None:
        return
    for worker in step.workers:
        argv = list(worker.argv)
        if argv[0] != "ssh":
            continue
        # Reuse the worker's own options (port, user, ControlPath), swapping the action.
        cut = argv.index("--")
        options = [a for a in argv[1:cut] if a != "-T"]
        host = argv[cut + 1]
        process.run(["ssh", *options, "-O", "exit", "--", host], timeout=10)
