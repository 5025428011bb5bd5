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
