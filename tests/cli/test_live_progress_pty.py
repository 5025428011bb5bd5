"""On a terminal the live progress table never shares a line with worker output (issue 36, F7).

A child process runs the real live reporter (rich) and the real SSH output sink with its stdout
and stderr on one pseudo-terminal, as `xcli workload create` on VM workers does; the test reads
the pty's master side and replays the bytes on a small terminal model (the cursor moves and
erases rich uses). After every character drawn, the line it landed on must not hold both the
progress text and a worker's text. The control case writes worker lines straight to the
descriptor, as the sink did before: the same check finds the collision, so it can fail.
"""

from __future__ import annotations

import os
import sys
import textwrap

import pytest

from tests.support.pty_screen import Screen, run_on_pty

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


def _screen(mode: str) -> Screen:
    screen = Screen()
    screen.feed(run_on_pty([sys.executable, "-c", CHILD, mode], os.environ))
    return screen


def test_worker_lines_print_above_the_live_table() -> None:
    screen = _screen("sink")
    assert screen.collisions == []
    lines = screen.lines()
    want = {f"[w{i}] WORKER {i} line {n}" for i in range(WORKERS) for n in range(ROUNDS)}
    worker_lines = [line for line in lines if "WORKER" in line]
    assert sorted(worker_lines) == sorted(want)  # each once, whole, none lost or doubled
    assert not any("PROGRESS" in line for line in lines)  # the table is gone when it ends
    assert "[run] done in 1s" in lines
    assert lines[-1] == "END" or lines[-2:] == ["END", ""]


def test_the_check_sees_a_worker_line_written_into_the_table() -> None:
    screen = _screen("direct")  # the control: without `above`, the line lands in the table
    assert screen.collisions, "the model should see the worker text after the progress text"
