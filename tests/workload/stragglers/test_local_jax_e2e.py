"""`xcli workload stragglers` for real: 8 CPU-JAX processes on an emulated two-slice
v5litepod-16, one cross-process collective per step (tests/workload/stragglers/jax_loop.py).

- s1/w2 delayed 150 ms before each step's collective (the XCLI_SLOW_WORKER drill): it alone is
  named, as chronic, and the time lost is within 20% of the delay injected;
- no delay: nobody is named;
- one 2 s stall of s0/w1 at one step: no chronic straggler, the one-off is reported, and the
  time lost is within 20% of the 2 s.
Each run is 26 steps (the first is warm-up: not judged), windows of 5.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli
from tests.workload.stragglers import jax_loop

BASE = ("--provider", "local", "--cluster", "strag")
STEPS = 26
LOOP = Path(jax_loop.__file__)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    probe = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("JAX is not installed for the python running the tests")
    home = tmp_path_factory.mktemp("strag")
    create(home, "strag", "v5litepod-16", "--num-slices", "2")
    try:
        yield home
    finally:
        delete(home, "strag", check=False)


def _run(home: Path, name: str, *env: str) -> dict[str, Any]:
    knob = [f"--env=XCLI_SLOW_WORKER={e}" for e in env]
    created = xcli(
        home, "workload", "create", *BASE, "--workload", name, *knob,
        "--command",
        f"python3 {LOOP} {STEPS}", check=False,
    )  # fmt: skip
    assert created.returncode == 0, created.stderr[-2000:]
    assert "XCLI_GOODPUT" not in created.stdout  # the live stream hides xcli's own marks
    out = xcli(home, "workload", "stragglers", name, *BASE, "--window", "5", "-o", "json")
    verdict: dict[str, Any] = json.loads(out.stdout)
    shown = ("stragglers", "time_lost_seconds", "steps", "step_seconds")
    print(json.dumps({k: verdict[k] for k in shown}))
    print([w["lateness_seconds"] for w in verdict["workers"]])
    return verdict


def test_a_delayed_worker_is_named_alone_and_chronic(home: Path) -> None:
    verdict = _run(home, "slow", "s1/w2=0.15")
    assert [(s["worker"], s["chronic"]) for s in verdict["stragglers"]] == [("s1/w2", True)]
    injected = 0.15 * verdict["steps"]
    assert verdict["time_lost_seconds"] == pytest.approx(injected, rel=0.2)
    text = xcli(home, "workload", "stragglers", "slow", *BASE, "--window", "5").stdout
    assert text.splitlines()[1].startswith("chronic straggler: s1/w2 on 127.0.0.1:")
    assert "--hosts stragglers" in text
    status = xcli(home, "workload", "status", "slow", *BASE).stdout
    assert "straggler: s1/w2 +1" in status  # +150 ms/step, give or take the noise
    goodput = json.loads(xcli(home, "workload", "goodput", "slow", *BASE, "-o", "json").stdout)
    assert goodput["straggler_seconds"] == verdict["time_lost_seconds"]
    assert goodput["chronic_stragglers"] == ["s1/w2"]
    page = home / "report.html"
    wrote = xcli(home, "workload", "report", "slow", *BASE, "--window", "5",
                 "--output-file", str(page))  # fmt: skip
    assert wrote.stdout.startswith(f"wrote {page} (")
    assert "s1/w2 \u25c0" in page.read_text(encoding="utf-8")


def test_no_delay_names_nobody(home: Path) -> None:
    verdict = _run(home, "even")
    assert verdict["stragglers"] == []
    status = xcli(home, "workload", "status", "even", *BASE).stdout
    assert "straggler:" not in status


def test_one_stall_is_a_one_off(home: Path) -> None:
    verdict = _run(home, "stall", "s0/w1=2@12")
    assert [s for s in verdict["stragglers"] if s["chronic"]] == []
    (one,) = [s for s in verdict["stragglers"] if s["kind"] == "one-off"]
    assert (one["worker"], one["worst_step"]) == ("s0/w1", 12)
    assert verdict["time_lost_seconds"] == pytest.approx(2.0, rel=0.2)


def test_marks_are_hidden_from_logs_unless_asked(home: Path) -> None:
    logs = xcli(home, "workload", "logs", "even", *BASE).stdout
    assert "XCLI_GOODPUT" not in logs
    shown = xcli(home, "workload", "logs", "even", *BASE, "--show-marks").stdout
    assert shown.count("XCLI_GOODPUT arrive=") == 8 * STEPS


def test_every_worker_has_its_own_hostname_home_and_tmp(home: Path) -> None:
    run = xcli(home, "ssh", *BASE, "--worker=all", "--command",
               'echo "$(hostname) $HOME $TMPDIR"')  # fmt: skip
    seen = [line.partition("] ")[2].split() for line in run.stdout.splitlines()]
    assert len(seen) == 8
    for column in zip(*seen, strict=True):
        assert len(set(column)) == 8, column
    assert sorted(s[0] for s in seen)[:2] == ["strag-s0-w0", "strag-s0-w1"]
