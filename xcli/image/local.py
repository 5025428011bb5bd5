"""A base image held by a local Docker Engine or Podman: what planning learns of it, and the
`image_engine_base` step that exports it over the Engine API's Unix socket (no docker command).

Facts followed (Docker Engine API reference v1.57, "Export an image" `GET /images/{name}/get`,
"Inspect an image" `GET /images/{name}/json`, "Ping" `GET /_ping`, docs.docker.com; moby
`image/tarexport/save.go` and `tarexport.go` `manifestItem` at 032797ea; containers/podman
`pkg/api/server/register_images.go` operation `ImageGet` and containers/image
`docker/internal/tarfile/writer.go`, the docker-archive Podman's compat API writes): the export
is a tar holding `manifest.json`, an array of `{Config, RepoTags, Layers}` whose paths name the
config and each layer in the same tar; the config's `rootfs.diff_ids[i]` is the sha256 of the
uncompressed `Layers[i]`. Docker 25+ writes them under `blobs/sha256/` (an OCI layout beside
`manifest.json`; the containerd store keeps layers compressed), older Docker as
`<id>/layer.tar`, Podman as `<hex>.tar` with `<id>/layer.tar` symlinks and `manifest.json` last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import quote

from xcli.image.reference import ImageRef
from xcli.plan.model import Step

# Where a client looks for the daemon when DOCKER_HOST is not set: Docker's default socket,
# then rootless Podman's (podman-system-service(1): $XDG_RUNTIME_DIR/podman/podman.sock).
DOCKER_SOCKET = "/var/run/docker.sock"
PODMAN_SOCKET = "podman/podman.sock"  # under $XDG_RUNTIME_DIR


@dataclass(frozen=True)
class LocalImage:
    """An image the daemon at `socket` answered for (`GET /images/{name}/json`)."""

    socket: str  # the Unix socket's path
    api: str  # the API version the daemon's /_ping named (requests go to /v{api}/...)
    id: str  # its image ID: sha256 of its config
    os: str
    architecture: str
    layers: int  # len(RootFS.Layers)


@dataclass(frozen=True)
class EngineLookup:
    """What planning found: the daemon that answered (if any), and the image in it (if any)."""

    socket: str = ""  # "" when no socket answered /_ping
    image: LocalImage | None = None
    tried: tuple[str, ...] = ()  # the sockets looked at, for the plan's note

    def note(self, name: str) -> str:
        """Where the base comes from, for the plan."""
        if self.image is not None:
            return f"from the local engine at unix://{self.socket}"
        if self.socket:
            return f"not in the local engine at unix://{self.socket}, so from its registry"
        looked = ", ".join(f"unix://{s}" for s in self.tried) or "none"
        return f"no local Docker Engine or Podman socket answered (looked at {looked})"


def api_path(api: str, name: str, what: str) -> str:
    """`/v1.44/images/NAME/json`: the name as typed (Docker and Podman route `{name:.*}`)."""
    return f"/v{api}/images/{quote(name, safe='/:@')}/{what}"


@dataclass(frozen=True, kw_only=True)
class EngineBase(Step):
    """Export the base from the local engine; its layers go into the store (compressed with
    gzip, level 1 and mtime 0, when the daemon keeps them uncompressed), checked against the
    config's DiffIDs; the outputs are those of `image_base` (a manifest made for them)."""

    kind: ClassVar[str] = "image_engine_base"

    name: str  # the --base-docker-image text, as the daemon is asked for it
    image: ImageRef  # the same name as a registry reference (for the push's history and tag)
    socket: str
    api: str
    image_id: str
    platform: str
    store: str = field(default="", metadata={"print": False})

    def details(self) -> dict[str, Any]:
        return {
            "image": self.name,
            "engine": f"unix://{self.socket}",
            "image_id": self.image_id,
            "platform": self.platform,
            "requests": [
                {"method": "GET", "url": "/_ping", "then": "the API version to ask for"},
                {"method": "GET", "url": api_path(self.api, self.name, "json")},
                {
                    "method": "GET",
                    "url": api_path(self.api, self.name, "get"),
                    "accept": "application/x-tar",
                    "then": "each layer of manifest.json checked against the config's "
                    "rootfs.diff_ids; uncompressed ones gzip-compressed into the store",
                },
            ],
        }
