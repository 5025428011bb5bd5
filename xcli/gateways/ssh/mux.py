"""A command over an open OpenSSH connection without starting `ssh`: OpenSSH's connection-sharing
protocol (version 4, described in PROTOCOL.mux of OpenSSH's sources), spoken to the socket of
the ControlMaster that an earlier `ssh` left running.

Why: a reused connection skips the handshake, but every `ssh` that rides on it is still a
process to start (several ms of CPU; at 256 workers, most of a broadcast's cost). What the
passenger `ssh` would do is small, and this module does the same: exchange hellos, ask for a new
session with the command, pass three pipe ends (stdin, stdout, stderr) over the socket, then
read the session's output from the pipes and its exit status from the socket. The master runs
the session on its connection exactly as for `ssh`.

The session flags that the passenger `ssh` takes from the user's ssh_config (ForwardAgent,
SendEnv, SetEnv) are read once per broadcast with `ssh -G` (see `session_options`); anything this
path does not carry (a terminal, X11, a non-default session type, another ControlPath) makes the
caller start `ssh` as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import os
import socket
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from xcli.gateways import process
from xcli.gateways.ssh.waits import within

MUX_MSG_HELLO = 0x00000001
MUX_C_NEW_SESSION = 0x10000002
MUX_S_PERMISSION_DENIED = 0x80000002
MUX_S_FAILURE = 0x80000003
MUX_S_EXIT_MESSAGE = 0x80000004
MUX_S_SESSION_OPENED = 0x80000006
MUX_S_TTY_ALLOC_FAIL = 0x80000008
VERSION = 4
NO_ESCAPE = 0xFFFFFFFF
MAX_PACKET = 256 * 1024


class NoSession(Exception):
    """No session was opened (no master, a stale socket, a refusal): nothing ran on the worker,
    so the caller starts `ssh`, which also cleans up a stale socket."""


class NoAnswer(Exception):
    """The master took the request but the worker did not open the session in time (a frozen
    VM behind a connection that is still up): the master only notices after its keepalives,
    tens of seconds later."""


@dataclass(frozen=True)
class SessionOptions:
    """What the passenger ssh would send along with the command."""

    env: tuple[str, ...] = ()  # NAME=VALUE, from SendEnv patterns and SetEnv
    forward_agent: bool = False


def session_options(
    ssh_g: str, control_path: Path, environ: dict[str, str]
) -> SessionOptions | None:
    """From `ssh -G` output for a worker: the session flags, or None when this path cannot
    stand in for ssh (another ControlPath, a terminal, X11, a subsystem or no session)."""
    values: dict[str, list[str]] = {}
    for line in ssh_g.splitlines():
        key, _, value = line.partition(" ")
        values.setdefault(key.lower(), []).append(value)

    def one(key: str, default: str = "") -> str:
        return values.get(key, [default])[-1]

    if one("controlpath") != str(control_path):
        return None
    if one("requesttty", "false") not in ("false", "no", "auto"):
        return None
    if one("forwardx11", "no") != "no" or one("sessiontype", "default") != "default":
        return None
    patterns = values.get("sendenv", [])
    env = [
        f"{name}={value}"
        for name, value in environ.items()
        if any(fnmatch.fnmatchcase(name, p) for p in patterns)
    ]
    env += values.get("setenv", [])
    return SessionOptions(env=tuple(env), forward_agent=one("forwardagent", "no") != "no")


def _string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _packet(*fields: bytes) -> bytes:
    body = b"".join(fields)
    return struct.pack(">I", len(body)) + body


def _u32(value: int) -> bytes:
    return struct.pack(">I", value)


class _Reader:
    """Length-prefixed packets from a non-blocking socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = bytearray()

    async def _fill(self, size: int) -> bool:
        loop = asyncio.get_running_loop()
        while len(self.buf) < size:
            chunk = await loop.sock_recv(self.sock, 65536)
            if not chunk:
                return False
            self.buf += chunk
        return True

    async def packet(self) -> tuple[int, bytes] | None:
        """(type, body after the type), or None at end of stream."""
        if not await self._fill(4):
            return None
        (length,) = struct.unpack(">I", self.buf[:4])
        if not 4 <= length <= MAX_PACKET:
            raise ConnectionError(f"bad packet length {length} from the master")
        if not await self._fill(4 + length):
            return None
        body = bytes(self.buf[4 : 4 + length])
        del self.buf[: 4 + length]
        return struct.unpack(">I", body[:4])[0], body[4:]


def _reason(body: bytes) -> str:
    """The reason string of MUX_S_FAILURE / MUX_S_PERMISSION_DENIED (after the request id)."""
    if len(body) < 8:
        return "no reason given"
    (size,) = struct.unpack(">I", body[4:8])
    return body[8 : 8 + size].decode(errors="replace") or "no reason given"


async def _send_fd(sock: socket.socket, fd: int) -> None:
    """One byte carrying one descriptor per message, as the master reads them."""
    while True:
        try:
            socket.send_fds(sock, [b"\0"], [fd])
            return
        except BlockingIOError:
            await asyncio.sleep(0.001)


async def _connect(path: Path) -> tuple[socket.socket, _Reader]:
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        await loop.sock_connect(sock, str(path))
    except OSError as exc:
        sock.close()
        raise NoSession(f"no master at {path}: {exc.strerror or exc}") from None
    return sock, _Reader(sock)


async def run(
    path: Path,
    command: str,
    options: SessionOptions,
    feed: Callable[[bytes, bool], None],
    open_timeout: float | None = None,
) -> int | None:
    """Run `command` through the master listening at `path`. Output goes to feed(chunk,
    is_stderr) as it arrives. Returns the exit status, or None if the session was opened but the
    master went away without one (the connection was lost). Raises NoSession when no session
    could be opened (nothing ran). Cancelling it closes the session's stdin (the remote prefix
    then stops the command) and then the control socket (the master closes the channel).
    Raises NoAnswer when the session is not open `open_timeout` seconds after the request."""
    loop = asyncio.get_running_loop()
    sock, reader = await _connect(path)
    fds: list[int] = []
    stdin_w: int | None = None
    transports: list[asyncio.BaseTransport] = []
    try:
        try:
            stdin_w = await within(_open_session(sock, reader, command, options, fds), open_timeout)
        except asyncio.TimeoutError:
            raise NoAnswer(
                f"no session within {open_timeout:g}s over the open connection"
            ) from None
        out_r, err_r = fds

        async def pump(fd: int, err: bool) -> None:
            stream = asyncio.StreamReader()
            pipe = os.fdopen(fd, "rb", buffering=0)
            fds.remove(fd)
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(stream), pipe
            )
            transports.append(transport)
            while chunk := await stream.read(65536):
                feed(chunk, err)

        async def exit_status() -> int | None:
            status = None
            while (packet := await reader.packet()) is not None:
                if packet[0] == MUX_S_EXIT_MESSAGE and len(packet[1]) >= 8:
                    status = struct.unpack(">I", packet[1][4:8])[0]
            return status

        _o, _e, status = await asyncio.gather(pump(out_r, False), pump(err_r, True), exit_status())
        return status
    finally:
        if stdin_w is not None:
            os.close(stdin_w)  # first: EOF reaches the remote prefix while the channel is open
        sock.close()
        for fd in fds:
            os.close(fd)
        for transport in transports:
            transport.close()


async def _open_session(
    sock: socket.socket, reader: _Reader, command: str, options: SessionOptions, fds: list[int]
) -> int:
    """Hello, the session request and its three pipes; returns the write end of the session's
    stdin once the master says the session is open. `fds` ends up holding the read ends of
    stdout and stderr (on failure, whatever is left to close)."""
    loop = asyncio.get_running_loop()
    await loop.sock_sendall(sock, _packet(_u32(MUX_MSG_HELLO), _u32(VERSION)))
    hello = await reader.packet()
    if hello is None or hello[0] != MUX_MSG_HELLO or hello[1][:4] != _u32(VERSION):
        raise NoSession("the master does not speak multiplexing protocol version 4")
    request = [
        _u32(MUX_C_NEW_SESSION),
        _u32(1),  # request id
        _string(b""),  # reserved
        _u32(0),  # no terminal
        _u32(0),  # no X11
        _u32(1 if options.forward_agent else 0),
        _u32(0),  # not a subsystem
        _u32(NO_ESCAPE),
        _string(b""),  # terminal type
        _string(command.encode()),
        *(_string(e.encode()) for e in options.env),
    ]
    await loop.sock_sendall(sock, _packet(*request))
    stdin_r, stdin_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    fds[:] = [stdin_r, stdin_w, out_r, out_w, err_r, err_w]
    for fd in (stdin_r, out_w, err_w):
        await _send_fd(sock, fd)
    for fd in (stdin_r, out_w, err_w):  # the master holds its own copies now
        os.close(fd)
        fds.remove(fd)
    reply = await reader.packet()
    if reply is None:
        raise NoSession("the master closed the connection")
    if reply[0] != MUX_S_SESSION_OPENED:
        raise NoSession(f"the master refused a session: {_reason(reply[1])}")
    fds.remove(stdin_w)  # the caller owns it now
    return stdin_w


async def probe_options(argv: Sequence[str], control_path: Path) -> SessionOptions | None:
    """`ssh -G` with a worker's own options (its ssh argv without the command): what the
    passenger ssh would send, or None if this path cannot stand in for it."""
    cut = list(argv).index("--")
    proc = await process.spawn(["ssh", "-G", *argv[1:cut], "--", argv[cut + 1]])
    out, _ = await proc.communicate()
    if proc.returncode != 0:
        return None
    with contextlib.suppress(UnicodeDecodeError):
        return session_options(out.decode(), control_path, dict(os.environ))
    return None
