"""The port-forward gateway against a WebSocket server on 127.0.0.1 that speaks the kubelet's
v4.channel.k8s.io framing (kubernetes/kubernetes pkg/kubelet/cri/streaming/portforward/
websocket.go: channel byte, then the port little-endian as the first message on channels 0
and 1; errors as text on channel 1) and relays channel 0 to a local TCP echo server."""

from __future__ import annotations

import select
import socket
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, BytesMessage, CloseConnection, Request

from xcli.gateways.kube.portforward import Forwarder, Target, Tunnel, probe


def _listen() -> socket.socket:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    s.settimeout(0.2)
    return s


def _echo(server: socket.socket, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        with conn:
            while data := conn.recv(4096):
                conn.sendall(data)


@dataclass
class FakeApiServer:
    """Accepts port-forward WebSockets; relays to `backend` (or refuses with an error)."""

    backend: int | None
    requests: list[Request] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def serve(self, server: socket.socket) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:  # a timeout, or a TLS client that refused the server
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        try:
            self._forward(conn)
        except OSError:  # the client went away first
            conn.close()

    def _forward(self, conn: socket.socket) -> None:
        ws = WSConnection(ConnectionType.SERVER)
        request = None
        while request is None:
            ws.receive_data(conn.recv(4096))
            request = next((e for e in ws.events() if isinstance(e, Request)), None)
        self.requests.append(request)
        conn.sendall(ws.send(AcceptConnection(subprotocol="v4.channel.k8s.io")))
        port = struct.pack("<H", int(request.target.rsplit("=", 1)[1]))
        for channel in (0, 1):
            conn.sendall(ws.send(BytesMessage(data=bytes([channel]) + port)))
        if self.backend is None:
            message = b"\x01error forwarding port 29000: connection refused"
            conn.sendall(ws.send(BytesMessage(data=message)))
            conn.sendall(ws.send(CloseConnection(code=1000)))
            conn.close()
            return
        pod = socket.create_connection(("127.0.0.1", self.backend))
        self._relay(conn, ws, pod)

    def _relay(self, conn: socket.socket, ws: WSConnection, pod: socket.socket) -> None:
        message = b""  # wsproto hands a large message over in parts
        with conn, pod:
            while not self.stop.is_set():
                ready, _, _ = select.select([conn, pod], [], [], 0.2)
                if pod in ready:
                    data = pod.recv(4096)
                    conn.sendall(ws.send(BytesMessage(data=b"\x00" + data)))
                if conn in ready:
                    data = conn.recv(4096)
                    if not data:
                        return
                    ws.receive_data(data)
                    for event in ws.events():
                        if isinstance(event, CloseConnection):
                            return
                        if isinstance(event, BytesMessage):
                            message += bytes(event.data)
                            if event.message_finished:
                                assert message[0] == 0  # the data channel
                                pod.sendall(message[1:])
                                message = b""


@pytest.fixture
def servers() -> Iterator[tuple[Target, FakeApiServer, Target]]:
    stop = threading.Event()
    echo, api, broken = _listen(), _listen(), _listen()
    fake = FakeApiServer(echo.getsockname()[1], stop=stop)
    refusing = FakeApiServer(None, stop=stop)
    threads = [
        threading.Thread(target=_echo, args=(echo, stop), daemon=True),
        threading.Thread(target=fake.serve, args=(api,), daemon=True),
        threading.Thread(target=refusing.serve, args=(broken,), daemon=True),
    ]
    for t in threads:
        t.start()

    def target(s: socket.socket) -> Target:
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
        return Target(url, None, lambda: "tok-1", "default", "nb-1-pathways-head-0-0-x", 29000)

    yield target(api), fake, target(broken)
    stop.set()
    for t in threads:
        t.join(timeout=2)
    for s in (echo, api, broken):
        s.close()


def test_the_request_is_the_kubelet_protocol(servers: tuple[Target, FakeApiServer, Target]) -> None:
    target, fake, _ = servers
    tunnel = Tunnel(target)
    tunnel.close()
    (request,) = fake.requests
    assert request.target == (
        "/api/v1/namespaces/default/pods/nb-1-pathways-head-0-0-x/portforward?ports=29000"
    )
    assert request.subprotocols == ["v4.channel.k8s.io"]
    assert (b"authorization", b"Bearer tok-1") in request.extra_headers


def test_bytes_flow_both_ways_and_stop_ends_the_forward(
    servers: tuple[Target, FakeApiServer, Target],
) -> None:
    target, _, _ = servers
    assert probe(target, settle=0.3) is None
    forwarder = Forwarder(target)
    stop = threading.Event()
    serving = threading.Thread(target=forwarder.serve, args=(stop,))
    serving.start()
    with socket.create_connection(("127.0.0.1", forwarder.port), timeout=5) as client:
        for payload in (b"hello pathways", bytes(range(256)) * 64):
            client.sendall(payload)
            got = b""
            while len(got) < len(payload):
                got += client.recv(65536)
            assert got == payload
        stop.set()  # what Ctrl-C does
        serving.join(timeout=5)
        assert not serving.is_alive()
        assert client.recv(10) == b""  # the forward closed the local connection
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", forwarder.port), timeout=1)


def test_a_port_that_does_not_serve_is_reported(
    servers: tuple[Target, FakeApiServer, Target],
) -> None:
    _, _, broken = servers
    why = probe(broken, settle=2.0)
    assert why is not None and "connection refused" in why


def test_a_connection_that_cannot_be_forwarded_is_closed_and_said(
    servers: tuple[Target, FakeApiServer, Target],
) -> None:
    _, _, broken = servers
    said: list[str] = []

    def refused(target: Target) -> Tunnel:
        tunnel = Tunnel(target)
        while tunnel.receive() is not None:  # the kubelet's error arrives, then the close
            pass
        return tunnel

    forwarder = Forwarder(broken, open_tunnel=refused, warn=said.append)
    stop = threading.Event()
    serving = threading.Thread(target=forwarder.serve, args=(stop,))
    serving.start()
    try:
        with socket.create_connection(("127.0.0.1", forwarder.port), timeout=5) as client:
            assert client.recv(10) == b""
    finally:
        stop.set()
        serving.join(timeout=5)
    (line,) = said
    assert "connection refused" in line and line.endswith("(connection closed)")
