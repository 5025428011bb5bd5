"""`xcli workload create` on a real local cluster: the command runs on every worker over SSH;
when worker 2 fails, every worker is stopped and started again, up to --max-restarts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli

CLUSTER = ("--provider", "local", "--cluster", "wldemo")
# Each worker has its own working folder, so the marker makes worker 2 fail exactly once.
FAILS_ONCE = (
    'if [ "$TPU_WORKER_ID" = 2 ] && [ ! -e failed-once ]; then touch failed-once; exit 1; fi; '
    'echo "ran on worker $TPU_WORKER_ID"'
)


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    home = tmp_path_factory.mktemp("workload-local")
    create(home, "wldemo", "v5litepod-16")
    yield home
    delete(home, "wldemo", check=False)


def submit(home: Path, name: str, *extra: str) -> tuple[int, str, str]:
    run = xcli(home, "workload", "create", *CLUSTER, "--workload", name,
               "--docker-image", "python:3.11", "--command", FAILS_ONCE, *extra,
               check=False)  # fmt: skip
    return run.returncode, run.stdout, run.stderr


def test_one_failure_restarts_every_worker_then_succeeds(home: Path) -> None:
    code, out, err = submit(home, "retry", "--max-restarts", "1")
    assert code == 0, err
    lines = out.splitlines()
    # the first attempt: workers 0, 1 and 3 may finish before worker 2 fails; the second
    # attempt runs all four
    for w in range(4):
        assert f"[w{w}] ran on worker {w}" in lines
    assert lines.count("[w2] ran on worker 2") == 1


def test_without_restarts_the_failure_names_worker_2(home: Path) -> None:
    code, _, err = submit(home, "once", "--max-restarts", "0")
    assert code == 1
    assert "worker w2 exited with code 1" in err
    # the foreground run left its record too
    status = xcli(home, "workload", "status", "once", *CLUSTER)
    assert "workload once on cluster wldemo: failed" in status.stdout
    assert "first failure: worker w2 exited with code 1" in status.stdout
    rows = status.stdout.split("WORKER  EXIT  REASON\n", 1)[1].splitlines()
    assert ["w2", "1"] in [row.split()[:2] for row in rows]  # the others may have been stopped


def test_dry_run_prints_each_worker_command(home: Path) -> None:
    code, out, err = submit(home, "plan", "--dry-run", "--output", "json")
    assert code == 0, err
    assert '"kind": "vm_workload"' in out
    assert out.count('"worker": "w') == 8  # four to run, four to stop


@pytest.mark.parametrize(
    ("extra", "error", "hint"),
    [
        (
            ("--num-slices", "3"),
            "error: --num-slices 3: cluster wldemo has 1 slice",
            "hint: drop --num-slices, or give at most 1",
        ),
        (
            ("--tpu-type", "v5litepod-8"),
            "error: cluster wldemo has v5litepod-16 workers, not v5litepod-8",
            "hint: drop --tpu-type to use the cluster's",
        ),
    ],
)
def test_a_shape_that_contradicts_the_cluster_is_refused_before_any_worker_runs(
    home: Path, extra: tuple[str, ...], error: str, hint: str
) -> None:
    code, out, err = submit(home, "shape", *extra)
    assert (code, out, err.splitlines()) == (1, "", [error, hint])
    assert not (home / "state" / "workloads" / "wldemo" / "shape").exists()
