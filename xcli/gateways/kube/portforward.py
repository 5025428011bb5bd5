"""Forwarding a local port to a pod's port through the Kubernetes API (no kubectl).

The protocol, from the kubelet's side of it (kubernetes/kubernetes commit 0d1821e3,
pkg/kubelet/cri/streaming/portforward/websocket.go):
- `GET /api/v1/namespaces/NS/pods/POD/portforward?ports=P`, upgraded to a WebSocket with the
  subprotocol `v4.channel.k8s.io` (`"v4." + wsstream.ChannelWebSocketProtocol`);
- each binary message starts with a channel byte: for the first port, channel 0 carries the
  data both ways and channel 1 the server's errors (`dataChannel = iota; errorChannel`);
- the first message on each of the two channels is the port, an unsigned 16-bit little-endian
  integer (`binary.LittleEndian.PutUint16`); an error is written as text on channel 1;
- one WebSocket forwards one TCP stream: each local connection opens its own.

The WebSocket framing is wsproto's (a sans-IO library); the connection authenticates as every
other request of xcli to the cluster (gateways/kube_auth.py: the cluster CA, a bearer token).
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from xcli.errors import CloudError, UserError

if TYPE_CHECKING:
    from wsproto import WSConnection

SUBPROTOCOL = "v4.channel.k8s.io"
DATA, ERROR = 0, 1
_TICK = 0.2  # seconds between looks at the stop event


@dataclass(frozen=True)
class Target:
    """Where the tunnel goes: the API server, how to trust and authenticate to it, the pod."""

    server: str  # https://host[:port] (http:// only for a local test server)
    ssl_context: ssl.SSLContext | None
    token: Callable[[], str] | None
    namespace: str
    pod: str
    port: int

    @property
    def path(self) -> str:
        return f"/api/v1/namespaces/{self.namespace}/pods/{self.pod}/portforward?ports={self.port}"


class Tunnel:
    """One WebSocket to the pod's port: bytes in, bytes out."""

    def __init__(self, target: Target, timeout: float = 30.0) -> None:
        from wsproto import ConnectionType, WSConnection
        from wsproto.events import Request

        self.target = target
        url = urlsplit(target.server)
        port = url.port or (443 if url.scheme == "https" else 80)
        host = url.hostname or ""
        try:
            raw = socket.create_connection((host, port), timeout=timeout)
            if url.scheme == "https":
                ctx = target.ssl_context or ssl.create_default_context()
                raw = ctx.wrap_socket(raw, server_hostname=host)
        except OSError as exc:
            raise _unreachable(target, str(exc)) from None
        self.sock: socket.socket = raw
        self.ws: WSConnection = WSConnection(ConnectionType.CLIENT)
        headers = [(b"authorization", f"Bearer {target.token()}".encode())] if target.token else []
        self.sock.sendall(
            self.ws.send(
                Request(
                    host=url.netloc,
                    target=target.path,
                    subprotocols=[SUBPROTOCOL],
                    extra_headers=headers,
                )
            )
        )
        self._seen: set[int] = set()  # channels whose port prefix has arrived
        self._partial = b""
        self._early: bytes | None = None
        self.closed = False
        self._handshake()

    def _handshake(self) -> None:
        from wsproto.events import AcceptConnection, RejectConnection, RejectData

        status, body = 0, b""
        while True:
            data = self._read()
            if not data:
                raise _unreachable(self.target, "the server closed the connection")
            self.ws.receive_data(data)
            for event in self.ws.events():
                if isinstance(event, AcceptConnection):
                    # messages that came with the answer wait for the first receive()
                    self._early = self._drain()
                    return
                if isinstance(event, RejectConnection):
                    status = event.status_code
                    if not event.has_body:
                        raise _refused(self.target, status, "")
                if isinstance(event, RejectData):
                    body += event.data
                    if event.body_finished:
                        raise _refused(self.target, status, body.decode(errors="replace"))

    def _read(self) -> bytes:
        try:
            return self.sock.recv(65536)
        except TimeoutError:
            raise
        except OSError as exc:
            raise _unreachable(self.target, str(exc)) from None

    def fileno(self) -> int:
        return self.sock.fileno()

    def pending(self) -> bool:
        """Something to receive that select() cannot see: messages that came with the
        handshake, or bytes already read from the socket (TLS)."""
        if self._early is not None:
            return True
        return isinstance(self.sock, ssl.SSLSocket) and self.sock.pending() > 0

    def send(self, data: bytes) -> None:
        from wsproto.events import BytesMessage

        self.sock.sendall(self.ws.send(BytesMessage(data=bytes([DATA]) + data)))

    def receive(self) -> bytes | None:
        """The pod's bytes read now (b"" if only framing arrived); None once the stream ended.
        A message on the error channel raises CloudError with the kubelet's text."""
        if self._early is not None:
            out, self._early = self._early, None
        else:
            data = self._read()
            self.ws.receive_data(data or None)  # None: the server closed the connection
            if not data:
                self.closed = True
            out = self._drain()
        return None if self.closed and not out else out

    def _drain(self) -> bytes:
        """The data of the messages wsproto has parsed; the error channel raises."""
        from wsproto.events import BytesMessage, CloseConnection, Ping

        out = b""
        for event in self.ws.events():
            if isinstance(event, Ping):
                self.sock.sendall(self.ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                self.closed = True
            elif isinstance(event, BytesMessage):
                self._partial += bytes(event.data)
                if event.message_finished:
                    out += self._message(self._partial)
                    self._partial = b""
        return out

    def _message(self, message: bytes) -> bytes:
        if not message:
            return b""
        channel, payload = message[0], message[1:]
        if channel not in self._seen:  # the port, little-endian, first on each channel
            self._seen.add(channel)
            payload = payload[2:]
        if channel == ERROR and payload:
            raise CloudError(
                f"port-forward to pod {self.target.pod}: {payload.decode(errors='replace')}",
                hint=f"check the pod serves port {self.target.port}; "
                f"xcli workload logs shows its log",
            )
        return payload if channel == DATA else b""

    def close(self) -> None:
        from wsproto.events import CloseConnection
        from wsproto.utilities import LocalProtocolError

        try:
            if not self.closed:
                self.sock.sendall(self.ws.send(CloseConnection(code=1000)))
        except (OSError, LocalProtocolError):  # the peer may be gone already
            pass
        self.closed = True
        self.sock.close()


def probe(target: Target, settle: float = 1.0) -> str | None:
    """None if the pod's port accepts a connection through the API, else why not.

    The kubelet writes the port prefixes, then dials the pod's port and writes an error on
    channel 1 if that fails; no error within `settle` seconds means the port serves."""
    try:
        tunnel = Tunnel(target)
    except CloudError as exc:
        return exc.message
    try:
        tunnel.sock.settimeout(settle)
        while not tunnel.closed:
            try:
                if tunnel.receive() is None:
                    return "the stream closed"
            except TimeoutError:
                return None
    except CloudError as exc:
        return exc.message
    finally:
        tunnel.close()
    return "the stream closed"


def relay(local: socket.socket, tunnel: Tunnel, stop: threading.Event) -> None:
    """Copy bytes both ways until either side ends or `stop` is set."""
    try:
        while not stop.is_set():
            ready = [tunnel.fileno()] if tunnel.pending() else []
            if not ready:
                ready, _, _ = select.select([local.fileno(), tunnel.fileno()], [], [], _TICK)
            if local.fileno() in ready:
                data = local.recv(65536)
                if not data:
                    return
                tunnel.send(data)
            if tunnel.fileno() in ready:
                got = tunnel.receive()
                if got is None:
                    return
                if got:
                    local.sendall(got)
    except (OSError, CloudError):
        return
    finally:
        tunnel.close()
        local.close()


def listen(local_port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:`local_port` (0: any free port); a port in use is one
    error, said before anything is read from the cluster."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", local_port))
    except OSError as exc:
        listener.close()
        raise UserError(
            f"cannot listen on 127.0.0.1:{local_port}: {exc.strerror}",
            hint="choose another --local-port, or 0 for any free port",
        ) from None
    listener.listen(8)
    listener.settimeout(_TICK)
    return listener


class Forwarder:
    """Listens on 127.0.0.1:`local_port` (0: any free port); each connection gets a tunnel."""

    def __init__(
        self,
        target: Target,
        local_port: int = 0,
        open_tunnel: Callable[[Target], Any] = Tunnel,
        warn: Callable[[str], None] | None = None,
        listener: socket.socket | None = None,
    ) -> None:
        self.target = target
        self._open = open_tunnel
        self._warn = warn  # hears why a connection could not be forwarded
        self.listener = listener if listener is not None else listen(local_port)
        self.port: int = self.listener.getsockname()[1]

    def serve(self, stop: threading.Event) -> None:
        """Accept and relay until `stop` is set; then close every connection."""
        threads: list[threading.Thread] = []
        try:
            while not stop.is_set():
                try:
                    local, _ = self.listener.accept()
                except TimeoutError:
                    continue
                try:
                    tunnel = self._open(self.target)
                except CloudError as exc:
                    local.close()
                    if self._warn is not None:
                        self._warn(f"{exc.message} (connection closed)")
                    continue
                thread = threading.Thread(target=relay, args=(local, tunnel, stop), daemon=True)
                thread.start()
                threads.append(thread)
        finally:
            self.listener.close()
            stop.set()
            for thread in threads:
                thread.join(timeout=2 * _TICK + 1)


def _unreachable(target: Target, why: str) -> CloudError:
    return CloudError(
        f"port-forward: cannot reach the cluster at {target.server}: {why}",
        hint="check the cluster is running and this machine can reach its endpoint",
        status="Unavailable",
    )


def _refused(target: Target, status: int, body: str) -> CloudError:
    return CloudError(
        f"port-forward to pod {target.pod} refused by the API server ({status}): "
        f"{body.strip()[:200]}",
        hint="check your access to pods/portforward in the namespace "
        f"{target.namespace} (RBAC: create on pods/portforward)",
    )
