"""xcli.goodput: the lines a training loop prints, cheap to import."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

import xcli.goodput as goodput
from xcli.workload.goodput.model import Mark, parse_marks


def test_importing_it_loads_nothing_else_of_xcli() -> None:
    probe = "import sys, xcli.goodput; print(sorted(m for m in sys.modules if 'xcli' in m))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['xcli', 'xcli.goodput']"


def test_the_helper_prints_lines_the_parser_reads() -> None:
    out = io.StringIO()
    goodput.step(12, out)
    goodput.checkpoint(10, out)
    goodput.flops_per_step(1.5e15, out)
    lines = out.getvalue().splitlines()
    assert lines == [
        "XCLI_GOODPUT step=12",
        "XCLI_GOODPUT checkpoint=10",
        "XCLI_GOODPUT flops_per_step=1500000000000000.0",
    ]
    assert [m for line in lines for m in parse_marks(1.0, line)] == [
        Mark(1.0, "step", 12),
        Mark(1.0, "checkpoint", 10),
        Mark(1.0, "flops_per_step", 1.5e15),
    ]
    assert parse_marks(1.0, "[w0] XCLI_GOODPUT step=-1") == []
    assert parse_marks(1.0, "loss 0.5 step=3") == []


@pytest.mark.parametrize(
    ("call", "value"),
    [(goodput.step, -1), (goodput.step, 1.5), (goodput.checkpoint, True),
     (goodput.flops_per_step, 0), (goodput.flops_per_step, float("nan"))],
)  # fmt: skip
def test_the_helper_refuses_values_it_cannot_mean(call: object, value: object) -> None:
    with pytest.raises(ValueError):
        call(value, io.StringIO())  # type: ignore[operator]


def test_the_profiler_port_comes_from_xcli_and_jax_is_not_imported() -> None:
    probe = "import sys, xcli.goodput as g; print(g.profiler_port(), 'jax' in sys.modules)"
    env = {"PATH": "/usr/bin:/bin", "XCLI_PROFILER_PORT": "19012"}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == ["19012", "False"]
    assert goodput.profiler_port({}) == 9999  # a real host: the JAX docs' port
    with pytest.raises(ValueError, match="is not a TCP port"):
        goodput.profiler_port({"XCLI_PROFILER_PORT": "70000"})


def test_the_profiler_server_serves_on_that_port() -> None:
    """A real CPU JAX process: the documented line serves on XCLI_PROFILER_PORT."""
    import socket

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    probe = (
        "import socket, jax, xcli.goodput as g; p = g.profiler_port(); "
        "jax.profiler.start_server(p); "
        "socket.create_connection(('127.0.0.1', p), timeout=5).close(); print(p)"
    )
    env = {"PATH": "/usr/bin:/bin", "XCLI_PROFILER_PORT": str(port), "JAX_PLATFORMS": "cpu"}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == str(port)


def test_arrive_marks_what_the_straggler_reader_reads() -> None:
    from xcli.workload.stragglers.marks import arrive_step

    out = io.StringIO()
    goodput.arrive(7, out)
    assert out.getvalue() == "XCLI_GOODPUT arrive=7\n"
    assert arrive_step("[s1/w2] " + out.getvalue()) == 7
    assert parse_marks(1.0, out.getvalue()) == []  # not a step mark for goodput
    with pytest.raises(ValueError):
        goodput.arrive(-1, out)


@pytest.mark.parametrize(
    ("knob", "worker", "step", "wait"),
    [("s1/w2=0.15", "s1/w2", 3, 0.15), ("s1/w2=0.15", "s0/w2", 3, 0.0),
     ("s0/w1=2@12", "s0/w1", 12, 2.0), ("s0/w1=2@12", "s0/w1", 11, 0.0),
     ("s0/w0=0.1, s0/w1=0.2", "s0/w1", 0, 0.2), ("", "s0/w0", 0, 0.0)],
)  # fmt: skip
def test_the_slow_worker_knob(knob: str, worker: str, step: int, wait: float) -> None:
    assert goodput.slow_delay(knob, worker, step) == wait


@pytest.mark.parametrize("knob", ["s1/w2", "=0.1", "s1/w2=fast", "s1/w2=-1", "s1/w2=1@x"])
def test_a_knob_that_does_not_parse_stops_the_drill(knob: str) -> None:
    with pytest.raises(ValueError, match="XCLI_SLOW_WORKER"):
        goodput.slow_delay(knob, "s1/w2", 0)


def test_arrive_waits_on_the_named_worker_only(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(goodput.time, "sleep", waits.append)  # time only, as the house allows
    monkeypatch.setenv("XCLI_SLOW_WORKER", "s1/w2=0.15")
    monkeypatch.setenv("XCLI_WORKER", "s1/w2")
    goodput.arrive(1, io.StringIO())
    monkeypatch.setenv("XCLI_WORKER", "s1/w1")
    goodput.arrive(1, io.StringIO())
    assert waits == [0.15]
