"""An exclusive lock shared by every xcli process that edits one file, and whole-file writes.

A read-modify-write of a shared file (known_hosts) under a thread lock only keeps one process's
threads apart: two xcli processes could each read the old file and the second rename would drop
the first one's lines. The lock and the owner-only atomic write live in xcli/state_files.py,
which every layer may use; this module keeps the names the gateways already import.
"""

from __future__ import annotations

from pathlib import Path

from xcli.state_files import locked, write_private

__all__ = ["locked", "replace_text"]


def replace_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically and owner-only (xcli/state_files.py)."""
    write_private(path, text)
