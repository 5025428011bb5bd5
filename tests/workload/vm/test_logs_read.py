"""`workload logs` of a VM-style workload streams its log files (issue 26 item 3): memory stays
bounded whatever the log's size (it took 274 MB to show a 100 MB log when each file was read
whole), every line is printed once and whole, and a line without a newline at the end of a
finished run is still printed."""

from __future__ import annotations

import json
import threading
import tracemalloc
from pathlib import Path

from xcli import vm_runs as runs
from xcli.workload.vm import read


def finished_run(name: str) -> Path:
    folder = runs.run_dir("demo", name)
    (folder / "logs").mkdir(parents=True)
    (folder / "state.json").write_text(json.dumps({"state": "succeeded", "pid": 0}))
    return folder


def no_sleep(seconds: float, cancelled: threading.Event) -> None:
    raise AssertionError("a finished run is printed once, without waiting")


def test_a_large_log_is_streamed_with_bounded_memory() -> None:
    folder = finished_run("big")
    line = b"x" * 99 + b"\n"
    with (folder / "logs" / "w0.log").open("wb") as f:
        for _ in range(40):
            f.write(line * 10_000)  # 40 MB, 400,000 lines
    count = 0
    tracemalloc.start()
    try:
        for _ in read.vm_logs("demo", "big", ("all", "all"), False, no_sleep):
            count += 1  # counted, not kept: the lines come one at a time
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 400_000
    assert peak < 12 * 2**20, f"peak {peak / 2**20:.0f} MiB to print a 40 MB log"


def test_lines_across_reads_a_runaway_line_and_a_last_line_without_newline() -> None:
    folder = finished_run("edges")
    long_line = b"y" * (read.READ + 10)  # crosses a read boundary and MAX_LINE
    body = b"first\n" + b"a" * (read.READ - 3) + b"\nsecond\n" + long_line + b"\nlast"
    (folder / "logs" / "w0.log").write_bytes(body)
    (folder / "logs" / "w1.log").write_bytes(b"other\n")
    lines = [
        f"{line.prefix} {line.text}"  # as the one renderer prints them (cli/workload_view.py)
        for line in read.vm_logs("demo", "edges", ("all", "all"), False, no_sleep)
    ]
    assert lines[:2] == ["[w0] first", "[w0] " + "a" * (read.READ - 3)]
    assert lines[2] == "[w0] second"
    pieces = [x.removeprefix("[w0] ") for x in lines[3:-2]]
    assert "".join(pieces) == long_line.decode() and max(map(len, pieces)) <= read.MAX_LINE
    assert lines[-2:] == ["[w0] last", "[w1] other"]
