"""Files named by the user: regular files only, a size cap before reading, UTF-8 text."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from xcli.errors import UserError
from xcli.user_files import check_writable_folder, read_text


def test_a_regular_utf8_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("héllo\n", encoding="utf-8")
    assert read_text(tmp_path / "f", "--flag", 100) == "héllo\n"


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = threading.Event()

    def call() -> None:
        with pytest.raises(UserError, match="named pipe"):
            read_text(fifo, "--env-file", 100)
        done.set()

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(5)
    assert done.is_set(), "reading a FIFO blocked"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("/dev/zero", "is a device, not a regular file"),
        ("missing", "no such file"),
        ("folder", "is a folder, not a regular file"),
        ("a-file/below", "a part of the path is a file"),
    ],
)
def test_what_is_not_a_regular_file_is_refused(tmp_path: Path, name: str, message: str) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(UserError, match=message) as err:
        read_text(tmp_path / name if not name.startswith("/") else name, "--flag", 100)
    assert err.value.hint


def test_the_size_cap_is_checked_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.write_bytes(b"x" * 300 * 1024)
    with pytest.raises(UserError, match=r"is 300 KiB; the limit is 256 KiB \(the reason\)"):
        read_text(big, "--metadata-from-file startup-script=", 256 * 1024, "the reason")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"A=1\nB=caf\xe9\n", "not UTF-8 text: byte 0xe9 at offset 9"),
        (b"A=1\x00\n", "a NUL byte at offset 3"),
    ],
)
def test_binary_content_names_the_byte_offset(tmp_path: Path, data: bytes, message: str) -> None:
    (tmp_path / "f").write_bytes(data)
    with pytest.raises(UserError, match=message):
        read_text(tmp_path / "f", "--env-file", 100)


def test_a_folder_below_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(UserError, match=r"is under .*a-file, which is a file, not a folder"):
        check_writable_folder(tmp_path / "a-file" / "x" / "y", "--out")
    with pytest.raises(UserError, match=r"a-file is a file, not a folder"):
        check_writable_folder(tmp_path / "a-file", "--out")
    assert check_writable_folder(tmp_path / "new" / "deep", "--out") == tmp_path / "new" / "deep"
