"""`xcli workload profile --hosts stragglers` end to end on the local emulator: 4 workers of
real CPU JAX, each with its profiler server, marking each step's arrival
(`xcli.goodput.arrive`) before a barrier the four share; the drill knob XCLI_SLOW_WORKER makes
s0/w3 arrive 150 ms late at every step. The verdict, read when the capture runs, names s0/w3,
and the session holds its trace and two healthy hosts' (s0/w0, s0/w1); the dry-run holds the
four as candidates and says the verdict picks. Without the knob nobody is late: the two healthy
hosts are captured as a baseline, and the result says so."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli
from tests.workload.profile.test_profile_local import _needs

BASE = ("--provider", "local", "--cluster", "pstrag")
PROGRAM = """\
import os, sys, time
import jax, jax.numpy as jnp
import xcli.goodput as goodput

jax.profiler.start_server(goodput.profiler_port())
bar, me = sys.argv[1], os.environ["TPU_WORKER_ID"]
step = jax.jit(lambda x: jnp.tanh(x @ x) / 8.0)
x = jnp.ones((64, 64))
for i in range(1_000_000):
    with jax.profiler.StepTraceAnnotation("train", step_num=i):
        x = step(x).block_until_ready()
    time.sleep(0.02)  # the input pipeline
    goodput.arrive(i)  # s0/w3 is held here by XCLI_SLOW_WORKER
    open(os.path.join(bar, f"{i}-{me}"), "w").close()
    while not all(os.path.exists(os.path.join(bar, f"{i}-{w}")) for w in range(4)):
        time.sleep(0.002)
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    _needs("jax")
    _needs("xprof")
    home = tmp_path_factory.mktemp("pstrag")
    create(home, "pstrag", "v5litepod-16")
    try:
        src = home / "marks.py"
        src.write_text(PROGRAM)
        xcli(home, "scp", *BASE, "--worker=all", str(src), ":~/")
        yield home
    finally:
        delete(home, "pstrag", check=False)


def _start(home: Path, name: str, *env: str, steps: int = 20) -> None:
    bar = home / f"bar-{name}"
    bar.mkdir()
    knob = [f"--env=XCLI_SLOW_WORKER={e}" for e in env]
    xcli(home, "workload", "create", *BASE, "--workload", name, *knob,
         "--command", f"python3 marks.py {bar}", "--detach")  # fmt: skip
    deadline = time.monotonic() + 120
    while not (bar / f"{steps}-0").exists():
        assert time.monotonic() < deadline, f"{name} never reached step {steps}"
        time.sleep(0.2)


def _profile(home: Path, name: str, logs: Path, *extra: str) -> tuple[dict[str, Any], str]:
    run = xcli(home, "workload", "profile", name, *BASE, "--hosts", "stragglers",
               "--duration", "500ms", "--log-dir", str(logs), "--session", "s", *extra,
               "-o", "json", check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    out: dict[str, Any] = json.loads(run.stdout)
    return out, run.stderr


def test_the_verdicts_straggler_and_two_healthy_hosts(home: Path, tmp_path: Path) -> None:
    _start(home, "slow", "s0/w3=0.15")
    try:
        dry, _ = _profile(home, "slow", tmp_path / "dry", "--dry-run")
        (step,) = dry["plan"]
        assert [h["host"] for h in step["hosts"]] == [f"s0/w{w}" for w in range(4)]
        assert "read when the capture runs" in step["hosts_from"]
        assert not (tmp_path / "dry").exists()  # the dry-run wrote nothing

        logs = tmp_path / "profiles"
        result, _ = _profile(home, "slow", logs)
        chosen = result["hosts_from_verdict"]
        assert (chosen["stragglers"], chosen["healthy"]) == (["s0/w3"], ["s0/w0", "s0/w1"])
        assert chosen["note"].startswith("stragglers: s0/w3 (")
        assert sorted(result["files"]) == ["s0/w0", "s0/w1", "s0/w3"] and result["missing"] == {}
        folder = logs / "plugins" / "profile" / "s"
        names = sorted(p.name for p in folder.iterdir())
        assert names == ["s0-w0.xplane.pb", "s0-w1.xplane.pb", "s0-w3.xplane.pb"]
    finally:
        xcli(home, "workload", "delete", "slow", *BASE, "--yes", check=False)


def test_no_straggler_two_healthy_hosts_as_a_baseline(home: Path, tmp_path: Path) -> None:
    _start(home, "even")
    try:
        result, _ = _profile(home, "even", tmp_path / "profiles")
        chosen = result["hosts_from_verdict"]
        assert (chosen["stragglers"], chosen["healthy"]) == ([], ["s0/w0", "s0/w1"])
        assert sorted(result["files"]) == ["s0/w0", "s0/w1"]
        assert "names no straggler: capturing 2 healthy host(s) as a baseline" in chosen["note"]
        text = xcli(home, "workload", "profile", "even", *BASE, "--hosts", "stragglers",
                    "--duration", "500ms", "--log-dir", str(tmp_path / "t"))  # fmt: skip
        assert text.stderr.splitlines()[1].startswith("the straggler verdict names no straggler")
        assert [x.split()[0] for x in text.stdout.splitlines()] == ["s0/w0", "s0/w1"]
    finally:
        xcli(home, "workload", "delete", "even", *BASE, "--yes", check=False)
