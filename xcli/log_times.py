"""When each line of a VM-style workload's log arrived (`workload logs --timestamps`, issue 36).

The runner (in the foreground, or the detached driver) writes each worker's output to
`<label>.log` as it reads it; beside it, `<label>.times` gets one line per write: the log's size
after the write and the wall-clock time of the read, `<end> <seconds since the epoch>`. A line's
time is that of the write that brought its newline: the time xcli read the line from the
worker's SSH stream on this machine, not the time the program printed it (the program needs no
clock; the difference is the stream's delay). A log with no times beside it (a run from before
this file existed) gets the log file's modification time for every line, which says when its
last line came and nothing more.

Imports nothing of xcli: the output sink (gateways) writes the file and the VM kind's reads
(workload) read it.
"""

from __future__ import annotations

import bisect
from pathlib import Path

SUFFIX = ".times"


def times_path(log: Path) -> Path:
    return log.with_suffix(SUFFIX)


def record(end: int, at: float) -> bytes:
    """One write's line: the log's size after it, the time it was read."""
    return f"{end} {at:.6f}\n".encode()


class LineClock:
    """A log's times, read incrementally (a followed log grows): `at(end)` is the time of the
    line that ends at byte offset `end` of the log."""

    def __init__(self, log: Path) -> None:
        self.path = times_path(log)
        self.log = log
        self._ends: list[int] = []
        self._times: list[float] = []
        self._offset = 0
        self._pending = b""
        self.recorded = self.path.is_file()

    def refresh(self) -> None:
        if not self.recorded:
            return
        try:
            with self.path.open("rb") as f:
                f.seek(self._offset)
                data = self._pending + f.read()
                self._offset = f.tell()
        except OSError:
            return
        cut = data.rfind(b"\n") + 1
        self._pending = data[cut:]
        for raw in data[:cut].splitlines():
            end, _, at = raw.partition(b" ")
            try:
                value, when = int(end), float(at)
            except ValueError:
                continue  # a torn or foreign line: the next record covers its bytes
            if not self._ends or value > self._ends[-1]:
                self._ends.append(value)
                self._times.append(when)

    def at(self, end: int) -> float:
        i = bisect.bisect_left(self._ends, end)
        if i < len(self._ends):
            return self._times[i]
        try:  # not recorded (an older run), or its record not written yet
            return self.log.stat().st_mtime
        except OSError:
            return self._times[-1] if self._times else 0.0
