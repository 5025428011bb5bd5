"""OCI and Docker image documents: choosing a platform in an index, and appending layers to a
base image's config and manifest.

Facts followed (opencontainers/image-spec at 13cff54902ec: `media-types.md`, `manifest.md`,
`image-index.md`, `config.md`; distribution/distribution `docs/content/spec/manifest-v2-2.md`
at 0d6b721dc3ce; google/go-containerregistry at 3f4ff3ca60f5, `pkg/v1/remote/index.go`
`childByPlatform` and `pkg/v1/mutate/image.go`): an index child without a platform counts as
linux/amd64; the first child that satisfies the wanted platform wins, an empty wanted variant
matching any; BuildKit attestations (annotation `vnd.docker.reference.type:
attestation-manifest`, platform unknown/unknown) are skipped; a layer appended to a Docker
manifest is a Docker layer, to an OCI manifest an OCI layer (one family per image); each
appended layer adds its DiffID to `rootfs.diff_ids` and one history entry; the config and the
manifest are serialised once and their digests are those of the exact bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from xcli.errors import UserError
from xcli.image.layers import Layer

OCI_INDEX = "application/vnd.oci.image.index.v1+json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LAYER = "application/vnd.docker.image.rootfs.diff.tar.gzip"
INDEXES = (OCI_INDEX, DOCKER_LIST)
MANIFESTS = (OCI_MANIFEST, DOCKER_MANIFEST)
ACCEPT = ", ".join((*INDEXES, *MANIFESTS))
WORKDIR = "/app"
EPOCH = "1970-01-01T00:00:00Z"


def digest_of(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def media_type(document: Mapping[str, Any], content_type: str = "") -> str:
    """A manifest's type: its own mediaType field, else the Content-Type it was served with."""
    return str(document.get("mediaType") or content_type.split(";")[0].strip())


def _platform(child: Mapping[str, Any]) -> tuple[str, str, str]:
    plat = child.get("platform") or {"os": "linux", "architecture": "amd64"}
    return str(plat.get("os", "")), str(plat.get("architecture", "")), str(plat.get("variant", ""))


def choose(index: Mapping[str, Any], platform: str, image: str) -> Mapping[str, Any]:
    """The child of `index` for `platform` ("linux/amd64", "linux/arm64/v8")."""
    want = [*platform.split("/"), "", ""][:3]
    offered: list[str] = []
    for child in index.get("manifests") or []:
        annotations = child.get("annotations") or {}
        if annotations.get("vnd.docker.reference.type") == "attestation-manifest":
            continue
        os_, arch, variant = _platform(child)
        if os_ == "unknown" or child.get("mediaType") not in (*MANIFESTS, None):
            continue
        offered.append("/".join(p for p in (os_, arch, variant) if p))
        if (os_, arch) == (want[0], want[1]) and (not want[2] or want[2] == variant):
            return dict(child)
    raise UserError(
        f"base image {image} has no {platform} image (it has {', '.join(offered) or 'none'})",
        hint=f"choose a --base-docker-image built for {platform}",
    )


def check_config_platform(config: Mapping[str, Any], platform: str, image: str) -> None:
    """A single-platform base must be of the cluster's platform."""
    want = platform.split("/")
    have = [str(config.get("os", "")), str(config.get("architecture", ""))]
    if have != want[:2]:
        raise UserError(
            f"base image {image} is {'/'.join(have)}, the cluster runs {platform}",
            hint=f"choose a --base-docker-image built for {platform}",
        )


def compose(
    base_manifest: Mapping[str, Any],
    manifest_type: str,
    base_config: bytes,
    layers: Sequence[Layer],
    source: str,
) -> tuple[bytes, bytes]:
    """The new config and manifest bytes: the base's, with `layers` appended and WorkingDir
    /app; entrypoint, command, environment and user stay the base's."""
    config = json.loads(base_config)
    inner = config.setdefault("config", {})
    inner["WorkingDir"] = WORKDIR
    rootfs = config.setdefault("rootfs", {"type": "layers", "diff_ids": []})
    rootfs.setdefault("diff_ids", []).extend(layer.diff_id for layer in layers)
    config.setdefault("history", []).extend(
        {"created": EPOCH, "created_by": f"xcli: {source} ({layer.name}) at {WORKDIR}"}
        for layer in layers
    )
    config_bytes = json.dumps(config, separators=(",", ":")).encode()
    layer_type = DOCKER_LAYER if manifest_type == DOCKER_MANIFEST else OCI_LAYER
    manifest = dict(base_manifest)
    manifest["config"] = {
        **base_manifest["config"],
        "digest": digest_of(config_bytes),
        "size": len(config_bytes),
    }
    manifest["layers"] = [
        *base_manifest.get("layers", []),
        *({"mediaType": layer_type, "digest": x.digest, "size": x.size} for x in layers),
    ]
    return config_bytes, json.dumps(manifest, separators=(",", ":")).encode()
