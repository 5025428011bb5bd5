"""`xcli workload stacks` end to end on the local emulator: 4 workers, one blocked before a
barrier (in its input pipeline), three waiting in it; py-spy dumps every host at once and the
stacks fall into two groups, the blocked host named."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli

BASE = ("--provider", "local", "--cluster", "stk")
PROGRAM = """\
import os, time

ARRIVED = {arrived!r}


def next_batch():  # s0/w2's input pipeline never delivers
    while True:
        time.sleep(0.05)


def barrier(count):
    open(os.path.join(ARRIVED, os.environ["TPU_WORKER_ID"]), "w").close()
    while len(os.listdir(ARRIVED)) < count:
        time.sleep(0.05)


def train_step():
    if os.environ["XCLI_WORKER"] == "s0/w2":
        next_batch()
    barrier(4)


open("started", "w").close()
train_step()
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    if shutil.which("ps") is None:
        pytest.skip("ps (procps) is not installed; scripts/test.sh installs it")
    home = tmp_path_factory.mktemp("stacks")
    arrived = home / "arrived"
    arrived.mkdir()
    create(home, "stk", "v5litepod-16")
    try:
        src = home / "hang.py"
        src.write_text(PROGRAM.format(arrived=str(arrived)))
        xcli(home, "scp", *BASE, "--worker=all", str(src), ":~/")
        xcli(home, "workload", "create", *BASE, "--workload", "hang",
             "--command", "python3 hang.py", "--detach")  # fmt: skip
        deadline = time.monotonic() + 30
        while len(list(arrived.iterdir())) < 3:
            assert time.monotonic() < deadline, "the three workers never reached the barrier"
            time.sleep(0.1)
        yield home
    finally:
        xcli(home, "workload", "delete", "hang", *BASE, "--yes", check=False)
        delete(home, "stk", check=False)


def test_two_groups_and_the_blocked_host_named(home: Path) -> None:
    run = xcli(home, "workload", "stacks", "hang", *BASE)
    lines = run.stdout.splitlines()
    assert lines[0].startswith("3 hosts in barrier (hang.py:"), run.stdout
    assert lines[1].startswith("1 host in next_batch (hang.py:") and lines[1].endswith(": s0/w2")
    run = xcli(home, "workload", "stacks", "hang", *BASE, "-o", "json")
    report = json.loads(run.stdout)
    assert [g["hosts"] for g in report["groups"]] == [["s0/w0", "s0/w1", "s0/w3"], ["s0/w2"]]
    assert sorted(report["stacks"]) == [f"s0/w{w}" for w in range(4)]
    assert "train_step (hang.py:" in report["stacks"]["s0/w2"]  # each host's own text
    assert report["failed"] == {}


def test_dry_run_prints_the_py_spy_command_per_worker(home: Path) -> None:
    run = xcli(home, "workload", "stacks", "hang", *BASE, "--dry-run", "-o", "json")
    (step,) = json.loads(run.stdout)["plan"]
    assert [w["worker"] for w in step["workers"]] == [f"s0/w{w}" for w in range(4)]
    assert "py-spy" in step["workers"][0]["argv"][-1]
