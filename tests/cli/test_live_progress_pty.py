"""On a terminal the live progress table never shares a line with worker output (issue 36, F7).

A child process runs the real live reporter (rich) and the real SSH output sink with its stdout
and stderr on one pseudo-terminal, as `xcli workload create` on VM workers does; the test reads
the pty's master side and replays the bytes on a small terminal model (the cursor moves and
erases rich uses). After every character drawn, the line it landed on must not hold both the
progress text and a worker's text. The control case writes worker lines straight to the
descriptor, as the sink did before: the same check finds the collision, so it can fail.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a Linux pseudo-terminal")

WORKERS = 4
ROUNDS = 40

CHILD = textwrap.dedent(
    f"""
    import os, sys, threading
    from xcli.cli.progress import LiveTableReporter, close_reporter, make_reporter
    from xcli.gateways.ssh.output import OutputSink
    from xcli.plan.contract import StepResult
    from xcli.plan.model import Step

    direct = sys.argv[1] == "direct"
    reporter = make_reporter("text")
    assert isinstance(reporter, LiveTableReporter), type(reporter)  # the terminal's display
    step = Step(id="run", summary="PROGRESS starting")
    reporter.started(step)
    reporter._live.refresh()  # drawn before any worker speaks
    sink = OutputSink(sys.stdout.buffer, sys.stderr.buffer, None)

    def worker(i):
        stream = sink.stream(f"w{{i}}")
        for n in range({ROUNDS}):
            line = f"WORKER {{i}} line {{n}}"
            if direct:  # the sink before issue 36: bytes straight to the descriptor
                os.write(1, f"[w{{i}}] {{line}}\\n".encode())
            else:
                stream.feed(f"{{line}}\\n".encode(), err=(n % 5 == 4))
            reporter.progress(step, f"PROGRESS {{i}}/{{n}}")
            reporter._live.refresh()
        stream.close()

    if direct:  # one thread, so the control case collides on its first line
        worker(0)
    else:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range({WORKERS})]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    reporter.finished(StepResult(step=step, status="ok", seconds=1.0))
    close_reporter(reporter)
    print("END", flush=True)
    """
)


def _run_on_pty(mode: str) -> bytes:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, mode],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
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
    column, erase in line; colours and cursor visibility ignored. Rows never scroll away."""

    def __init__(self) -> None:
        self.rows: list[list[str]] = [[]]
        self.row = self.col = 0
        self.collisions: list[str] = []

    def _line(self) -> list[str]:
        while len(self.rows) <= self.row:
            self.rows.append([])
        return self.rows[self.row]

    def text(self, row: int) -> str:
        return "".join(self.rows[row]).rstrip()

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
                if "PROGRESS" in now and "WORKER" in now and now not in self.collisions:
                    self.collisions.append(now)

    def _csi(self, params: str, final: str) -> None:
        n = int(params) if params.isdigit() else 1
        if final == "A":
            self.row = max(0, self.row - n)
        elif final == "B":
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


def _screen(mode: str) -> Screen:
    screen = Screen()
    screen.feed(_run_on_pty(mode))
    return screen


def test_worker_lines_print_above_the_live_table() -> None:
    screen = _screen("sink")
    assert screen.collisions == []
    lines = [screen.text(r) for r in range(len(screen.rows))]
    want = {f"[w{i}] WORKER {i} line {n}" for i in range(WORKERS) for n in range(ROUNDS)}
    worker_lines = [line for line in lines if "WORKER" in line]
    assert sorted(worker_lines) == sorted(want)  # each once, whole, none lost or doubled
    assert not any("PROGRESS" in line for line in lines)  # the table is gone when it ends
    assert "[run] done in 1s" in lines
    assert lines[-1] == "END" or lines[-2:] == ["END", ""]


def test_the_check_sees_a_worker_line_written_into_the_table() -> None:
    screen = _screen("direct")  # the control: without `above`, the line lands in the table
    assert screen.collisions, "the model should see the worker text after the progress text"
