"""The script folder as reproducible layers, and the local store of their compressed blobs.

Layering (so that changing one file re-sends a small part of the folder): files of at least
BIG_FILE bytes each get a layer of their own (at most MAX_BIG of them, in path order); every
other entry goes to one of K buckets chosen by the SHA-256 of its path, K the smallest power
of two with K * TARGET >= the folder's size, at most MAX_BUCKETS. A changed file changes one
bucket, about 1/K of the folder; K changes only when the folder's size crosses a power of two.
Each layer holds `app/` and the parent directories of its entries, so layers can be unpacked
in any order.

Reproducible tars (the image spec's DiffID rule, opencontainers/image-spec `config.md` at
13cff54902ec): entries sorted by path, parents first; mtime 0, uid and gid 0, no user or
group names, modes 0755 (directories, executables), 0644 (files), 0777 (symlinks); integer
header fields, so Python's PAX writer adds an extended header only for long or non-ASCII names.
gzip without a file name and with mtime 0, at level 1 as crane compresses an appended layer
(google/go-containerregistry `pkg/v1/tarball/layer.go`, `gzip.BestSpeed`, at 3f4ff3ca60f5),
or level 0 (stored blocks) for content that does not compress (`gzip_level`); written in one
pass by image/tarball.py. The DiffID is the same on any machine; the gzip digest of a level-0
layer too, of a level-1 layer only with the same compressor and version (ISA-L or zlib;
zlib-ng/zlib-ng issue 795), which is why the store is keyed by what was read, not by the
compressed digest.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from xcli.image import tarball
from xcli.image.context import Context, Entry
from xcli.state_files import check_owner, open_new, private_dir, write_private

# 8 MiB (4 MiB before issue 36): a cold push of 200 MB is 32 blobs, not 64; each blob costs the
# registry about 8 ms of CPU besides its bytes (Distribution 2.8 on loopback: 64 blobs 1.0-1.2 s,
# 16 blobs 0.71 s, one 0.68 s for the same 215 MB), and a one-file change still sends 1/K
# (3 % of a 200 MB folder; issue 24's target is under 5 %)
TARGET = 8 * 1024**2
MAX_BUCKETS = 64
BIG_FILE = 32 * 1024**2
MAX_BIG = 8
GZIP_LEVEL = 1
SAMPLE = 256 * 1024
_CHUNK = 1024**2


@dataclass(frozen=True)
class Layer:
    """One built layer: its name in the plan, the uncompressed and compressed digests."""

    name: str  # "bucket-07-of-64" or "file:data/model.bin"
    diff_id: str
    digest: str
    size: int
    files: int


def groups(entries: Sequence[Entry]) -> list[tuple[str, list[Entry]]]:
    """The entries split into layers (see the module docstring), empty buckets left out."""
    big = [e for e in entries if e.kind == "file" and e.size >= BIG_FILE][:MAX_BIG]
    alone = {e.path for e in big}
    rest = [e for e in entries if e.path not in alone]
    total = sum(e.size for e in rest)
    count = 1
    while count * TARGET < total and count < MAX_BUCKETS:
        count *= 2
    buckets: list[list[Entry]] = [[] for _ in range(count)]
    for entry in rest:
        index = int.from_bytes(hashlib.sha256(entry.path.encode()).digest()[:4], "big") % count
        buckets[index].append(entry)
    out = [(f"bucket-{i:02d}-of-{count}", b) for i, b in enumerate(buckets) if b]
    return out + [(f"file:{e.path}", [e]) for e in big]


class Store:
    """Compressed layers on disk, `blobs/sha256/<hex>`, and what each group of entries gave.

    Owner-only whatever the umask (folders 0700, files 0600, `state_files`), a cache folder
    another user owns or may write refused, and nothing reused unless it is the user's own,
    writable by no one else, and hashes to its digest: a layer someone rewrote is built again,
    never pushed (issue 37: at umask 000 another user's train.py was pushed and run).
    """

    def __init__(self, root: Path, *, uid: int | None = None) -> None:
        self.root = root
        self.uid = os.getuid() if uid is None else uid

    def blob(self, digest: str) -> Path:
        return self.root / "blobs" / "sha256" / digest.removeprefix("sha256:")

    def open(self) -> None:
        """The store's folders, owner-only; refused when another user owns or may write one."""
        fix = "set XCLI_IMAGE_CACHE to a folder of yours"
        for folder in (self.root, self.root / "blobs", self.blob("sha256:x").parent):
            check_owner(folder, "the image-layer cache", fix, uid=self.uid)
            private_dir(folder)
        check_owner(self.root / "layers", "the image-layer cache", fix, uid=self.uid)
        private_dir(self.root / "layers")

    def verified(self, digest: str) -> Path | None:
        """The blob of `digest` when it is there, the user's own, and hashes to `digest`."""
        path = self.blob(digest)
        if not self._own(path):
            return None
        sha = hashlib.sha256()
        with path.open("rb") as f:
            while chunk := f.read(_CHUNK):
                sha.update(chunk)
        return path if f"sha256:{sha.hexdigest()}" == digest else None

    def keep(self, digest: str, data: bytes) -> Path:
        """Write a blob (whole, by rename, 0600) unless a verified one is there."""
        path = self.verified(digest)
        return path or write_private(self.blob(digest), data, durable=False)  # verified on use

    def _own(self, path: Path) -> bool:
        try:
            st = os.lstat(path)
        except OSError:
            return False
        return stat.S_ISREG(st.st_mode) and st.st_uid == self.uid and not st.st_mode & 0o022

    def build(self, context: Context, progress: Callable[[int], None] | None = None) -> list[Layer]:
        """Every layer of the folder, from the store when its entries did not change."""
        self.open()
        parts = groups(context.entries)
        workers = max(1, min(4, os.cpu_count() or 1, len(parts)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda p: self._layer(context, p[0], p[1], progress), parts))

    def _layer(
        self,
        context: Context,
        name: str,
        entries: list[Entry],
        progress: Callable[[int], None] | None,
    ) -> Layer:
        key = _key(context.root, entries)
        record = self.root / "layers" / f"{key}.json"
        try:
            if self._own(record):
                layer = Layer(**json.loads(record.read_text(encoding="utf-8")))
                blob = self.blob(layer.digest)
                if blob.stat().st_size == layer.size and self.verified(layer.digest):
                    return replace(layer, name=name)
        except (OSError, ValueError, TypeError):
            pass
        layer = self._write(context.root, name, entries, progress)
        write_private(record, json.dumps(asdict(layer)), durable=False)  # checked on use
        return layer

    def _write(
        self,
        root: Path,
        name: str,
        entries: list[Entry],
        progress: Callable[[int], None] | None,
    ) -> Layer:
        tmp = self.root / "blobs" / f"building.{os.getpid()}.{os.urandom(6).hex()}"
        level = gzip_level(root, entries)
        with open_new(tmp) as out:
            packed = tarball.pack(root, entries, out, level, progress)
        digest = f"sha256:{packed.packed.hexdigest()}"
        os.replace(tmp, self.blob(digest))
        files = sum(1 for e in entries if e.kind != "dir")
        return Layer(name, f"sha256:{packed.plain.hexdigest()}", digest, packed.size, files)


def gzip_level(root: Path, entries: Sequence[Entry]) -> int:
    """GZIP_LEVEL, or 0 (stored blocks: still gzip, for every registry and runtime) when a
    sample of the layer's content does not compress (weights, archives, random data): then
    compressing costs the time and saves nothing. The sample is the first SAMPLE bytes of the
    layer's files in order, so the choice, like the bytes, depends on the content only."""
    sample, budget = bytearray(), SAMPLE
    for entry in entries:
        if entry.kind != "file" or budget <= 0:
            continue
        with (root / entry.path).open("rb") as src:
            part = src.read(min(budget, 64 * 1024))
        sample += part
        budget -= len(part)
    if len(sample) < 4096:
        return GZIP_LEVEL
    deflate = tarball.compressor(GZIP_LEVEL)
    packed = len(deflate.compress(bytes(sample))) + len(deflate.flush())
    return 0 if packed > 0.9 * len(sample) else GZIP_LEVEL


def _key(root: Path, entries: Sequence[Entry]) -> str:
    """What a group was read from: the folder, and each entry's path, type, mode, size, mtime
    and link target (like git's index, a file is read again only when its stat changed)."""
    data = [str(root.resolve())] + [
        [e.path, e.kind, e.mode, e.size, e.mtime_ns, e.target] for e in entries
    ]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()
