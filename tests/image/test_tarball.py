"""The one-pass layer writer (image/tarball.py): the tar is byte for byte what tarfile's PAX
stream writer makes of the same members (so DiffIDs and tags stay those of earlier versions),
the gzip member is valid, holds that tar and is hashed as written, and the same input gives the
same blob."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import zlib
from pathlib import Path

import pytest

from xcli.image import context, tarball
from xcli.image.context import Entry


def _reference_tar(root: Path, entries: list[Entry]) -> bytes:
    """The tar as xcli wrote it before the one-pass writer: tarfile.open(mode="w|", PAX)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar:
        for entry in tarball.with_parents(entries):
            info = tarfile.TarInfo(f"app/{entry.path}" if entry.path else "app")
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            info.mode = entry.mode
            if entry.kind == "dir":
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif entry.kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, entry.target
                tar.addfile(info)
            else:
                with (root / entry.path).open("rb") as src:
                    info.size = os.fstat(src.fileno()).st_size
                    tar.addfile(info, src)
    return out.getvalue()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "empty").write_bytes(b"")
    (root / "one-block").write_bytes(b"x" * 512)
    (root / "a" / "b" / "c" / "deep.py").write_text("print(1)\n" * 1000)
    (root / "big.bin").write_bytes(os.urandom(tarball.BLOCK * 2 + 12345))  # across blocks
    (root / ("n" * 150)).write_text("a name longer than ustar's 100 bytes")
    (root / "caf\u00e9 \u65e5\u672c.txt").write_text("non-ASCII name")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "link").symlink_to("a/b/c/deep.py")
    (root / ("l" * 120)).symlink_to("n" * 150)  # a long link target too
    return root


def _tar_of(root: Path, entries: list[Entry]) -> bytes:
    out = bytearray()
    blocks = tarball.Blocks(lambda view: out.extend(view))
    tarball.write_tar(root, entries, blocks)
    blocks.close()
    return bytes(out)


def test_the_tar_is_tarfiles_pax_stream_byte_for_byte(tree: Path) -> None:
    entries = list(context.scan(tree).entries)
    ours = _tar_of(tree, entries)
    assert ours == _reference_tar(tree, entries)
    assert len(ours) % tarfile.RECORDSIZE == 0
    for subset in (entries[:1], entries[1:3], [e for e in entries if e.kind == "file"][-2:]):
        assert _tar_of(tree, subset) == _reference_tar(tree, subset)


@pytest.mark.parametrize("level", [0, 1])
def test_the_blob_is_gzip_of_the_tar_hashed_as_written(tree: Path, level: int) -> None:
    entries = list(context.scan(tree).entries)
    out = io.BytesIO()
    packed = tarball.pack(tree, entries, out, level)
    blob = out.getvalue()
    tar = _reference_tar(tree, entries)
    assert gzip.decompress(blob) == tar
    assert packed.plain.hexdigest() == hashlib.sha256(tar).hexdigest()  # the DiffID
    assert packed.packed.hexdigest() == hashlib.sha256(blob).hexdigest()
    assert packed.size == len(blob)
    # the header GzipFile writes with no name and mtime 0 at this level
    with io.BytesIO() as ref:
        with gzip.GzipFile(filename="", mode="wb", fileobj=ref, mtime=0, compresslevel=level):
            pass
        assert blob[:10] == ref.getvalue()[:10]
    again = io.BytesIO()
    tarball.pack(tree, entries, again, level)
    assert again.getvalue() == blob  # the same folder, the same blob
    if level == 0:  # stored: the tar plus 5 bytes a block, and the same with any zlib
        blocks = -(-len(tar) // tarball.STORED)
        assert len(blob) == 10 + len(tar) + 5 * blocks + 5 + 8


@pytest.mark.parametrize(
    "size", [0, 1, tarball.STORED, tarball.STORED + 1, tarball.BLOCK, 3 * tarball.BLOCK + 7]
)
def test_stored_blocks_of_any_length_inflate(size: int) -> None:
    data = os.urandom(size)
    out = io.BytesIO()
    packed = tarball.Gzip(out, 0)
    blocks = tarball.Blocks(packed.block)
    blocks.write(data)
    blocks.close()
    packed.finish()
    blob = out.getvalue()
    assert gzip.decompress(blob) == data
    assert zlib.decompress(blob, 31) == data  # zlib's own gzip reader, trailer checked
    assert blob[-8:] == (zlib.crc32(data)).to_bytes(4, "little") + size.to_bytes(4, "little")


def test_a_file_that_shrinks_while_packed_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    (root / "f").write_bytes(b"12345")
    entry = Entry("f", "file", 0o644, size=5)

    class Shrinking(tarball.Blocks):
        def copy(self, src, size, progress):  # type: ignore[no-untyped-def]
            super().copy(src, size + 1, progress)

    with pytest.raises(OSError, match="unexpected end of data"):
        tarball.write_tar(root, [entry], Shrinking(lambda view: None))


@pytest.mark.parametrize(
    ("name", "kind", "size", "link"),
    [
        ("app", tarfile.DIRTYPE, 0, ""),
        ("app/" + "d" * 96, tarfile.DIRTYPE, 0, ""),  # exactly 100
        ("app/" + "d" * 97, tarfile.DIRTYPE, 0, ""),  # 101: an extended header
        ("app/f.py", tarfile.REGTYPE, 0, ""),
        ("app/f.bin", tarfile.REGTYPE, 8**11 - 1, ""),
        ("app/huge.bin", tarfile.REGTYPE, 8**11, ""),  # 8 GiB: the size goes to a PAX record
        ("app/l", tarfile.SYMTYPE, 0, "x" * 100),
        ("app/l", tarfile.SYMTYPE, 0, "x" * 101),
        ("app/caf\u00e9", tarfile.REGTYPE, 3, ""),
        ("app/l", tarfile.SYMTYPE, 0, "\u65e5"),
    ],
)
@pytest.mark.parametrize("mode", [0o755, 0o644, 0o777])
def test_a_header_is_tobufs(name: str, kind: bytes, size: int, link: str, mode: int) -> None:
    info = tarfile.TarInfo(name)
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    info.mode, info.type, info.size, info.linkname = mode, kind, size, link
    expected = info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape")
    assert tarball._header(info) == expected


def test_without_isal_zlib_compresses_the_same_tar(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    entries = list(context.scan(tree).entries)
    assert type(tarball.compressor(1)).__module__.startswith("isal")  # a dependency: installed
    with_isal = io.BytesIO()
    tarball.pack(tree, entries, with_isal, 1)
    monkeypatch.setitem(sys.modules, "isal", None)  # `import isal` raises ImportError
    assert type(tarball.compressor(1)).__module__ in ("zlib", "builtins")
    with_zlib = io.BytesIO()
    packed = tarball.pack(tree, entries, with_zlib, 1)
    assert gzip.decompress(with_zlib.getvalue()) == gzip.decompress(with_isal.getvalue())
    assert packed.plain.hexdigest() == hashlib.sha256(_reference_tar(tree, entries)).hexdigest()
