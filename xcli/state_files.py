"""How xcli writes its own files (state, records, keys, logs, settings): owner-only, whole, locked.

Three rules, whatever the umask:
- every folder xcli creates is 0700 and every file 0600: the state folder holds SSH keys,
  pinned host keys and the stop commands `workload delete` runs, which another local user must
  not read or edit (issue 26: at umask 000 they were 0666);
- a file is replaced whole (`write_private`): written to a temporary name opened with O_EXCL
  (so a stale or planted `*.tmp` is never reused, nor followed as a link), fchmod'ed to 0600,
  flushed to disk, then renamed over the old one; a failed write leaves the old file and removes
  the temporary one;
- a read-modify-write holds the file's lock (`locked`), flock(2) on a companion `.lock`, so two
  processes never both read the old file and drop each other's change.
  https://man7.org/linux/man-pages/man2/flock.2.html

A write that fails (no space, read-only, permission) is one UserError naming the file; the
state folder is $XCLI_HOME and the settings folder $XDG_CONFIG_HOME/xcli (xcli/paths.py).
Standard library only: every layer may use it (like paths.py).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from xcli.errors import UserError

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """`path` as a folder; each folder created on the way is 0700 (parents included)."""
    missing = []
    probe = path
    while not probe.is_dir():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            if not folder.is_dir():
                raise _failed(folder, "create the folder", errno.EEXIST) from None
            continue  # made meanwhile by another process
        except OSError as exc:
            raise _failed(folder, "create the folder", exc.errno) from None
        os.chmod(folder, DIR_MODE)  # mkdir's mode passes through the umask; never wider
    return path


def write_private(path: Path, data: bytes | str, *, durable: bool = True) -> Path:
    """Replace `path` whole with `data` (text as UTF-8), mode 0600; flushed to disk before the
    rename unless `durable` is False (a cache entry that is checked when read: an fsync there
    makes ext4 write out every file written before it, 0.3 s of a cold image build's pack)."""
    body = data.encode("utf-8") if isinstance(data, str) else data
    private_dir(path.parent)
    # os.urandom is what secrets.token_hex reads; importing secrets (hmac, hashlib) costs every
    # command that only reads
    tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(tmp, flags | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    except OSError as exc:
        raise _failed(path, "write", exc.errno) from None
    try:
        os.fchmod(fd, FILE_MODE)
        view = memoryview(body)
        while view:
            view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except OSError as exc:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _failed(path, "write", exc.errno) from None
    return path


def open_new(path: Path) -> BinaryIO:
    """A new file `path` for writing bytes, created 0600 with O_EXCL (never an existing file or
    a planted link), for a caller that renames it into place when complete."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    except OSError as exc:
        raise _failed(path, "write", exc.errno) from None
    os.fchmod(fd, FILE_MODE)
    return os.fdopen(fd, "wb")


def open_private(path: Path, append: bool = True) -> BinaryIO:
    """`path` opened for writing bytes (appended, else truncated), created 0600."""
    private_dir(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    except OSError as exc:
        raise _failed(path, "write", exc.errno) from None
    os.fchmod(fd, FILE_MODE)
    return os.fdopen(fd, "ab" if append else "wb")


def remove_tree(path: Path) -> None:
    """Remove the folder `path` and all it holds; a failure (read-only, permission) is one
    UserError naming it, never a silent leftover (issue 26: `workload delete` on a read-only
    state folder said "deleted" and deleted nothing)."""
    import shutil

    def failed(_func: object, where: str, exc: BaseException) -> None:
        if not isinstance(exc, FileNotFoundError):  # gone meanwhile: that is the goal
            code = exc.errno if isinstance(exc, OSError) else None
            raise _failed(Path(where), "delete", code) from None

    if path.exists():
        shutil.rmtree(path, onerror=lambda f, w, info: failed(f, w, info[1]))


def writable(folder: Path) -> None:
    """Refuse before anything changes when `folder` cannot be written (a read-only file system,
    no permission): UserError naming it."""
    if folder.exists() and not os.access(folder, os.W_OK):
        code = errno.EROFS if _read_only(folder) else errno.EACCES
        raise _failed(folder, "change", code)


def _read_only(folder: Path) -> bool:
    return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of `path` (flock on PATH.lock next to it) for the block.

    The lock goes with the open file, so a process that dies releases it.
    """
    private_dir(path.parent)
    lock = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    except OSError as exc:
        raise _failed(lock, "lock", exc.errno) from None
    try:
        os.fchmod(fd, FILE_MODE)
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def check_owner(folder: Path, what: str, fix: str, *, uid: int | None = None) -> None:
    """Refuse a folder of xcli's that another user owns or may write (group or others),
    as OpenSSH's StrictModes refuses a key or an authorized_keys another user could edit
    (sshd_config(5), StrictModes; openssh-portable `misc.c:safe_path`: owner the user, no
    group or other write bit): what is in it is run or trusted
    (records whose stop command `workload delete` runs, cached layers that are pushed).
    A folder that does not exist yet passes (xcli creates it 0700). `fix` is how to point xcli
    elsewhere (the variable that moves it)."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _failed(folder, "read", exc.errno) from None
    me = os.getuid() if uid is None else uid
    if st.st_uid != me:
        raise UserError(
            f"{what} {folder} belongs to another user (uid {st.st_uid}, you are {me}): "
            "xcli does not use a folder someone else can fill",
            hint=f"{fix}; if the folder is yours, take it back with "
            f"`chown -R {me} {folder} && chmod 700 {folder}`",
        )
    if st.st_mode & 0o022:
        raise UserError(
            f"{what} {folder} is writable by other users (mode {st.st_mode & 0o777:o})",
            hint=f"check what it holds, then `chmod go-w {folder}` (xcli makes its folders "
            f"700); or {fix}",
        )


def _failed(path: Path, what: str, code: int | None) -> UserError:
    reason = os.strerror(code) if code else "unknown error"
    space = "free some space on that disk and try again"
    access = "check the folder's owner and modes, or point xcli at another folder"
    hints = {
        errno.ENOSPC: space,
        errno.EDQUOT: space,
        errno.EROFS: "that file system is read-only: point xcli at a writable folder",
        errno.EACCES: access,
        errno.EPERM: access,
    }
    hint = hints.get(code or 0, "check that folder and try again")
    return UserError(f"cannot {what} {path}: {reason}", hint=hint)
