"""`xcli workload logs --timestamps --merge` on a real local cluster (issue 36): worker 1 speaks
first and third, worker 0 second and fourth; worker by worker the two are apart, merged they
are in the order they were said, each with the time xcli's runner read it. And the same run on a
terminal (a pty): the workers' lines print above the live progress table, never inside it."""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from tests.gateways.local_support import REPO, cli_env, create, delete, needs_openssh, xcli
from tests.support.pty_screen import Screen, run_on_pty

NAME = "logtimes"
CLUSTER = ("--provider", "local", "--cluster", NAME)
# one second apart: the order is the programs', whatever the machine's load adds to each read
SPEAK = (
    'if [ "$TPU_WORKER_ID" = 1 ]; then echo first; sleep 2; echo third; '
    "else sleep 1; echo second; sleep 2; echo fourth; fi"
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, float, float]]:
    needs_openssh()
    home = tmp_path_factory.mktemp("logs-times")
    create(home, NAME, "v5litepod-8")  # two workers
    try:
        start = time.time()
        xcli(home, "workload", "create", *CLUSTER, "--workload", "talk", "--command", SPEAK)
        yield home, start, time.time()
    finally:
        delete(home, NAME, check=False)


def logs(home: Path, *extra: str) -> list[str]:
    run = xcli(home, "workload", "logs", "talk", *CLUSTER, *extra)
    return run.stdout.splitlines()


def test_worker_by_worker_then_merged_by_time(home: tuple[Path, float, float]) -> None:
    folder = home[0]
    assert logs(folder) == ["[w0] second", "[w0] fourth", "[w1] first", "[w1] third"]
    assert logs(folder, "--merge") == ["[w1] first", "[w0] second", "[w1] third", "[w0] fourth"]


def test_timestamps_are_when_xcli_read_each_line(home: tuple[Path, float, float]) -> None:
    folder, start, end = home
    lines = logs(folder, "--merge", "--timestamps")
    stamps = [datetime.fromisoformat(line.split()[0].replace("Z", "+00:00")) for line in lines]
    assert [line.split(" ", 1)[1] for line in lines] == [
        "[w1] first", "[w0] second", "[w1] third", "[w0] fourth",
    ]  # fmt: skip
    seconds = [s.timestamp() for s in stamps]
    assert seconds == sorted(seconds) and start <= seconds[0] and seconds[-1] <= end
    records = [json.loads(x) for x in logs(folder, "--timestamps", "-o", "json")]
    assert [r["worker"] for r in records] == ["w0", "w0", "w1", "w1"]
    assert all(r["time"].endswith("Z") for r in records)


WORKER_LINE = re.compile(r"\[w[01]\] (first|second|third|fourth)")


def _collides(row: str) -> bool:
    """A row with a worker's line in it that is not that line alone."""
    return ("[w0] " in row or "[w1] " in row) and WORKER_LINE.fullmatch(row) is None


def test_on_a_terminal_worker_lines_print_above_the_progress_table(
    home: tuple[Path, float, float],
) -> None:
    folder = home[0]
    argv = [sys.executable, "-m", "xcli", "workload", "create", *CLUSTER, "--workload", "onpty",
            "--command", SPEAK]  # fmt: skip
    screen = Screen(collides=_collides)
    screen.feed(run_on_pty(argv, cli_env(folder), cwd=str(REPO)))
    screen.end()
    assert screen.collisions == []
    worker_lines = [row for row in screen.lines() if WORKER_LINE.search(row)]
    assert sorted(worker_lines) == ["[w0] fourth", "[w0] second", "[w1] first", "[w1] third"]
