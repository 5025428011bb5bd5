"""Write a debug bundle: named files in one .tar.gz (`xcli cluster inspect`)."""

from __future__ import annotations

import io
import tarfile
import time
from collections.abc import Mapping
from pathlib import Path


def write_archive(path: Path, folder: str, files: Mapping[str, bytes]) -> int:
    """Write `files` (name -> bytes) under `folder/` in a gzip'd tar at `path`, readable only
    by its owner (it describes the cluster); the number of bytes written."""
    now = time.time()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size, info.mtime, info.mode = len(data), int(now), 0o600
            tar.addfile(info, io.BytesIO(data))
    path.chmod(0o600)
    return path.stat().st_size
