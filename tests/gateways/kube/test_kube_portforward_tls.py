"""The port-forward over TLS as a cluster serves it: the WebSocket goes through
KubeApi.stream_target, so the server is checked against the cluster's CA (base64 PEM, as GKE
returns it) and the bearer token is the cluster's; a server the CA did not sign is refused."""

from __future__ import annotations

import base64
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.kube.test_kube_portforward import FakeApiServer, _echo, _listen
from tests.gateways.kube.test_kube_tls import make_cert, pytestmark
from xcli.errors import CloudError
from xcli.gateways.kube.api import KubeApi
from xcli.gateways.kube.portforward import Forwarder, Tunnel

__all__ = ["pytestmark"]  # needs the openssl command, as test_kube_tls


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, str, FakeApiServer]]:
    cert, key = make_cert(tmp_path, "server")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    stop = threading.Event()
    echo, raw = _listen(), _listen()
    server = context.wrap_socket(raw, server_side=True)
    fake = FakeApiServer(echo.getsockname()[1], stop=stop)
    threads = [
        threading.Thread(target=_echo, args=(echo, stop), daemon=True),
        threading.Thread(target=fake.serve, args=(server,), daemon=True),
    ]
    for t in threads:
        t.start()
    ca = base64.b64encode(cert.read_bytes()).decode()
    yield f"127.0.0.1:{server.getsockname()[1]}", ca, fake
    stop.set()
    for t in threads:
        t.join(timeout=2)
    echo.close()
    server.close()


def test_the_forward_trusts_the_cluster_ca_and_sends_its_token(
    tls_server: tuple[str, str, FakeApiServer],
) -> None:
    endpoint, ca, fake = tls_server
    api = KubeApi(endpoint, ca, lambda: "tok-tls")
    target = api.stream_target("default", "nb-1-pathways-head-0-0-x", 29000)
    assert target.server == f"https://{endpoint}"
    forwarder = Forwarder(target)
    stop = threading.Event()
    serving = threading.Thread(target=forwarder.serve, args=(stop,))
    serving.start()
    try:
        with socket.create_connection(("127.0.0.1", forwarder.port), timeout=5) as client:
            client.sendall(b"over tls")
            assert client.recv(100) == b"over tls"
    finally:
        stop.set()
        serving.join(timeout=5)
    (request,) = fake.requests
    assert (b"authorization", b"Bearer tok-tls") in request.extra_headers


def test_a_server_the_ca_did_not_sign_is_refused(
    tls_server: tuple[str, str, FakeApiServer], tmp_path: Path
) -> None:
    endpoint, _, fake = tls_server
    other, _ = make_cert(tmp_path, "other")
    api = KubeApi(endpoint, base64.b64encode(other.read_bytes()).decode(), lambda: "tok")
    with pytest.raises(CloudError, match="cannot reach the cluster"):
        Tunnel(api.stream_target("default", "p", 29000))
    assert fake.requests == []
