"""The real connection path: HTTPS on loopback, the server checked against the cluster's CA."""

from __future__ import annotations

import base64
import json
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from xcli.errors import CloudError
from xcli.gateways.kube.api import KubeApi

pytestmark = pytest.mark.skipif(not shutil.which("openssl"), reason="needs the openssl command")


def make_cert(folder: Path, name: str) -> tuple[Path, Path]:
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    argv = [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
    ]
    argv += ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
    argv += ["-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        argv,
        check=True,
        capture_output=True,
    )
    return cert, key


class Handler(BaseHTTPRequestHandler):
    seen: list[tuple[str, str]] = []

    def do_GET(self) -> None:
        Handler.seen.append((self.path, self.headers.get("Authorization", "")))
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    cert, key = make_cert(tmp_path, "server")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{httpd.server_address[1]}", cert
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_https_with_the_cluster_ca_and_a_bearer_token(server: tuple[str, Path]) -> None:
    endpoint, cert = server
    ca = base64.b64encode(cert.read_bytes()).decode()
    api = KubeApi(endpoint, ca, lambda: "tok-1")
    got = api.get("v1", "ConfigMap", "x", "default")
    assert got == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    assert Handler.seen[-1] == ("/api/v1/namespaces/default/configmaps/x", "Bearer tok-1")


def test_a_server_the_ca_did_not_sign_is_refused(server: tuple[str, Path], tmp_path: Path) -> None:
    endpoint, _ = server
    other, _ = make_cert(tmp_path, "other")
    api = KubeApi(endpoint, base64.b64encode(other.read_bytes()).decode(), lambda: "tok")
    with pytest.raises(CloudError, match="cannot reach the cluster"):
        api.get("v1", "ConfigMap", "x", "default")
