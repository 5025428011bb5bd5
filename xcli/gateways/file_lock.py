"""An exclusive lock shared by every xcli process that edits one file (fcntl.flock).

A read-modify-write of a shared file (known_hosts) under a thread lock only keeps one process's
threads apart: two xcli processes could each read the old file and the second rename would drop
the first one's lines. flock(2) on a companion `.lock` file serialises them all; the lock goes
with the open file, so a process that dies releases it.
https://man7.org/linux/man-pages/man2/flock.2.html
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of `path` (on PATH.lock next to it) for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def replace_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically, through a temp name no other process uses."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
