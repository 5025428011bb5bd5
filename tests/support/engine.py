"""A loopback server speaking the part of the Docker Engine API that xcli reads, on a Unix
socket: `/_ping`, `/version`, `/v{api}/images/{name}/json` and `/v{api}/images/{name}/get`.

What it answers follows the Engine API reference (v1.57, docs.docker.com: "Ping", "Get version",
"Inspect an image", "Export an image") and the save tar of each daemon: `legacy` as Docker up to
24 writes it (`<id>/VERSION`, `<id>/json`, `<id>/layer.tar`, `<hex>.json`, `repositories`,
`manifest.json`; moby `image/tarexport/tarexport.go` `manifestItem`), `oci` as Docker 25+ with
the containerd store does (`blobs/sha256/...` with gzip layers, `index.json`, `oci-layout`,
`manifest.json`; moby `image/tarexport/save.go` at 032797ea), and `podman` as Podman's
docker-archive writer does (`<hex>.tar` layers, `<id>/layer.tar` as symlinks to them, and
`manifest.json` written last; containers/image `docker/internal/tarfile/writer.go`). The tars
are built here from their layer contents, independently of the code under test.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import socketserver
import tarfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

API = "1.44"
_ROUTE = re.compile(r"^(?:/v[0-9.]+)?/images/(.+)/(json|get)$")


def rootfs_tar(files: dict[str, bytes]) -> bytes:
    """An uncompressed layer tar holding `files` (path -> content)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, data in sorted(files.items()):
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def sha(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


@dataclass
class LocalImage:
    """An image as a daemon holds it: its uncompressed layers and its config."""

    name: str  # "maxtext_base_image:latest"
    layers: list[bytes]
    arch: str = "amd64"

    @property
    def config(self) -> bytes:
        doc = {
            "architecture": self.arch,
            "os": "linux",
            "config": {"Env": ["PATH=/usr/bin", "BASE=local"], "Cmd": ["/bin/sh"]},
            "rootfs": {"type": "layers", "diff_ids": [sha(x) for x in self.layers]},
            "history": [{"created_by": f"layer {i}"} for i in range(len(self.layers))],
        }
        return json.dumps(doc, sort_keys=True).encode()

    @property
    def id(self) -> str:
        return sha(self.config)

    def inspect(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "RepoTags": [self.name],
            "Os": "linux",
            "Architecture": self.arch,
            "RootFS": {"Type": "layers", "Layers": [sha(x) for x in self.layers]},
        }

    def save(self, form: str) -> bytes:
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w") as tar:

            def add(path: str, data: bytes) -> None:
                info = tarfile.TarInfo(path)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))

            def link(path: str, target: str) -> None:
                info = tarfile.TarInfo(path)
                info.type, info.linkname = tarfile.SYMTYPE, target
                tar.addfile(info)

            config_hex = self.id.removeprefix("sha256:")
            tags = [self.name] if form != "podman" else [f"localhost/{self.name}"]
            if form == "legacy":
                paths = []
                for i, layer in enumerate(self.layers):
                    lid = hashlib.sha256(f"v1-{i}".encode() + layer).hexdigest()
                    add(f"{lid}/VERSION", b"1.0")
                    add(f"{lid}/json", json.dumps({"id": lid}).encode())
                    add(f"{lid}/layer.tar", layer)
                    paths.append(f"{lid}/layer.tar")
                add(f"{config_hex}.json", self.config)
                item = {"Config": f"{config_hex}.json", "RepoTags": tags, "Layers": paths}
                add("repositories", json.dumps({self.name.split(":")[0]: {"latest": "x"}}).encode())
                add("manifest.json", json.dumps([item]).encode())
            elif form == "oci":
                paths, descriptors = [], []
                for layer in self.layers:
                    blob = gzip.compress(layer, mtime=0)
                    add(f"blobs/sha256/{sha(blob)[7:]}", blob)
                    paths.append(f"blobs/sha256/{sha(blob)[7:]}")
                    descriptors.append(
                        {
                            "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                            "digest": sha(blob),
                            "size": len(blob),
                        }
                    )
                add(f"blobs/sha256/{config_hex}", self.config)
                manifest = json.dumps(
                    {
                        "schemaVersion": 2,
                        "mediaType": "application/vnd.oci.image.manifest.v1+json",
                        "config": {
                            "mediaType": "application/vnd.oci.image.config.v1+json",
                            "digest": self.id,
                            "size": len(self.config),
                        },
                        "layers": descriptors,
                    }
                ).encode()
                add(f"blobs/sha256/{sha(manifest)[7:]}", manifest)
                index = {
                    "schemaVersion": 2,
                    "mediaType": "application/vnd.oci.image.index.v1+json",
                    "manifests": [
                        {
                            "mediaType": "application/vnd.oci.image.manifest.v1+json",
                            "digest": sha(manifest),
                            "size": len(manifest),
                            "annotations": {"io.containerd.image.name": self.name},
                        }
                    ],
                }
                add("index.json", json.dumps(index).encode())
                add("oci-layout", b'{"imageLayoutVersion":"1.0.0"}')
                item = {"Config": f"blobs/sha256/{config_hex}", "RepoTags": tags, "Layers": paths}
                add("manifest.json", json.dumps([item]).encode())
            else:  # podman: docker-archive, layers by DiffID, legacy names as symlinks
                add(f"{config_hex}.json", self.config)
                paths = []
                for i, layer in enumerate(self.layers):
                    hexd = sha(layer)[7:]
                    add(f"{hexd}.tar", layer)
                    lid = hashlib.sha256(f"v1-{i}".encode()).hexdigest()
                    link(f"{lid}/layer.tar", f"../{hexd}.tar")
                    add(f"{lid}/VERSION", b"1.0")
                    paths.append(f"{hexd}.tar")
                item = {"Config": f"{config_hex}.json", "RepoTags": tags, "Layers": paths}
                add("manifest.json", json.dumps([item]).encode())  # last, as Podman writes it
                add("repositories", b"{}")
        return out.getvalue()


@dataclass
class EngineServer:
    socket: Path
    images: dict[str, LocalImage] = field(default_factory=dict)
    form: str = "legacy"  # the save tar's form: legacy, oci or podman
    requests: list[str] = field(default_factory=list)  # "GET /path"
    server: socketserver.ThreadingUnixStreamServer | None = None

    def find(self, name: str) -> LocalImage | None:
        full = name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"
        return self.images.get(full.removeprefix("localhost/"))

    def start(self) -> None:
        engine = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the default indexes client_address[0], '' on AF_UNIX

            def _send(self, status: int, body: bytes, ctype: str, **headers: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for key, value in headers.items():
                    self.send_header(key.replace("_", "-"), value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def do_HEAD(self) -> None:
                self.do_GET()

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                engine.requests.append(f"{self.command} {path}")
                if re.fullmatch(r"(?:/v[0-9.]+)?/_ping", path):
                    self._send(200, b"OK", "text/plain", Api_Version=API, OSType="linux")
                    return
                if re.fullmatch(r"(?:/v[0-9.]+)?/version", path):
                    body = {"Version": "25.0.0", "ApiVersion": API, "MinAPIVersion": "1.24"}
                    self._send(200, json.dumps(body).encode(), "application/json")
                    return
                match = _ROUTE.match(path)
                image = engine.find(match.group(1)) if match else None
                if match is None or image is None:
                    name = match.group(1) if match else path
                    msg = json.dumps({"message": f"No such image: {name}"}).encode()
                    self._send(404, msg, "application/json")
                    return
                if match.group(2) == "json":
                    self._send(200, json.dumps(image.inspect()).encode(), "application/json")
                else:
                    self._send(200, image.save(engine.form), "application/x-tar")

        class Server(socketserver.ThreadingUnixStreamServer):
            daemon_threads = True

        self.server = Server(str(self.socket), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def serve(folder: Path, *images: LocalImage, form: str = "legacy") -> Iterator[EngineServer]:
    """An engine holding `images` on a socket in `folder` (kept short: ~108 bytes at most)."""
    server = EngineServer(folder / "e.sock", {i.name: i for i in images}, form)
    server.start()
    try:
        yield server
    finally:
        server.stop()
