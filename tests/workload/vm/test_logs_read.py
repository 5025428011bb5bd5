"""`workload logs` of a VM-style workload streams its log files (issue 26 item 3): memory stays
bounded whatever the log's size (it took 274 MB to show a 100 MB log when each file was read
whole), every line is printed once and whole, and a line without a newline at the end of a
finished run is still printed."""

from __future__ import annotations

import json
import os
import threading
import tracemalloc
from pathlib import Path

from xcli import vm_runs as runs
from xcli.gateways.ssh.output import OutputSink
from xcli.log_times import LineClock
from xcli.workload.protocol import LogView
from xcli.workload.vm import read

MERGED = LogView(merge=True)
TIMED = LogView(timestamps=True)


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


def _timed(folder: Path, label: str, lines: list[tuple[str, float]]) -> None:
    """A worker's log and its times as the sink writes them (xcli/log_times.py)."""
    body, times = b"", b""
    for text, at in lines:
        body += text.encode() + b"\n"
        times += f"{len(body)} {at:.6f}\n".encode()
    (folder / "logs" / f"{label}.log").write_bytes(body)
    (folder / "logs" / f"{label}.times").write_bytes(times)


def test_merge_orders_all_workers_by_the_time_xcli_read_each_line() -> None:
    folder = finished_run("merged")
    _timed(folder, "s0-w0", [("first", 100.0), ("third", 300.0)])
    _timed(folder, "s0-w1", [("second", 200.0), ("fourth", 400.0)])
    _timed(folder, "s1-w0", [("last", 500.0)])
    merged = list(read.vm_logs("demo", "merged", ("all", "all"), False, no_sleep, MERGED))
    assert [(x.prefix, x.text, x.at) for x in merged] == [
        ("[s0/w0]", "first", 100.0),
        ("[s0/w1]", "second", 200.0),
        ("[s0/w0]", "third", 300.0),
        ("[s0/w1]", "fourth", 400.0),
        ("[s1/w0]", "last", 500.0),
    ]
    by_worker = read.vm_logs("demo", "merged", ("all", "all"), False, no_sleep, TIMED)
    assert [x.text for x in by_worker] == ["first", "third", "second", "fourth", "last"]
    plain = read.vm_logs("demo", "merged", ("all", "all"), False, no_sleep)
    assert {x.at for x in plain} == {None}  # not asked: no times read


def test_a_log_without_times_has_its_files_time() -> None:
    folder = finished_run("older")
    (folder / "logs" / "w0.log").write_bytes(b"from before the times file\n")
    os.utime(folder / "logs" / "w0.log", (1_700_000_000, 1_700_000_000))
    (line,) = read.vm_logs("demo", "older", ("all", "all"), False, no_sleep, TIMED)
    assert line.at == 1_700_000_000


def test_the_sink_records_when_each_write_was_read(tmp_path: Path) -> None:
    sink = OutputSink(None, None, tmp_path, times=True)
    stream = sink.stream("w0")
    stream.feed(b"one\ntw")  # the second line's newline comes with the next read
    stream.feed(b"o\nthree\n")
    stream.close()
    clock = LineClock(tmp_path / "w0.log")
    clock.refresh()
    raw = (tmp_path / "w0.times").read_text().split()
    ends, times = [int(e) for e in raw[::2]], [float(t) for t in raw[1::2]]
    assert ends == [4, 14] and times == sorted(times)
    assert (clock.at(3), clock.at(7), clock.at(13)) == (times[0], times[1], times[1])
    assert not (tmp_path / "w1.times").exists()
    plain = OutputSink(None, None, tmp_path / "plain")  # `xcli ssh`: no times kept
    plain.stream("w0").close()
    assert [p.name for p in (tmp_path / "plain").iterdir()] == ["w0.log"]
