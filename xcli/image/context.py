"""The script folder as a list of entries: what goes into the image and what `.dockerignore`
leaves out, checked before anything is built or sent.

Refused, each by name: a folder that is missing or not readable, a device file, a socket or a
FIFO, a file or directory xcli cannot read, a symlink that is absolute or leads outside the
folder, a folder of more than MAX_BYTES (2 GiB) after `.dockerignore` (code and
configuration belong in the image, data sets in storage: `xcli storage attach`), and a file
whose first bytes are a private key or a credential (`image/secrets.py`). Version-control data,
the usual secret paths and Python virtual environments (a folder holding `pyvenv.cfg`, PEP 405:
`python3 -m venv .venv` in the folder, as the README's set-up does) are left out unless included
on purpose, each with its reason (`Context.withheld`).
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass, field
from pathlib import Path

from xcli.errors import UserError
from xcli.image import ignore, secrets

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
    withheld: tuple[tuple[str, str], ...] = ()  # (path, why): secret and VCS paths left out

    @property
    def total_bytes(self) -> int:
        return sum(e.size for e in self.entries)


def scan(root: Path, *, max_bytes: int = MAX_BYTES, include: tuple[str, ...] = ()) -> Context:
    """Walk `root` in sorted order, applying its `.dockerignore` and leaving out the secret
    and VCS paths it or `include` (`--script-include`) does not name; refuse what cannot go in."""
    if not root.is_dir():
        what = "does not exist" if not root.exists() else "is not a folder"
        raise UserError(f"script folder {root} {what}", hint="pass --script-dir DIR")
    if not os.access(root, os.R_OK | os.X_OK):
        raise UserError(f"script folder {root} is not readable", hint="check its permissions")
    patterns = ignore.parse(_read_ignore(root), where=str(root / ".dockerignore"))
    keep_walking = any(p.exception for p in patterns)
    walk = _Walk(root, patterns, secrets.includes(patterns, include), keep_walking)
    walk.folder("")
    context = Context(root, tuple(walk.entries), tuple(walk.left_out), tuple(walk.withheld))
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


@dataclass
class _Walk:
    root: Path
    patterns: tuple[ignore.Pattern, ...]
    includes: tuple[ignore.Pattern, ...]
    keep_walking: bool
    entries: list[Entry] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    withheld: list[tuple[str, str]] = field(default_factory=list)

    def folder(self, rel: str) -> None:
        folder = self.root / rel if rel else self.root
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            raise UserError(
                f"cannot read {folder}: {exc.strerror}", hint="check its permissions"
            ) from None
        for name in names:
            self.one(f"{rel}/{name}" if rel else name, folder / name)

    def one(self, path: str, full: Path) -> None:
        st = os.lstat(full)
        is_dir = stat.S_ISDIR(st.st_mode)
        out = ignore.excluded(path, self.patterns)
        if out:
            self.left_out.append(printable(path))
        elif printable(full.name) != full.name:
            raise UserError(
                f"{full.parent / printable(full.name)}: the name is not UTF-8, which an "
                "image's file names must be",
                hint="rename it with a UTF-8 name, or leave out its folder in .dockerignore",
            )
        wanted = secrets.included(path, self.includes)
        why = None if out or wanted else secrets.reason(path)
        if why is None and is_dir and not out and not wanted and _is_venv(full):
            why = VENV
        if why is not None and not (is_dir and secrets.includes_below(path, self.includes)):
            self.withheld.append((path, why))
            return
        if is_dir:
            if not out:
                if not os.access(full, os.R_OK | os.X_OK):
                    raise _unreadable(self.root, path)
                self.entries.append(Entry(path, "dir", 0o755, mtime_ns=st.st_mtime_ns))
            if not out or self.keep_walking:
                self.folder(path)
        elif not out:
            entry = _entry(self.root, path, full, st)
            if entry.kind == "file" and not wanted:
                _refuse_secret(self.root, path, full, st)
            self.entries.append(entry)


# PEP 405: "a pyvenv.cfg file ... in the directory" is what makes a folder a virtual
# environment. Its interpreter is a link to this machine's python (outside the folder, which is
# refused) and its packages are built for this machine: an image installs its own.
VENV = "a Python virtual environment of this machine (pyvenv.cfg): the image installs its own"


def _is_venv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file()


def _refuse_secret(root: Path, path: str, full: Path, st: os.stat_result) -> None:
    if st.st_size > secrets.SNIFF_MAX_SIZE:
        return
    try:
        with open(full, "rb") as f:
            head = f.read(secrets.SNIFF_BYTES)
    except OSError:
        raise _unreadable(root, path) from None
    what = secrets.looks_secret(head)
    if what is not None:
        raise UserError(
            f"{root / path} looks like {what}: xcli does not pack it into an image",
            hint=f"remove it from the folder or list it in .dockerignore; to pack it on "
            f"purpose, pass --script-include {path}",
        )


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
