"""The image-layer cache is owner-only whatever the umask, refused when another user owns or
may write it, and verified by digest on reuse: a layer someone rewrote is built again, never
pushed (issue 37, Security)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import stat
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from xcli.errors import UserError
from xcli.image import context
from xcli.image.layers import Store


@pytest.fixture(params=[0o000, 0o022])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    root.mkdir()
    (root / "train.py").write_text("print('the real training')\n")
    return root


def _wider(root: Path) -> list[str]:
    return [
        f"{p.relative_to(root)} {stat.S_IMODE(p.stat().st_mode):o}"
        for p in [root, *root.rglob("*")]
        if stat.S_IMODE(p.stat().st_mode) & 0o077
    ]


def _train_py(store: Store, digest: str) -> bytes:
    data = gzip.decompress(store.blob(digest).read_bytes())
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        member = tar.extractfile("app/train.py")
        assert member is not None
        return member.read()


def test_the_cache_is_owner_only_whatever_the_umask(
    umask: int, folder: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "cache")
    store.build(context.scan(folder))
    assert _wider(tmp_path / "cache") == []


def test_a_rewritten_layer_is_built_again_not_reused(folder: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "cache")
    (layer,) = store.build(context.scan(folder))
    blob = store.blob(layer.digest)
    evil = bytearray(blob.read_bytes())
    evil[-12] ^= 0xFF  # same size, other bytes
    os.chmod(blob, 0o600)
    blob.write_bytes(bytes(evil))
    (again,) = store.build(context.scan(folder))
    assert again.digest == layer.digest
    assert hashlib.sha256(blob.read_bytes()).hexdigest() == layer.digest[7:]
    assert _train_py(store, again.digest) == b"print('the real training')\n"


def test_a_record_others_may_write_is_not_trusted(folder: Path, tmp_path: Path) -> None:
    """Another user (the record is writable by others) points the record at their own,
    well-formed layer: the next run builds the real one instead of pushing theirs."""
    store = Store(tmp_path / "cache")
    (layer,) = store.build(context.scan(folder))
    evil_src = tmp_path / "evil"
    evil_src.mkdir()
    (evil_src / "train.py").write_text("print('another user's code')\n")
    (evil,) = Store(tmp_path / "evil-cache").build(context.scan(evil_src))
    evil_blob = Store(tmp_path / "evil-cache").blob(evil.digest)
    store.blob(evil.digest).write_bytes(evil_blob.read_bytes())
    os.chmod(store.blob(evil.digest), 0o600)
    (record,) = (tmp_path / "cache" / "layers").glob("*.json")
    fields = json.loads(record.read_text())
    record.write_text(json.dumps({**fields, "digest": evil.digest, "size": evil.size}))
    os.chmod(record, 0o666)
    (again,) = store.build(context.scan(folder))
    assert again.digest == layer.digest
    assert stat.S_IMODE(record.stat().st_mode) == 0o600


def test_a_cache_another_user_owns_is_refused(folder: Path, tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir(mode=0o700)
    other = Store(tmp_path / "cache", uid=os.getuid() + 1)  # as another user sees it
    with pytest.raises(UserError) as info:
        other.build(context.scan(folder))
    assert "the image-layer cache" in info.value.message
    assert "belongs to another user" in info.value.message
    assert "XCLI_IMAGE_CACHE" in info.value.hint and "chown -R" in info.value.hint


def test_a_cache_others_may_write_is_refused(folder: Path, tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    os.chmod(tmp_path / "cache", 0o777)
    with pytest.raises(UserError) as info:
        Store(tmp_path / "cache").build(context.scan(folder))
    assert info.value.message.endswith("is writable by other users (mode 777)")
    assert "chmod go-w" in info.value.hint
