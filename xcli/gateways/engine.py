"""The local Docker Engine or Podman, over its API's Unix socket: is there one, does it hold an
image, and the `image_engine_base` step's live handler (export the image, keep its layers).
No docker or podman command is run.

Requests (Docker Engine API reference v1.57, docs.docker.com/reference/api/engine): `GET
/_ping` answers `OK` with an `Api-Version` header, the highest version the daemon serves, so
every later request is `/v{that}/...` (unversioned paths are deprecated; Docker 29 refuses old
versions, and Podman's compat layer takes any, podman-system-service(1)); `GET
/v{api}/images/{name}/json` is 404 for an image the daemon lacks; `GET /v{api}/images/{name}/get`
(Accept: application/x-tar) streams the save tar. Where to look follows Docker's client:
`DOCKER_HOST` when set (only `unix://` is read here), else `/var/run/docker.sock`, then rootless
Podman's `$XDG_RUNTIME_DIR/podman/podman.sock`.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xcli.errors import CloudError
from xcli.image import archive, oci
from xcli.image.layers import Store
from xcli.image.local import (
    DOCKER_SOCKET,
    PODMAN_SOCKET,
    EngineBase,
    EngineLookup,
    LocalImage,
    api_path,
)
from xcli.plan.contract import Handler, StepContext

TIMEOUT = 5.0  # a ping or an inspect; the export itself has no deadline
EXPORT_TIMEOUT = None


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float | None) -> None:
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self.path)
        self.sock = sock


def candidates(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The sockets to try, in order (DOCKER_HOST alone when it is set)."""
    env = os.environ if env is None else env
    host = env.get("DOCKER_HOST", "")
    if host:
        return (host.removeprefix("unix://"),) if host.startswith("unix://") else ()
    runtime = env.get("XDG_RUNTIME_DIR", "")
    return (DOCKER_SOCKET, *((str(Path(runtime) / PODMAN_SOCKET),) if runtime else ()))


class Engine:
    """One daemon at `path`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.api = ""

    def _get(
        self, url: str, accept: str = "application/json", timeout: float | None = TIMEOUT
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        conn = _UnixConnection(self.path, timeout)
        conn.request("GET", url, headers={"Accept": accept, "Host": "docker"})
        return conn, conn.getresponse()

    def ping(self) -> bool:
        """True when a daemon answers `/_ping`; remembers its API version."""
        try:
            conn, resp = self._get("/_ping", "text/plain")
            body = resp.read()
            conn.close()
        except OSError:
            return False
        if resp.status != 200 or body.strip() != b"OK":
            return False
        self.api = resp.getheader("Api-Version") or "1.40"  # Podman's compat API level
        return True

    def inspect(self, name: str) -> Mapping[str, Any] | None:
        """The image's inspect document, None when the daemon lacks it."""
        conn, resp = self._get(api_path(self.api, name, "json"))
        body = resp.read()
        conn.close()
        if resp.status == 404:
            return None
        if resp.status != 200:
            raise _failed(self.path, f"inspect {name}", resp.status, body)
        return dict(json.loads(body))

    def export(self, name: str, out: Path) -> None:
        """The save tar of `name`, streamed into `out`."""
        conn, resp = self._get(api_path(self.api, name, "get"), "application/x-tar", None)
        try:
            if resp.status != 200:
                raise _failed(self.path, f"export {name}", resp.status, resp.read())
            with out.open("wb") as sink:
                for part in iter(lambda: resp.read(1024**2), b""):
                    sink.write(part)
        finally:
            conn.close()


def lookup(name: str, env: Mapping[str, str] | None = None) -> EngineLookup:
    """The first daemon that answers, and `name` in it if it holds it."""
    tried = candidates(env)
    for path in tried:
        if not os.path.exists(path):
            continue
        engine = Engine(path)
        if not engine.ping():
            continue
        found = engine.inspect(name)
        if found is None:
            return EngineLookup(socket=path, tried=tried)
        return EngineLookup(socket=path, image=_local(path, engine.api, found), tried=tried)
    return EngineLookup(tried=tried)


def _local(path: str, api: str, found: Mapping[str, Any]) -> LocalImage:
    layers = (found.get("RootFS") or {}).get("Layers") or []
    return LocalImage(
        socket=path,
        api=api,
        id=str(found.get("Id", "")),
        os=str(found.get("Os", "")),
        architecture=str(found.get("Architecture", "")),
        layers=len(layers),
    )


class EngineHandlers:
    def handlers(self) -> dict[str, Handler]:
        return {"image_engine_base": self.read_base}

    def read_base(self, step: EngineBase, ctx: StepContext) -> Mapping[str, Any]:
        engine = Engine(step.socket)
        if not engine.ping():
            raise CloudError(
                f"the local engine at unix://{step.socket} no longer answers",
                hint="start Docker or Podman again, or push the base to a registry and pass "
                "that name to --base-docker-image",
            )
        found = engine.inspect(step.name)
        if found is None:
            raise CloudError(
                f"the local engine at unix://{step.socket} no longer holds {step.name}",
                hint="build or load it again (MaxText: docker_build_dependency_image.sh)",
            )
        image_id = str(found.get("Id", ""))
        diff_ids = list((found.get("RootFS") or {}).get("Layers") or [])
        store = Store(Path(step.store))
        exported = archive.cached(store, image_id, diff_ids)
        if exported is not None:
            ctx.report(f"{step.name}: {len(diff_ids)} layers already in the store")
        else:
            ctx.report(f"exporting {step.name} from unix://{step.socket}")
            tmp = store.root / "blobs" / f"export.{os.getpid()}.tar"
            tmp.parent.mkdir(parents=True, exist_ok=True)
            try:
                engine.export(step.name, tmp)
                exported = archive.read(tmp, store, step.name)
            finally:
                tmp.unlink(missing_ok=True)
        oci.check_config_platform(json.loads(exported.config), step.platform, step.name)
        manifest = json.dumps(exported.manifest, separators=(",", ":")).encode()
        digest = oci.digest_of(manifest)
        ctx.report(f"base {step.name} ({image_id[:19]}) from the local engine")
        return {
            "digest": digest,
            "image": f"{step.name}@{image_id}",
            "manifest": manifest.decode(),
            "media_type": oci.OCI_MANIFEST,
            "config": exported.config.decode(),
            "config_digest": oci.digest_of(exported.config),
        }


def _failed(path: str, what: str, status: int, body: bytes) -> CloudError:
    try:
        message = str(json.loads(body).get("message", ""))
    except ValueError:
        message = body[:200].decode(errors="replace")
    return CloudError(
        f"the local engine at unix://{path} refused to {what}: {status} {message}".strip(),
        hint="check the daemon (`docker info` or `podman info`), or push the base to a "
        "registry and pass that name to --base-docker-image",
    )
