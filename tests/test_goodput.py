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
