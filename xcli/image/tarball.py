"""A layer's bytes in one pass: the reproducible tar of its entries, cut into fixed blocks,
each block hashed (the DiffID), gzipped and hashed again (the blob digest) as it fills, the
blob written once. No temporary tar, no second read, no Python-level copy loop per 10 KiB as
`tarfile`'s stream writer and `gzip.GzipFile` did (issue 36: the cold build spent half its time
packing).

The tar is byte for byte what `tarfile.open(mode="w|", format=PAX_FORMAT)` writes for the same
members (tests/image/test_tarball.py holds it to that): each header is `TarInfo.tobuf`'s, file
data padded to 512 bytes, two zero blocks at the end and zeros up to a multiple of tarfile's
RECORDSIZE (10240). So the DiffIDs, and the tags made from them, are those of earlier versions.

The gzip member has the header `gzip.GzipFile` writes with no file name and mtime 0 (RFC 1952:
`1f 8b 08`, flags 0, mtime 0, XFL 4 at level 1 or 0 at level 0, OS 255), a raw deflate stream,
then CRC-32 and the length mod 2**32. Level 0 is written here as stored blocks (RFC 1951
section 3.2.4) of 65535 bytes at fixed offsets of the tar and an empty final block: the same
bytes with any zlib, at the speed of a copy. Level 1 uses ISA-L (the `isal` package, python-isal,
PyPI; pycompression/python-isal) when it is installed, zlib otherwise: ISA-L's level 1 is 5x
zlib's here (410 against 83 MB/s on source-like text, the same ratio) and emits stored blocks
by itself for what does not compress (700 MB/s on random bytes, zlib 54). Both compressors
give different bytes when the same input is fed in other pieces (measured with ISA-L), so the
compressor always gets whole BLOCKs at fixed offsets: the blob is then the same every time for
one compressor and version (intel/isa-l issue 140: the same payload compresses to the same
output), which is all the layer store needs, since it is keyed by what was read and the image's
tag by the DiffIDs (see image/layers.py).
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
import tarfile
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from xcli.image.context import Entry

STORED = 65535  # the largest stored deflate block
BLOCK = 16 * STORED  # what the hashes and the compressor are fed at a time (~1 MiB)
_RECORD = tarfile.RECORDSIZE
_TAR_BLOCK = tarfile.BLOCKSIZE
_FINAL_STORED = b"\x01\x00\x00\xff\xff"  # BFINAL=1, stored, LEN 0, NLEN 0xffff


class _Deflate(Protocol):
    def compress(self, data: Any, /) -> bytes: ...
    def flush(self, mode: int = ..., /) -> bytes: ...


def compressor(level: int) -> _Deflate:
    """A raw deflate stream at `level` (1..3 with ISA-L, 1..9 with zlib)."""
    try:
        from isal import isal_zlib
    except ImportError:  # a platform with no isal wheel: zlib, slower, the same format
        return zlib.compressobj(level, zlib.DEFLATED, -15)
    return isal_zlib.compressobj(min(level, 3), isal_zlib.DEFLATED, -15)


class Gzip:
    """A gzip member written to `out` from blocks of BLOCK bytes (the last one shorter), with
    the SHA-256 of what went in (`plain`) and of what came out (`packed`)."""

    def __init__(self, out: IO[bytes], level: int) -> None:
        self.out, self.level = out, level
        self.plain, self.packed = hashlib.sha256(), hashlib.sha256()
        self.size = self.length = self.crc = 0
        self.deflate = compressor(level) if level else None
        xfl = b"\x04" if level == 1 else b"\x02" if level == 9 else b"\x00"
        self._emit(b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + xfl + b"\xff")

    def block(self, data: memoryview) -> None:
        self.plain.update(data)
        self.crc = zlib.crc32(data, self.crc)
        self.length += len(data)
        if self.deflate is not None:
            self._emit(self.deflate.compress(data))
            return
        for start in range(0, len(data), STORED):
            piece = data[start : start + STORED]
            self._emit(struct.pack("<BHH", 0, len(piece), len(piece) ^ 0xFFFF))
            self._emit(piece)

    def finish(self) -> None:
        self._emit(self.deflate.flush() if self.deflate is not None else _FINAL_STORED)
        self._emit(struct.pack("<II", self.crc, self.length & 0xFFFFFFFF))

    def _emit(self, data: bytes | memoryview) -> None:
        self.packed.update(data)
        self.size += len(data)
        self.out.write(data)


class Blocks:
    """Bytes gathered into BLOCK-sized pieces, each handed to `sink` as it fills; files are
    read straight into the block (`readinto`, no copy of their own)."""

    def __init__(self, sink: Callable[[memoryview], None]) -> None:
        self.sink = sink
        self.view = memoryview(bytearray(BLOCK))
        self.fill = 0
        self.offset = 0  # bytes so far

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = min(len(view), BLOCK - self.fill)
            self.view[self.fill : self.fill + n] = view[:n]
            view = view[n:]
            self._advance(n)

    def copy(self, src: io.RawIOBase, size: int, progress: Callable[[int], None] | None) -> None:
        """Exactly `size` bytes of `src` (tarfile's `copyfileobj`: a shorter file is an error,
        a longer one is cut at the size its header says)."""
        left = size
        while left:
            n = src.readinto(self.view[self.fill : self.fill + min(left, BLOCK - self.fill)])
            if not n:
                raise OSError("unexpected end of data")
            left -= n
            self._advance(n)
            if progress:
                progress(n)

    def drain(self, src: IO[bytes]) -> None:
        """Everything `src` still holds (a stream of unknown length)."""
        while n := src.readinto(self.view[self.fill :]):  # type: ignore[attr-defined]
            self._advance(n)

    def close(self) -> None:
        if self.fill:
            self.sink(self.view[: self.fill])
            self.fill = 0

    def _advance(self, n: int) -> None:
        self.fill += n
        self.offset += n
        if self.fill == BLOCK:
            self.sink(self.view)
            self.fill = 0


def pack(
    root: Path,
    entries: Sequence[Entry],
    out: IO[bytes],
    level: int,
    progress: Callable[[int], None] | None = None,
) -> Gzip:
    """The layer of `entries` written to `out` as gzip; its hashes and size on the result."""
    packed = Gzip(out, level)
    blocks = Blocks(packed.block)
    write_tar(root, entries, blocks, progress)
    blocks.close()
    packed.finish()
    return packed


def write_tar(
    root: Path,
    entries: Sequence[Entry],
    out: Blocks,
    progress: Callable[[int], None] | None = None,
) -> None:
    """The reproducible tar of `entries` (under app/), as tarfile's PAX stream writer has it."""
    for entry in with_parents(entries):
        info = tarfile.TarInfo(f"app/{entry.path}" if entry.path else "app")
        info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
        info.mode = entry.mode
        if entry.kind == "dir":
            info.type = tarfile.DIRTYPE
            out.write(_header(info))
        elif entry.kind == "symlink":
            info.type, info.linkname = tarfile.SYMTYPE, entry.target
            out.write(_header(info))
        else:
            with open(root / entry.path, "rb", buffering=0) as src:
                info.size = os.fstat(src.fileno()).st_size
                out.write(_header(info))
                out.copy(src, info.size, progress)
            if info.size % _TAR_BLOCK:
                out.write(bytes(_TAR_BLOCK - info.size % _TAR_BLOCK))
    out.write(bytes(2 * _TAR_BLOCK))
    if out.offset % _RECORD:
        out.write(bytes(_RECORD - out.offset % _RECORD))


def _header(info: tarfile.TarInfo) -> bytes:
    """`info.tobuf` in PAX format, built directly when no extended header is needed (an ASCII
    name and link target of at most 100 characters, a size under 8 GiB): tobuf costs 40 us a
    member, a third of the pack's Python time over 8000 members. The fields are tarfile's (POSIX
    ustar: name, mode, uid, gid, size, mtime in octal with a NUL, the checksum as six digits, a
    NUL and a space; device fields empty, as Python 3.11.4+ writes them for other types), so
    the bytes are tobuf's (tests/image/test_tarball.py compares them)."""
    name, link = info.name, info.linkname
    if info.type == tarfile.DIRTYPE and not name.endswith("/"):
        name += "/"  # as TarInfo.get_info has it
    if not (name.isascii() and link.isascii() and len(name) <= 100 and len(link) <= 100):
        return info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape")
    if not 0 <= info.size < 8**11:
        return info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape")
    head = b"".join(
        (
            name.encode().ljust(100, b"\0"),
            b"%07o\0" % (info.mode & 0o7777),
            b"0000000\0" * 2,  # uid, gid
            b"%011o\0" % info.size,
            b"00000000000\0",  # mtime
            b"        ",  # the checksum, as spaces while it is summed
            info.type,
            link.encode().ljust(100, b"\0"),
            tarfile.POSIX_MAGIC,
        )
    ).ljust(_TAR_BLOCK, b"\0")  # no user or group name, no device numbers, no prefix
    return head[:148] + b"%06o\0" % sum(head) + head[155:]


def with_parents(entries: Sequence[Entry]) -> list[Entry]:
    """`entries` plus `app` and every parent directory, sorted by path (parents first)."""
    out = {e.path: e for e in entries}
    out[""] = Entry("", "dir", 0o755)
    for entry in entries:
        parts = entry.path.split("/")[:-1]
        for i in range(len(parts)):
            parent = "/".join(parts[: i + 1])
            out.setdefault(parent, Entry(parent, "dir", 0o755))
    return sorted(out.values(), key=lambda e: e.path.split("/") if e.path else [])
