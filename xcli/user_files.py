"""Reading the files a user names (flags, config files) and checking folders xcli will write.

One rule for every file xcli reads on a user's behalf: it must be a regular file (checked with
stat before it is opened, and opened non-blocking, so a FIFO or a device is never waited on), no
larger than the flag's limit (checked before reading), and text in UTF-8 without NUL bytes. Each
failure is one UserError naming the flag (or file) and, for bad text, the byte offset.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from xcli.errors import UserError

KIB = 1024
MIB = 1024 * KIB


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size(count: int) -> str:
    if count >= MIB:
        return f"{count / MIB:.1f} MiB"
    if count >= KIB:
        return f"{count / KIB:.0f} KiB"
    return f"{count} bytes"


def expand_home(path: Path | str, what: str) -> Path:
    """`path` with `~` or `~user` expanded; a user this machine does not know is one error
    (Path.expanduser raises RuntimeError for it)."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        user = str(path)[1:].split("/", 1)[0]
        raise UserError(
            f"{what} {path}: there is no user {user!r} on this machine",
            hint="write the full path, or ~/ for your own home folder",
        ) from None


def read_bytes(path: Path | str, what: str, limit: int, why: str = "") -> bytes:
    """The bytes of a regular file of at most `limit` bytes; `what` names it in messages."""
    # "--metadata-from-file KEY=" + FILE reads as the user typed it
    label = f"{what}{path}" if what.endswith("=") else f"{what} {path}"
    path = expand_home(path, what)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UserError(f"{label}: no such file", hint="check the file name") from None
    except NotADirectoryError:
        raise UserError(
            f"{label}: a part of the path is a file, not a folder",
            hint="check the file name",
        ) from None
    except OSError as exc:
        raise UserError(f"{label}: {exc.strerror}", hint="check the file name") from None
    if not stat.S_ISREG(info.st_mode):
        raise UserError(
            f"{label} is {_kind(info.st_mode)}, not a regular file",
            hint="name a regular file",
        )
    if info.st_size > limit:
        reason = f" ({why})" if why else ""
        raise UserError(
            f"{label} is {_size(info.st_size)}; the limit is {_size(limit)}{reason}",
            hint="make the file smaller",
        )
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO after the stat, open does not wait
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UserError(f"{label}: {exc.strerror}", hint="check its permissions") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise UserError(f"{label} is not a regular file", hint="name a regular file")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise UserError(f"{label} grew past {_size(limit)}", hint="make the file smaller")
    return data


def read_text(path: Path | str, what: str, limit: int, why: str = "") -> str:
    """A regular file's UTF-8 text (no NUL bytes), at most `limit` bytes."""
    data = read_bytes(path, what, limit, why)
    return decode(data, f"{what}{path}" if what.endswith("=") else f"{what} {path}")


def decode(data: bytes, where: str) -> str:
    """UTF-8 text, or one error naming where and the byte offset of the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(
            f"{where} is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}",
            hint="save the file as UTF-8 text (a binary file cannot be used here)",
        ) from None
    nul = data.find(b"\0")
    if nul >= 0:
        raise UserError(
            f"{where} is not text: a NUL byte at offset {nul}",
            hint="save the file as UTF-8 text (a binary file cannot be used here)",
        )
    return text


def check_writable_file(path: Path | str, what: str, *, folder_exists: bool = False) -> Path:
    """A file xcli will write: not an existing folder, and in a folder it can write into
    (`folder_exists`: a folder that exists already, for writers that do not create it)."""
    target = expand_home(path, what)
    if target.is_dir():
        raise UserError(
            f"{what} {path} is a folder, not a file",
            hint=f"name a file, e.g. {what} {target / 'out.yaml'}",
        )
    if folder_exists and not target.parent.exists():
        raise UserError(
            f"{what} {path}: the folder {target.parent} does not exist",
            hint="create it first, or name a file in a folder that exists",
        )
    check_writable_folder(target.parent, what)
    return target


def check_writable_folder(path: Path | str, what: str) -> Path:
    """Refuse a folder xcli will create or write into when it, or a parent, is not a folder."""
    target = expand_home(path, what)
    probe = target
    while True:
        try:
            info = probe.stat()
        except FileNotFoundError:
            if probe.parent == probe:
                break
            probe = probe.parent
            continue
        except NotADirectoryError:
            probe = probe.parent
            continue
        except OSError as exc:
            raise UserError(
                f"{what} {path}: {exc.strerror}", hint="choose another folder"
            ) from None
        if not stat.S_ISDIR(info.st_mode):
            where = "is" if probe == target else f"is under {probe}, which is"
            raise UserError(
                f"{what} {path} {where} a file, not a folder",
                hint="choose another folder, or move that file away",
            )
        break
    return target
