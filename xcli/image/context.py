"""The script folder as a list of entries: what goes into the image and what `.dockerignore`
leaves out, checked before anything is built or sent.

Refused, each by name: a folder that is missing or not readable, a device file, a socket or a
FIFO, a file or directory xcli cannot read, a symlink that is absolute or leads outside the
folder, and a folder of more than MAX_BYTES (2 GiB) after `.dockerignore`: code and
configuration belong in the image, data sets in storage (`xcli storage attach`).
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path

from xcli.errors import UserError
from xcli.image import ignore

MAX_BYTES = 2 * 1024**3
_TOO_BIG_HINT = (
    "list large or generated files (data, checkpoints, .venv, .git) in DIR/.dockerignore, "
    "and attach data sets as storage (xcli storage attach) instead of baking them in"
)


@dataclass(frozen=True)
class Entry:
    """One path of the folder as it goes into a layer (under /app)."""

    path: str  # relative, slash-separated
    kind: str  # "file", "dir" or "symlink"
    mode: int  # normalised: 0o755 for directories and executables, 0o644 files, 0o777 links
    size: int = 0
    mtime_ns: int = 0  # for the build cache only; the tar always says 0
    target: str = ""  # a symlink's target, as written


@dataclass(frozen=True)
class Context:
    root: Path
    entries: tuple[Entry, ...]
    excluded: tuple[str, ...]

    @property
    def total_bytes(self) -> int:
        return sum(e.size for e in self.entries)


def scan(root: Path, *, max_bytes: int = MAX_BYTES) -> Context:
    """Walk `root` in sorted order, applying its `.dockerignore`; refuse what cannot go in."""
    if not root.is_dir():
        what = "does not exist" if not root.exists() else "is not a folder"
        raise UserError(f"script folder {root} {what}", hint="pass --script-dir DIR")
    if not os.access(root, os.R_OK | os.X_OK):
        raise UserError(f"script folder {root} is not readable", hint="check its permissions")
    patterns = ignore.parse(_read_ignore(root), where=str(root / ".dockerignore"))
    keep_walking = any(p.exception for p in patterns)
    entries: list[Entry] = []
    left_out: list[str] = []
    _walk(root, "", patterns, keep_walking, entries, left_out)
    context = Context(root, tuple(entries), tuple(left_out))
    if context.total_bytes > max_bytes:
        raise UserError(
            f"script folder {root} holds {context.total_bytes / 1024**2:.0f} MiB after "
            f".dockerignore, over the {max_bytes / 1024**2:.0f} MiB limit",
            hint=_TOO_BIG_HINT,
        )
    return context


def _read_ignore(root: Path) -> str:
    path = root / ".dockerignore"
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {path}: {exc}", hint="check the file") from None


def _walk(
    root: Path,
    rel: str,
    patterns: tuple[ignore.Pattern, ...],
    keep_walking: bool,
    entries: list[Entry],
    left_out: list[str],
) -> None:
    folder = root / rel if rel else root
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        raise UserError(
            f"cannot read {folder}: {exc.strerror}", hint="check its permissions"
        ) from None
    for name in names:
        path = f"{rel}/{name}" if rel else name
        full = folder / name
        st = os.lstat(full)
        out = ignore.excluded(path, patterns)
        if out:
            left_out.append(printable(path))
        elif printable(name) != name:
            raise UserError(
                f"{folder / printable(name)}: the name is not UTF-8, which an image's file "
                "names must be",
                hint="rename it with a UTF-8 name, or leave out its folder in .dockerignore",
            )
        if stat.S_ISDIR(st.st_mode):
            if not out:
                if not os.access(full, os.R_OK | os.X_OK):
                    raise _unreadable(root, path)
                entries.append(Entry(path, "dir", 0o755, mtime_ns=st.st_mtime_ns))
            if not out or keep_walking:
                _walk(root, path, patterns, keep_walking, entries, left_out)
        elif not out:
            entries.append(_entry(root, path, full, st))


def printable(text: str) -> str:
    """A name as UTF-8 text: bytes that are not UTF-8 (os.listdir keeps them as surrogates,
    PEP 383) become U+FFFD, so the name can be printed or written into a tar header."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _entry(root: Path, path: str, full: Path, st: os.stat_result) -> Entry:
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(full)
        inside = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        if posixpath.isabs(target) or inside == ".." or inside.startswith("../"):
            raise UserError(
                f"{root / path} is a symlink to {target}, outside the script folder",
                hint="copy what it points to into the folder, or list the link in .dockerignore",
            )
        return Entry(path, "symlink", 0o777, mtime_ns=st.st_mtime_ns, target=target)
    if not stat.S_ISREG(st.st_mode):
        kind = "a socket" if stat.S_ISSOCK(st.st_mode) else "a FIFO or device file"
        raise UserError(
            f"{root / path} is {kind}, which cannot go into an image",
            hint="remove it or list it in .dockerignore",
        )
    if not os.access(full, os.R_OK):
        raise _unreadable(root, path)
    mode = 0o755 if st.st_mode & 0o111 else 0o644
    return Entry(path, "file", mode, size=st.st_size, mtime_ns=st.st_mtime_ns)


def _unreadable(root: Path, path: str) -> UserError:
    return UserError(
        f"{root / path} is not readable", hint="fix its permissions or list it in .dockerignore"
    )
