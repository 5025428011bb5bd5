"""Prefixed whole lines, per-worker logs, outcomes and the summary, without any SSH."""

from __future__ import annotations

import ast
import io
import resource
import subprocess
import sys
import threading
from pathlib import Path

from xcli.gateways.ssh.output import MAX_LINE, OutputSink
from xcli.gateways.ssh.pool import raise_open_file_limit
from xcli.plan.fanout_result import FanoutResult, WorkerOutcome, ranges


def test_chunks_split_mid_line_come_out_as_whole_prefixed_lines(tmp_path: Path) -> None:
    out, err = io.BytesIO(), io.BytesIO()
    sink = OutputSink(out, err, tmp_path)
    a, b = sink.stream("w0"), sink.stream("s1/w2")
    a.feed(b"hel")
    b.feed(b"one\ntw")
    a.feed(b"lo\nwor", err=False)
    b.feed(b"oops", err=True)
    a.feed(b"ld")
    b.feed(b"o\n")
    a.close()
    b.close()
    assert out.getvalue().splitlines() == [
        b"[s1/w2] one",
        b"[w0] hello",
        b"[s1/w2] two",
        b"[w0] world",
    ]
    assert err.getvalue() == b"[s1/w2] oops\n"
    assert (tmp_path / "w0.log").read_bytes() == b"hello\nworld"
    # whole lines of each stream: stderr's "oops" no longer lands inside stdout's "two"
    assert (tmp_path / "s1-w2.log").read_bytes() == b"one\ntwo\noops"


def test_the_log_never_splits_a_line_between_stdout_and_stderr(tmp_path: Path) -> None:
    """A progress line written in pieces while warnings go to stderr (issue 37)."""
    sink = OutputSink(io.BytesIO(), io.BytesIO(), tmp_path)
    w = sink.stream("w0")
    w.feed(b"step 1: loss=")
    w.feed(b"WARNING: slow host\n", err=True)
    w.feed(b"0.25\nstep 2: lo")
    w.feed(b"W0000 deprecated\nW0001 again\n", err=True)
    w.feed(b"ss=0.2\n")
    w.close()
    lines = (tmp_path / "w0.log").read_bytes().splitlines()
    assert sorted(lines) == sorted(
        [b"step 1: loss=0.25", b"WARNING: slow host", b"step 2: loss=0.2",
         b"W0000 deprecated", b"W0001 again"]
    )  # fmt: skip
    assert lines.index(b"WARNING: slow host") < lines.index(b"step 1: loss=0.25")


def test_threads_never_interleave_inside_a_line() -> None:
    out = io.BytesIO()
    sink = OutputSink(out, None, None)

    def talk(name: str) -> None:
        s = sink.stream(name)
        for i in range(300):
            s.feed(f"{name}-{i}-".encode() + b"x" * 50)
            s.feed(b"\n")
        s.close()

    threads = [threading.Thread(target=talk, args=(f"w{n}",)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = out.getvalue().splitlines()
    assert len(lines) == 8 * 300
    for line in lines:
        label, rest = line.decode().split("] ", 1)
        assert rest.startswith(label[1:] + "-") and rest.endswith("x" * 50)


def test_a_runaway_line_is_written_in_bounded_pieces() -> None:
    out = io.BytesIO()
    s = OutputSink(out, None, None).stream("w0")
    s.feed(b"y" * (MAX_LINE + 10))
    assert out.getvalue() == b"[w0] " + b"y" * MAX_LINE + b"\n"
    s.close()
    assert out.getvalue().endswith(b"[w0] yyyyyyyyyy\n")


def test_exit_status_and_summary() -> None:
    ok = WorkerOutcome("w0", "ok", 0)
    three = WorkerOutcome("w1", "exit", 3, log=Path("l/w1.log"))
    seven = WorkerOutcome("w2", "exit", 7)
    assert FanoutResult([ok]).exit_code == 0
    assert FanoutResult([ok, three, seven]).exit_code == 7
    gone = WorkerOutcome("w3", "unreachable", detail="connection refused")
    assert FanoutResult([ok, three, gone]).exit_code == 255
    slow = WorkerOutcome("w4", "timed out", reached=True)
    assert FanoutResult([ok, slow]).exit_code == 124
    assert FanoutResult([ok, WorkerOutcome("w5", "timed out")]).exit_code == 255
    lines = FanoutResult([ok, three, gone], seconds=1.25).summary_lines()
    assert lines == [
        "1 of 3 workers succeeded in 1.2s",
        "  FAILED [w1] exit code 3  log: l/w1.log",
        "  FAILED [w3] unreachable (connection refused)",
    ]
    auth = WorkerOutcome("w6", "auth", detail="Permission denied (publickey)")
    assert auth.reason == "authentication refused (Permission denied (publickey))"


def test_open_file_limit_is_raised_for_large_windows() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        raise_open_file_limit(1152)
        new = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        want = 64 + 4 * 1152
        assert new == (want if hard == resource.RLIM_INFINITY else min(hard, want))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_goodput_marks_are_timestamped_when_their_line_is_read(tmp_path: Path) -> None:
    import json
    import time

    marks = tmp_path / "goodput.jsonl"
    sink = OutputSink(None, None, tmp_path / "logs", marks=marks)
    w0, w1 = sink.stream("w0"), sink.stream("w1")
    before = time.time()
    w0.feed(b"loss 1.0\nXCLI_GOODPUT st")
    assert not marks.exists()  # half a line is not a mark yet
    w0.feed(b"ep=3\n")
    w1.feed(b"XCLI_GOODPUT checkpoint=2\n", err=True)  # stderr counts too
    w0.feed(b"XCLI_GOODPUT step=4")  # no newline: read when the stream closes
    w0.close()
    w1.close()
    records = [json.loads(line) for line in marks.read_text().splitlines()]
    assert [(r["worker"], r["line"]) for r in records] == [
        ("w0", "XCLI_GOODPUT step=3"),
        ("w1", "XCLI_GOODPUT checkpoint=2"),
        ("w0", "XCLI_GOODPUT step=4"),
    ]
    assert all(before <= r["at"] <= time.time() for r in records)
    assert records[0]["at"] <= records[1]["at"] <= records[2]["at"]
    # the logs keep the raw bytes, marks included
    assert (
        tmp_path / "logs" / "w0.log"
    ).read_bytes() == b"loss 1.0\nXCLI_GOODPUT step=3\nXCLI_GOODPUT step=4"


def test_many_failures_are_grouped_by_cause_with_worker_ranges() -> None:
    outcomes = [WorkerOutcome(f"s{s}/w{i}", "ok", 0) for s in range(4) for i in range(576)]
    for i in [*range(100, 112), 300]:
        outcomes[i] = WorkerOutcome(f"s0/w{i}", "exit", 7)
    for i in range(576, 576 + 40):
        outcomes[i] = WorkerOutcome(outcomes[i].label, "timed out", detail="no SSH answer")
    result = FanoutResult(outcomes, log_dir=Path("runs/x"), seconds=61.0, notes=["a note"])
    assert result.summary_lines() == [
        "2251 of 2304 workers succeeded in 61.0s",
        "  note: a note",
        "  FAILED 40 worker(s), timed out (no SSH answer): s1/w0-39",
        "  FAILED 13 worker(s), exit code 7: s0/w100-111, s0/w300",
        "  logs: runs/x/<worker>.log",
    ]
    assert result.to_json()["notes"] == ["a note"]


def test_worker_ranges_stay_short() -> None:
    assert ranges(["w0", "w1", "w2", "w7", "s1/w3", "s1/w4", "odd"]) == "w0-2, w7, s1/w3-4, odd"
    scattered = [f"w{i}" for i in range(0, 600, 2)]  # 300 workers, no two adjacent
    text = ranges(scattered)
    assert text.endswith(", w46, and 276 more") and text.count(",") == 24


def test_the_window_is_narrowed_to_the_descriptors_the_hard_limit_leaves() -> None:
    # in a child: a hard limit cannot be raised again without privilege
    code = (
        "import resource; from xcli.gateways.ssh.pool import fitting_window; "
        "resource.setrlimit(resource.RLIMIT_NOFILE, (200, 300)); "
        "print(fitting_window(64)); print(resource.getrlimit(resource.RLIMIT_NOFILE)); "
        "print(fitting_window(8))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    narrowed, limits, fits = run.stdout.splitlines()
    window, note, spare = ast.literal_eval(narrowed)
    assert limits == "(300, 300)"  # soft raised to the hard limit
    assert 40 < window < 64 and spare == 0
    assert note == (
        f"{window} workers at once, not 64: the open-file limit is 300 (hard limit 300); "
        "raise the hard limit (ulimit -Hn) for a wider window"
    )
    assert ast.literal_eval(fits)[:2] == (8, None)
