"""A real OCI registry on loopback for tests: Debian's `docker-registry` (CNCF Distribution
2.8), started per test module with its own config and storage folder.

With `token=True` it challenges every request (`auth: silly`, which accepts any Authorization
header) and a small token service in this process hands out tokens only to callers sending
Basic credentials `oauth2accesstoken:good-token`, as Artifact Registry does with an access
token; without credentials the token service answers 401. `DroppingProxy` sits in front of the
registry and cuts one connection once it has carried `after` bytes of a request body, to test
resuming an upload. `push_base` pushes a small two-platform base image with plain requests
(independent of the code under test).
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import io
import json
import shutil
import socket
import subprocess
import tarfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.sshd import free_ports

GOOD = ("oauth2accesstoken", "good-token")


def registry_binary() -> str | None:
    return shutil.which("docker-registry")


@dataclass
class LocalRegistry:
    folder: Path
    token: bool = False
    jwt: bool = False  # `auth: token` with real JWTs (tests/support/registry_jwt.py)
    port: int = 0
    token_port: int = 0
    process: subprocess.Popen[bytes] | None = None
    token_server: ThreadingHTTPServer | None = None
    token_requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port, self.token_port = free_ports(2)
        self.folder.mkdir(parents=True, exist_ok=True)
        config = {
            "version": 0.1,
            "log": {"level": "error"},
            "storage": {
                "filesystem": {"rootdirectory": str(self.folder / "data")},
                "delete": {"enabled": True},
            },
            "http": {"addr": self.host},
        }
        if self.jwt:
            from tests.support import registry_jwt

            self.signer = registry_jwt.Signer(self.folder)
            realm = f"http://127.0.0.1:{self.token_port}/token"
            config["auth"] = registry_jwt.config(self.signer, realm)
            self._start_token_service()
        elif self.token:
            config["auth"] = {
                "silly": {
                    "realm": f"http://127.0.0.1:{self.token_port}/token",
                    "service": "test-registry",
                }
            }
            self._start_token_service()
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / "config.yml"
        path.write_text(json.dumps(config))  # JSON is YAML
        binary = registry_binary()
        assert binary
        self.process = subprocess.Popen(
            [binary, "serve", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                requests.get(f"http://{self.host}/v2/", timeout=1)
                return
            except requests.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("docker-registry did not start")

    def _start_token_service(self) -> None:
        seen = self.token_requests
        signer = getattr(self, "signer", None)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                auth = self.headers.get("Authorization", "")
                seen.append({"path": self.path, "authorization": auth})
                expected = "Basic " + base64.b64encode(":".join(GOOD).encode()).decode()
                if signer is not None:  # real JWTs: anonymous callers may pull
                    token = signer.answer(self.path, trusted=auth == expected)
                elif auth != expected:
                    self.send_response(401)
                    self.end_headers()
                    return
                else:
                    token = "t0k3n"
                body = json.dumps({"token": token, "expires_in": 300}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.token_server = ThreadingHTTPServer(("127.0.0.1", self.token_port), Handler)
        threading.Thread(target=self.token_server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
        if self.token_server is not None:
            self.token_server.shutdown()


def start_registry(folder: Path, *, token: bool = False, jwt: bool = False) -> LocalRegistry:
    if registry_binary() is None:
        pytest.skip("docker-registry is not installed; scripts/test.sh installs it as root")
    registry = LocalRegistry(folder, token=token, jwt=jwt)
    registry.start()
    return registry


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRegistry]:
    reg = start_registry(tmp_path_factory.mktemp("registry"))
    try:
        yield reg
    finally:
        reg.stop()


@pytest.fixture(scope="module")
def jwt_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRegistry]:
    reg = start_registry(tmp_path_factory.mktemp("jwt-registry"), jwt=True)
    try:
        yield reg
    finally:
        reg.stop()


@pytest.fixture(scope="module")
def token_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRegistry]:
    reg = start_registry(tmp_path_factory.mktemp("token-registry"), token=True)
    try:
        yield reg
    finally:
        reg.stop()


class DroppingProxy:
    """TCP proxy to `port` that closes the first connection carrying more than `after` bytes
    from the client (mid-upload), then forwards everything else untouched."""

    def __init__(self, port: int, after: int) -> None:
        self.target, self.after, self.dropped = port, after, 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._pipe, args=(client,), daemon=True).start()

    def _pipe(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.target))
        threading.Thread(target=self._copy, args=(upstream, client, False), daemon=True).start()
        self._copy(client, upstream, True)

    def _copy(self, src: socket.socket, dst: socket.socket, count: bool) -> None:
        carried = 0
        try:
            while data := src.recv(65536):
                carried += len(data)
                if count and not self.dropped and carried > self.after:
                    self.dropped += 1
                    src.close()
                    dst.close()
                    return
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.close()

    def close(self) -> None:
        self.sock.close()


# --- a base image pushed with plain requests -----------------------------------------------

OCI_INDEX = "application/vnd.oci.image.index.v1+json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _put_blob(host: str, name: str, data: bytes, headers: dict[str, str]) -> str:
    digest = _digest(data)
    resp = requests.post(f"http://{host}/v2/{name}/blobs/uploads/", timeout=10, headers=headers)
    assert resp.status_code == 202, resp.text
    location = resp.headers["Location"]
    sep = "&" if "?" in location else "?"
    url = location if location.startswith("http") else f"http://{host}{location}"
    resp = requests.put(
        f"{url}{sep}digest={digest}",
        data=data,
        timeout=10,
        headers={**headers, "Content-Type": "application/octet-stream"},
    )
    assert resp.status_code == 201, resp.text
    return digest


def _layer(files: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for path, content in files.items():
            info = tarfile.TarInfo(path)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return gzip.compress(raw.getvalue(), mtime=0)


BASE_CONFIG = {
    "Entrypoint": ["/bin/entry.sh"],
    "Cmd": ["--help"],
    "Env": ["PATH=/usr/bin:/bin", "BASE_ENV=kept"],
    "User": "1000:1000",
    "WorkingDir": "/",
}


def push_base(
    host: str,
    name: str,
    tag: str,
    arches: tuple[str, ...] = ("amd64", "arm64"),
    headers: dict[str, str] | None = None,
) -> str:
    """An OCI index of one tiny image per architecture, plus a BuildKit-style attestation
    entry; returns the index digest. `headers`: an Authorization for a registry that asks."""
    headers = headers or {}
    children = []
    for arch in arches:
        layer = _layer({f"etc/{arch}.txt": arch.encode()})
        diff = _digest(gzip.decompress(layer))
        layer_digest = _put_blob(host, name, layer, headers)
        config = json.dumps(
            {
                "architecture": arch,
                "os": "linux",
                "config": BASE_CONFIG,
                "rootfs": {"type": "layers", "diff_ids": [diff]},
                "history": [{"created_by": "base layer"}],
            }
        ).encode()
        manifest = json.dumps(
            {
                "schemaVersion": 2,
                "mediaType": OCI_MANIFEST,
                "config": {
                    "mediaType": "application/vnd.oci.image.config.v1+json",
                    "digest": _put_blob(host, name, config, headers),
                    "size": len(config),
                },
                "layers": [
                    {
                        "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                        "digest": layer_digest,
                        "size": len(layer),
                    }
                ],
            }
        ).encode()
        digest = _put_manifest(host, name, _digest(manifest), manifest, OCI_MANIFEST, headers)
        children.append(
            {
                "mediaType": OCI_MANIFEST,
                "digest": digest,
                "size": len(manifest),
                "platform": {"architecture": arch, "os": "linux"},
            }
        )
    children.insert(
        0,
        {
            **children[0],
            "platform": {"architecture": "unknown", "os": "unknown"},
            "annotations": {"vnd.docker.reference.type": "attestation-manifest"},
        },
    )
    index = json.dumps({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": children})
    return _put_manifest(host, name, tag, index.encode(), OCI_INDEX, headers)


def _put_manifest(
    host: str, name: str, ref: str, data: bytes, media_type: str, headers: dict[str, str]
) -> str:
    resp = requests.put(
        f"http://{host}/v2/{name}/manifests/{ref}",
        data=data,
        timeout=10,
        headers={**headers, "Content-Type": media_type},
    )
    assert resp.status_code == 201, resp.text
    return _digest(data)
