"""A WebSocket server on 127.0.0.1 that speaks the kubelet's exec protocol
(v4.channel.k8s.io: stdout on channel 1, stderr on 2, one metav1.Status JSON on channel 3;
kubernetes/kubernetes pkg/kubelet/cri/streaming/remotecommand/websocket.go and
staging/src/k8s.io/apimachinery/pkg/util/remotecommand/constants.go) and runs each request's
`command=` argv as a local process, as the kubelet runs it in the container, unless `answer`
gives the pod's output instead."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, BytesMessage, CloseConnection, Request

# (pod, argv) -> (exit code, stdout, stderr)
Answer = Callable[[str, list[str]], tuple[int, bytes, bytes]]


def run_locally(pod: str, argv: list[str]) -> tuple[int, bytes, bytes]:
    done = subprocess.run(argv, capture_output=True, timeout=60, check=False)
    return done.returncode, done.stdout, done.stderr


def status(code: int) -> bytes:
    if code == 0:
        return json.dumps({"metadata": {}, "status": "Success"}).encode()
    return json.dumps({
        "metadata": {}, "status": "Failure",
        "message": f"command terminated with non-zero exit code: exit status {code}",
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
    }).encode()  # fmt: skip


@dataclass
class ExecServer:
    answer: Answer = run_locally
    requests: list[str] = field(default_factory=list)  # each request's path and query
    headers: list[dict[str, str]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    open_now: int = 0
    most_open: int = 0

    def serve(self, server: socket.socket) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        try:
            self._exec(conn)
        except OSError:
            pass
        finally:
            conn.close()

    def _exec(self, conn: socket.socket) -> None:
        ws = WSConnection(ConnectionType.SERVER)
        request = None
        while request is None:
            ws.receive_data(conn.recv(65536))
            request = next((e for e in ws.events() if isinstance(e, Request)), None)
        assert "v4.channel.k8s.io" in request.subprotocols
        self.requests.append(request.target)
        self.headers.append({k.decode(): v.decode() for k, v in request.extra_headers})
        conn.sendall(ws.send(AcceptConnection(subprotocol="v4.channel.k8s.io")))
        url = urlsplit(request.target)
        pod = url.path.split("/")[-2]
        argv = parse_qs(url.query)["command"]
        # counted while the command runs: after the client's stream is open and before its exit
        # status is sent, so a client that has moved on is never still counted (counting the
        # whole connection saw window + 1 when this thread closed after the client's next open)
        with self.lock:
            self.open_now += 1
            self.most_open = max(self.most_open, self.open_now)
        try:
            code, out, err = self.answer(pod, argv)
        finally:
            with self.lock:
                self.open_now -= 1
        for channel, data in ((1, out), (2, err)):
            if data:
                conn.sendall(ws.send(BytesMessage(data=bytes([channel]) + data)))
        conn.sendall(ws.send(BytesMessage(data=b"\x03" + status(code))))
        conn.sendall(ws.send(CloseConnection(code=1000)))


@pytest.fixture
def exec_server() -> Iterator[tuple[str, ExecServer]]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(0.2)
    fake = ExecServer()
    thread = threading.Thread(target=fake.serve, args=(listener,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", fake
    fake.stop.set()
    thread.join(timeout=2)
    listener.close()
