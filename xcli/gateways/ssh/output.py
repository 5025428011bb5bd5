"""What a broadcast prints: prefixed whole lines and per-worker logs. Both SSH engines feed raw
bytes in here. Each worker's stdout and stderr are line-buffered separately and written as
whole lines, `[w3] ...`, under one lock, so lines are never mixed, whatever the engine or
thread; stderr goes to stderr. On a terminal, lines go above a live progress display
(xcli/terminal.py), never into its last line. A line longer than MAX_LINE is written in pieces
of MAX_LINE bytes (a bounded buffer; docs/ssh.md says so). Every worker also gets a log file
with the raw bytes, flushed as each chunk arrives (a follower sees it at once). A sink given a
`marks` file also appends there, as one JSON line with the wall-clock time it was read, every
output line that carries a goodput mark (`XCLI_GOODPUT`, printed by xcli.goodput): the program
needs no clock (docs/goodput.md).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from xcli import paths, terminal
from xcli.log_times import record, times_path
from xcli.state_files import open_private, private_dir

KEEP_RUNS = 20
MAX_LINE = 1 << 20  # a longer line without a newline is written in pieces of this size
MARK = b"XCLI_GOODPUT"  # xcli.goodput's prefix (that module imports nothing, nor is imported)


class OutputSink:
    """Where every worker's output goes: the terminal (prefixed) and one log file per worker."""

    def __init__(
        self,
        stdout: BinaryIO | None,
        stderr: BinaryIO | None,
        log_dir: Path | None,
        append: bool = False,
        marks: Path | None = None,
        show_marks: bool = True,
        times: bool = False,
    ) -> None:
        # beside each log, when each write was read (xcli/log_times.py): a workload's logs
        # print with --timestamps and merge across workers by them (issue 36)
        self.times = times
        self.marks = marks  # goodput marks with the time they were read (JSON lines)
        # False (a workload's live stream): mark lines go to the logs and the marks file only;
        # they are xcli's protocol, and in a 300-step run they were 301 of 374 lines
        self.show_marks = show_marks
        self.append = append  # keep earlier runs' output in the log files (workload restarts)
        self.stdout = stdout
        self.stderr = stderr
        self.log_dir = log_dir
        self.lock = threading.Lock()
        # The reader of our stdout went away (`xcli ssh ... | head`): nothing more goes there,
        # the logs still get everything, and `on_gone` (the run's cancel) is called once.
        self.reader_gone = threading.Event()
        self.on_gone: Callable[[], None] | None = None
        # hears every goodput mark line as it is read, with the time (--hang-after's watch)
        self.on_mark: Callable[[float, bytes], None] | None = None
        if log_dir is not None:
            private_dir(log_dir)  # worker output may hold secrets: owner-only

    def stream(self, label: str) -> WorkerStream:
        log = None
        if self.log_dir is not None:
            log = self.log_dir / (label.replace("/", "-") + ".log")
        return WorkerStream(self, label, log)

    def write(self, out: BinaryIO | None, data: bytes) -> None:
        if out is None or not data:
            return
        with self.lock:
            if self.reader_gone.is_set() and out is self.stdout:
                return

            def put() -> None:
                assert out is not None
                out.write(data)
                out.flush()

            try:
                # on a terminal, above a live progress display if one is up (issue 36)
                if _on_terminal(out):
                    terminal.above(put)
                else:
                    put()
            except BrokenPipeError:
                if out is not self.stdout:
                    raise
                self.reader_gone.set()
                if self.on_gone is not None:
                    self.on_gone()

    def mark(self, label: str, lines: bytes) -> None:
        """Append each goodput line of `lines` to the marks file, timestamped now."""
        if MARK not in lines or (self.marks is None and self.on_mark is None):
            return
        now = time.time()
        found = [line for line in lines.split(b"\n") if MARK in line]
        if self.on_mark is not None:
            for line in found:
                self.on_mark(now, line)
        if self.marks is None:
            return
        records = "".join(
            json.dumps({"at": now, "worker": label, "line": line.decode(errors="replace")}) + "\n"
            for line in found
        )
        with self.lock, open_private(self.marks) as out:
            out.write(records.encode())


@dataclass
class WorkerStream:
    """One worker's two line buffers and its log file."""

    sink: OutputSink
    label: str
    log_path: Path | None
    _pending: dict[bool, bytes] = field(default_factory=lambda: {False: b"", True: b""})
    _log: BinaryIO | None = None
    _times: BinaryIO | None = None
    saw_stdout: bool = False
    # The engine opened a session on the worker (the command started): a run stopped by
    # --timeout from then on counts as the command's timeout (124), not as unreachable.
    connected: bool = False

    def __post_init__(self) -> None:
        self._prefix = f"[{self.label}] ".encode()
        if self.log_path is not None:
            self._log = open_private(self.log_path, append=self.sink.append)
            if self.sink.times:
                self._times = open_private(times_path(self.log_path), append=self.sink.append)

    def feed(self, data: bytes, err: bool = False) -> None:
        if not data:
            return
        if not err:
            self.saw_stdout = True
        buf = self._pending[err] + data
        cut = buf.rfind(b"\n") + 1
        while len(buf) - cut >= MAX_LINE:  # a runaway line: emit it in bounded pieces
            cut += MAX_LINE
        self._pending[err] = buf[cut:]
        if cut:
            # the log gets whole lines of each stream, so a stderr line never lands inside a
            # stdout line (issue 37); written through: `workload logs --follow` sees each line
            # as it arrives, and a driver killed mid-run loses nothing it has read (issue 26)
            self._to_log(buf[:cut])
            self.sink.mark(self.label, buf[:cut])
            self._emit(buf[:cut], err)

    def note(self, message: str) -> None:
        """A line from xcli itself about this worker (a retry, a connection error)."""
        self.feed(f"xcli: {message}\n".encode(), err=True)

    def _emit(self, chunk: bytes, err: bool) -> None:
        lines = chunk.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        if not self.sink.show_marks and MARK in chunk:
            lines = [line for line in lines if MARK not in line]
        text = b"".join(self._prefix + line + b"\n" for line in lines)
        self.sink.write(self.sink.stderr if err else self.sink.stdout, text)

    def _to_log(self, lines: bytes) -> None:
        if self._log is not None:
            self._log.write(lines)
            self._log.flush()
            if self._times is not None:
                self._times.write(record(self._log.tell(), time.time()))
                self._times.flush()

    def close(self) -> None:
        try:
            for err in (False, True):
                if self._pending[err]:
                    last = self._pending[err]
                    self._pending[err] = b""
                    self._to_log(last)
                    self.sink.mark(self.label, last)
                    self._emit(last, err)
        finally:
            if self._log is not None:
                log, self._log = self._log, None
                log.close()
            if self._times is not None:
                times, self._times = self._times, None
                times.close()


def _on_terminal(out: BinaryIO) -> bool:
    try:
        return out.isatty()
    except (OSError, ValueError):  # closed, or a stream with no descriptor
        return False


def default_log_dir(kind: str = "ssh") -> Path:
    """A fresh folder under the state dir for this run's logs; old runs beyond KEEP_RUNS go."""
    base = paths.state_dir() / "runs"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = base / f"{kind}-{stamp}-{os.getpid()}"
    if base.is_dir():
        old = sorted((p for p in base.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
        for stale in old[: max(0, len(old) - KEEP_RUNS + 1)]:
            for f in stale.iterdir():
                f.unlink(missing_ok=True)
            stale.rmdir()
    return folder
