"""A pseudo-terminal to run a process on and a small terminal model to replay what it drew
(issue 36: the live progress table and worker output on one terminal)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import termios
from collections.abc import Callable, Mapping, Sequence


def run_on_pty(argv: Sequence[str], env: Mapping[str, str], cwd: str | None = None) -> bytes:
    """Run `argv` with stdin, stdout and stderr on one pty (120x50, TERM=xterm-256color, no
    NO_COLOR); every byte it wrote. Fails with the tail of the output if it exits non-zero."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
    env = {k: v for k, v in env.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.Popen(
        list(argv), stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, close_fds=True
    )
    os.close(slave)
    data = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    assert proc.wait(timeout=120) == 0, data.decode(errors="replace")[-2000:]
    return bytes(data)


CSI = re.compile(rb"\x1b\[([?0-9;]*)([A-Za-z])")


class Screen:
    """Just enough of a terminal for rich's live display: text, CR, LF, cursor up/down,
    column, erase in line; colours and cursor visibility ignored. Rows never scroll away.

    A collision is a row holding both marks, checked after every character drawn; or, given
    `collides`, a row it calls one, checked whenever the cursor leaves the row (line feed,
    cursor up or down) and at the end."""

    def __init__(
        self,
        progress: str = "PROGRESS",
        worker: str = "WORKER",
        collides: Callable[[str], bool] | None = None,
    ) -> None:
        self.marks = (progress, worker)
        self.collides = collides
        self.rows: list[list[str]] = [[]]
        self.row = self.col = 0
        self.collisions: list[str] = []

    def _line(self) -> list[str]:
        while len(self.rows) <= self.row:
            self.rows.append([])
        return self.rows[self.row]

    def text(self, row: int) -> str:
        return "".join(self.rows[row]).rstrip()

    def lines(self) -> list[str]:
        return [self.text(r) for r in range(len(self.rows))]

    def feed(self, data: bytes) -> None:
        at = 0
        while at < len(data):
            m = CSI.match(data, at)
            if m is not None:
                self._csi(m.group(1).decode(), m.group(2).decode())
                at = m.end()
                continue
            byte = data[at : at + 1]
            at += 1
            if byte == b"\r":
                self.col = 0
            elif byte == b"\n":
                self._leaving()
                self.row += 1
                self._line()
            elif byte == b"\x1b":
                raise AssertionError(f"escape the model does not know: {data[at - 1 : at + 8]!r}")
            elif byte >= b" ":
                line = self._line()
                while len(line) <= self.col:
                    line.append(" ")
                line[self.col] = byte.decode()
                self.col += 1
                now = self.text(self.row)
                if self.collides is None and all(mark in now for mark in self.marks):
                    self._collision(now)

    def _collision(self, text: str) -> None:
        if text not in self.collisions:
            self.collisions.append(text)

    def _leaving(self) -> None:
        if self.collides is not None and self.row < len(self.rows):
            now = self.text(self.row)
            if self.collides(now):
                self._collision(now)

    def end(self) -> None:
        for row in range(len(self.rows)):
            if self.collides is not None and self.collides(self.text(row)):
                self._collision(self.text(row))

    def _csi(self, params: str, final: str) -> None:
        n = int(params) if params.isdigit() else 1
        if final == "A":
            self._leaving()
            self.row = max(0, self.row - n)
        elif final == "B":
            self._leaving()
            self.row += n
        elif final == "G":
            self.col = n - 1
        elif final == "K":
            line = self._line()
            mode = int(params or 0)
            if mode == 2:
                line.clear()
            elif mode == 0:
                del line[self.col :]
            else:
                line[: self.col] = [" "] * min(self.col, len(line))
        elif final not in "mhl":  # colours, cursor shown or hidden
            raise AssertionError(f"CSI {params}{final} is not modelled")
