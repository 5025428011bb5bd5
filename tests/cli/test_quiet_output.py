"""Quiet where nothing is wrong: sampled progress in logs, notes said once, `| head` quietly."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from xcli.cli.progress import PROGRESS_EVERY, LineReporter
from xcli.cli.wiring import _first_time
from xcli.gateways.ssh.output import OutputSink
from xcli.plan.contract import StepResult
from xcli.plan.model import Step


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().err.splitlines()


def test_a_piped_256_worker_wait_prints_a_few_lines(capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock()
    reporter = LineReporter(clock)
    step = Step(id="wait", summary="Wait until all 256 workers answer over SSH")
    reporter.started(step)
    for n in range(1, 257):  # one report per worker, all within a few seconds
        clock.now += 0.01
        reporter.progress(step, f"{n}/256 workers answer")
    reporter.finished(StepResult(step=step, status="ok", seconds=2.56))
    assert _lines(capsys) == [
        "[wait] Wait until all 256 workers answer over SSH ...",
        "[wait] 1/256 workers answer (0s)",  # the first of its kind is news; the counter is not
        "[wait] done in 2s",
    ]
    reporter.started(step)
    for n in range(1, 257):  # a slow wait: one line per PROGRESS_EVERY seconds
        clock.now += 1.0
        reporter.progress(step, f"{n}/256 workers answer")
    said = _lines(capsys)
    assert said[1] == "[wait] 1/256 workers answer (1s)"  # news, then the counter every 10 s
    assert said[2] == "[wait] 11/256 workers answer (11s)"
    assert len(said) == 2 + int(255 // PROGRESS_EVERY)


def test_a_note_is_said_once_per_machine(isolated_home: Path) -> None:
    engine = "engine openssh: --ssh-flag -J is an OpenSSH option (--engine asyncssh to override)"
    assert _first_time([engine]) == [engine]
    assert _first_time([engine]) == []
    assert _first_time([engine, "another"]) == ["another"]
    assert _first_time([]) == []


class Closed(io.BytesIO):
    """A pipe whose reader left (`| head`)."""

    def write(self, data: bytes) -> int:  # type: ignore[override]
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_leaves_stops_the_run_quietly(tmp_path: Path) -> None:
    stderr = io.BytesIO()
    sink = OutputSink(Closed(), stderr, tmp_path / "logs")
    gone: list[bool] = []
    sink.on_gone = lambda: gone.append(True)
    worker = sink.stream("s0/w1")
    worker.feed(b"1\n2\n")
    worker.feed(b"3\n")
    worker.feed(b"oops\n", err=True)
    worker.close()
    assert sink.reader_gone.is_set() and gone == [True]  # the run is cancelled once
    assert stderr.getvalue() == b"[s0/w1] oops\n"  # nothing blames the worker
    assert (tmp_path / "logs" / "s0-w1.log").read_bytes() == b"1\n2\n3\noops\n"
    broken = OutputSink(io.BytesIO(), Closed(), None)
    with pytest.raises(BrokenPipeError):  # stderr gone is not the stdout reader leaving
        broken.write(broken.stderr, b"x\n")
