"""Read a `docker save` / Engine API export tar (see `image/local.py` for its three forms) into
the layer store: the config as it is, each layer as a registry blob, and an OCI manifest for
them, which the push step then extends with the folder's layers.

The whole tar is on disk first (Podman writes `manifest.json` last), and `manifest.json` is
followed, not the directory layout: its `Layers` paths may be symlinks (Podman) or blobs named
by their compressed digest (the containerd store). A layer is sniffed: gzip (`1f 8b`) and zstd
(`28 b5 2f fd`) blobs are pushed as they are; an uncompressed one is compressed as the folder's
layers are, by image/tarball.py (gzip level 1, no name, mtime 0: the same bytes every time with
the same compressor, ISA-L where installed). Each uncompressed tar's sha256 must equal the
config's `rootfs.diff_ids[i]` (zstd ones are taken on the daemon's word: the standard library
reads no zstd before Python 3.14).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import posixpath
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from xcli.errors import UserError
from xcli.image import oci, tarball
from xcli.image.layers import GZIP_LEVEL, Store

OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
OCI_ZSTD = "application/vnd.oci.image.layer.v1.tar+zstd"
_GZIP, _ZSTD = b"\x1f\x8b", b"\x28\xb5\x2f\xfd"
_CHUNK = 1024**2


@dataclass(frozen=True)
class Exported:
    """The base as the push step needs it: config bytes and an OCI manifest of its blobs."""

    config: bytes
    manifest: dict[str, Any]


def cached(store: Store, image_id: str, diff_ids: list[str]) -> Exported | None:
    """The base from an earlier export of the same image ID, without asking the daemon again:
    the config (its digest is the image ID) and a blob per DiffID, all in the store."""
    config_path = store.blob(image_id)
    if not config_path.exists():
        return None
    config = config_path.read_bytes()
    if oci.digest_of(config) != image_id:
        return None
    if list(json.loads(config).get("rootfs", {}).get("diff_ids") or []) != diff_ids:
        return None
    layers = []
    for diff_id in diff_ids:
        known = _known(store, diff_id)
        if known is None:
            return None
        layers.append(known)
    return Exported(config, _manifest(config, layers))


def read(path: Path, store: Store, name: str) -> Exported:
    """The export at `path`, its blobs written into `store`."""
    with tarfile.open(path, "r:") as tar:
        members = {m.name.lstrip("./") or m.name: m for m in tar.getmembers()}
        listing = json.loads(_open(tar, members, "manifest.json", name).read())
        item = _item(listing, name)
        config = _open(tar, members, str(item["Config"]), name).read()
        diff_ids = list(json.loads(config).get("rootfs", {}).get("diff_ids") or [])
        paths = list(item.get("Layers") or [])
        if len(paths) != len(diff_ids):
            raise _bad(name, f"{len(paths)} layers for {len(diff_ids)} DiffIDs in its config")
        layers = [
            _layer(_open(tar, members, p, name), store, diff_id, name)
            for p, diff_id in zip(paths, diff_ids, strict=True)
        ]
    _keep(store.blob(oci.digest_of(config)), config)
    return Exported(config, _manifest(config, layers))


def _manifest(config: bytes, layers: list[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "schemaVersion": 2,
        "mediaType": oci.OCI_MANIFEST,
        "config": {"mediaType": OCI_CONFIG, "digest": oci.digest_of(config), "size": len(config)},
        "layers": [dict(x) for x in layers],
    }


def _item(listing: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(listing, list) or not listing:
        raise _bad(name, "its manifest.json lists no image")
    if len(listing) == 1:
        return dict(listing[0])
    short = name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"
    for item in listing:
        if any(t == short or t.endswith(f"/{short}") for t in item.get("RepoTags") or []):
            return dict(item)
    raise _bad(name, f"its manifest.json lists {len(listing)} images, none tagged {short}")


def _open(
    tar: tarfile.TarFile, members: Mapping[str, tarfile.TarInfo], path: str, name: str
) -> IO[bytes]:
    """A member by path, following symlinks inside the tar (Podman's `<id>/layer.tar`)."""
    seen: set[str] = set()
    while path not in seen:
        seen.add(path)
        member = members.get(path)
        if member is None:
            raise _bad(name, f"{path} is named in manifest.json but not in the tar")
        if member.issym():
            path = posixpath.normpath(posixpath.join(posixpath.dirname(path), member.linkname))
            continue
        fobj = tar.extractfile(member)
        if fobj is None:
            raise _bad(name, f"{path} is not a file")
        return fobj
    raise _bad(name, f"{path} is a symlink loop")


def _layer(src: IO[bytes], store: Store, diff_id: str, name: str) -> Mapping[str, Any]:
    known = _known(store, diff_id)
    if known is not None:
        return known
    head = src.read(4)
    tmp = store.root / "blobs" / f"export.{os.getpid()}.{diff_id[-12:]}"
    store.blob("sha256:x").parent.mkdir(parents=True, exist_ok=True)
    packed, plain = hashlib.sha256(), hashlib.sha256()
    checked = True
    with tmp.open("wb") as out:
        if head.startswith(_GZIP):
            media, tee = oci.OCI_LAYER, _Tee(head, src, packed, out)
            with gzip.GzipFile(fileobj=cast("IO[bytes]", tee)) as unzip:
                _drain(unzip, plain)
            _drain(tee, None)  # anything after the last gzip member still belongs to the blob
        elif head == _ZSTD:
            media, checked = OCI_ZSTD, False
            _drain(_Tee(head, src, packed, out), None)
        else:
            media = oci.OCI_LAYER
            gz = tarball.Gzip(out, GZIP_LEVEL)
            blocks = tarball.Blocks(gz.block)
            blocks.write(head)
            blocks.drain(src)
            blocks.close()
            gz.finish()
            plain, packed = gz.plain, gz.packed
    if checked and f"sha256:{plain.hexdigest()}" != diff_id:
        tmp.unlink()
        raise _bad(name, f"a layer's content is not its config's DiffID {diff_id}")
    digest, size = f"sha256:{packed.hexdigest()}", tmp.stat().st_size
    os.replace(tmp, store.blob(digest))
    layer = {"mediaType": media, "digest": digest, "size": size}
    record = _record(store, diff_id)
    record.parent.mkdir(parents=True, exist_ok=True)
    _keep(record, json.dumps(layer).encode())
    return layer


def _known(store: Store, diff_id: str) -> Mapping[str, Any] | None:
    """A layer compressed before, whose blob is still in the store."""
    try:
        layer = json.loads(_record(store, diff_id).read_text(encoding="utf-8"))
        if store.blob(layer["digest"]).stat().st_size == layer["size"]:
            return dict(layer)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _record(store: Store, diff_id: str) -> Path:
    return store.root / "engine-layers" / diff_id.removeprefix("sha256:")


def _drain(src: Any, sha: Any) -> None:
    for part in iter(lambda: src.read(_CHUNK), b""):
        if sha is not None:
            sha.update(part)


def _keep(path: Path, data: bytes) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _bad(name: str, why: str) -> UserError:
    return UserError(
        f"the local engine's export of {name} is not an image archive: {why}",
        hint="check the image with `docker image inspect`, or push it to a registry and pass "
        "that name to --base-docker-image",
    )


class _Tee:
    """Reads `head` then `src`, hashing and copying every byte read into `out`."""

    def __init__(self, head: bytes, src: IO[bytes], sha: Any, out: IO[bytes]) -> None:
        self.head, self.src, self.sha, self.out = head, src, sha, out

    def read(self, size: int = -1) -> bytes:
        if self.head:
            cut = len(self.head) if size < 0 else size
            data, self.head = self.head[:cut], self.head[cut:]
        else:
            data = self.src.read(size if size > 0 else _CHUNK)
        self.sha.update(data)
        self.out.write(data)
        return data
