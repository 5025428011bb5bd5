"""`xcli workload goodput` for real on the local provider: a two-worker slice (v5p-16) runs a
plain training loop that checkpoints every K steps; worker 1 is killed with `kill -9` mid-run;
the restart rule restarts both workers and the loop resumes from its checkpoint. The report has
exactly one interruption naming worker w1 and exit status 137 (its shell reports a process
killed by signal 9 as 128+9), and its lost-since-checkpoint, resume time and runtime goodput
match, within 10%, the ground truth the loop writes with its own clock."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli
from tests.workload.goodput import train_loop

CLUSTER = ("--provider", "local", "--cluster", "gput")
LOOP = Path(train_loop.__file__)
TOLERANCE = 0.10


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    home = tmp_path_factory.mktemp("goodput-local")
    create(home, "gput", "v5p-16")
    yield home
    delete(home, "gput", check=False)


def _truth(folder: Path, worker: int) -> list[dict[str, Any]]:
    path = folder / f"w{worker}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def _poll(what: str, found: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def _worker_pid(home: Path, name: str, worker: int) -> int:
    """The pid the worker's run wrapper records (its workload folder on the worker), checked
    against the process table: it must be this loop, run by worker `worker` (polled: the
    wrapper writes the pid as it forks, before the child has become the loop)."""
    pid_file = home / f"state/local/gput/workers/s0-w{worker}/.xcli/workloads/{name}/pid"

    def loop_pid() -> int | None:
        try:
            pid = int(pid_file.read_text().split()[0])  # "PID START"
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except (OSError, ValueError):
            return None
        ours = str(LOOP).encode() in cmdline and f"TPU_WORKER_ID={worker}".encode() in environ
        return pid if ours else None

    pid: int = _poll(f"worker {worker}'s loop", loop_pid)
    return pid


def _ground_truth(events: list[dict[str, Any]], killed_at: float) -> dict[str, float]:
    """From worker 0's own clock: the time lost since the checkpoint before the kill, the time
    from the restarted process's start to its first step, and productive / held time."""
    starts = [e["at"] for e in events if e["event"] == "start"]
    assert len(starts) == 2, events
    before = [e for e in events if e["at"] < starts[1]]
    after = [e for e in events if e["at"] >= starts[1]]
    ckpt = [e["at"] for e in before if e["event"] == "checkpoint"][-1]
    first0 = next(e["at"] for e in before if e["event"] == "step")
    first1 = next(e["at"] for e in after if e["event"] == "step")
    end = next(e["at"] for e in after if e["event"] == "end")
    productive = (ckpt - first0) + (end - first1)
    held = (killed_at - starts[0]) + (end - starts[1])
    return {
        "lost_since_checkpoint": killed_at - ckpt,
        "resume": first1 - starts[1],
        "runtime_goodput": productive / held,
    }


def _close(measured: float, truth: float) -> bool:
    return abs(measured - truth) <= TOLERANCE * truth


def test_a_killed_worker_is_one_interruption_measured_against_the_loops_own_clock(
    home: Path, tmp_path: Path
) -> None:
    ckpt, truth = tmp_path / "ckpt", tmp_path / "truth"
    truth.mkdir()
    command = f"exec {sys.executable} {LOOP} {ckpt} {truth}"
    run = xcli(home, "workload", "create", *CLUSTER, "--workload", "train", "--command",
               command, "--max-restarts", "1", "--detach", check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    victim = _worker_pid(home, "train", 1)
    # worker 0 is 3 steps past its checkpoint of step 4: kill worker 1 mid-step
    _poll("step 8", lambda: any(e.get("step") == 8 for e in _truth(truth, 0)))
    time.sleep(train_loop.STEP / 2)
    killed_at = time.time()
    os.kill(victim, signal.SIGKILL)
    wait = xcli(home, "workload", "wait", "train", *CLUSTER, "--timeout", "90s", check=False)
    assert wait.returncode == 0, wait.stderr

    out = xcli(home, "workload", "goodput", "train", *CLUSTER, "--output", "json").stdout
    report = json.loads(out)
    assert list(report)[:7] == [
        "scheduling_goodput", "runtime_goodput", "program_goodput", "interruptions", "badput",
        "steps", "wall_seconds",
    ]  # fmt: skip
    (cut,) = report["interruptions"]
    assert (cut["cause"], cut["worker"], cut["exit_code"]) == ("worker exit", "w1", 137)
    assert "SIGKILL" in cut["detail"]
    assert (cut["step_reached"], cut["checkpoint_resumed_from"]) == (8, 4)
    assert report["steps"] == train_loop.TOTAL - 1
    assert report["last_checkpoint"] == train_loop.TOTAL - 1 - (train_loop.TOTAL % train_loop.K)

    expected = _ground_truth(_truth(truth, 0), killed_at)
    measured = {
        "lost_since_checkpoint": cut["lost_since_checkpoint"],
        "resume": cut["resume"],
        "runtime_goodput": report["runtime_goodput"],
    }
    for key, value in expected.items():
        print(f"{key}: measured {measured[key]:.3f}, ground truth {value:.3f}")  # shown on failure
        assert _close(measured[key], value), (key, measured[key], value, report)
    assert report["badput"]["resume"] == pytest.approx(cut["resume"], abs=1e-3)
    assert report["badput"]["lost_since_checkpoint"] == cut["lost_since_checkpoint"]
    # every second of the wall lands in one bucket
    total = report["productive_seconds"] + sum(report["badput"].values())
    assert total == pytest.approx(report["wall_seconds"], abs=0.01)
    # MFU = flops / step time / (459 TFLOP/s * 8 chips)
    mfu = train_loop.FLOPS_PER_STEP / report["step_seconds"] / (459e12 * 8)
    assert report["program_goodput"] == pytest.approx(mfu, rel=0.01)  # step_seconds is rounded

    text = xcli(home, "workload", "goodput", "train", *CLUSTER).stdout
    assert (
        "1 interruption" in text
        and "worker exit, worker w1 (exit status 137: killed by SIGKILL" in text
    )
    status = xcli(home, "workload", "status", "train", *CLUSTER).stdout
    assert "goodput: scheduling" in status and "1 interruption" in status
    listed = json.loads(xcli(home, "workload", "list", *CLUSTER, "--output", "json").stdout)
    assert listed[0]["runtime_goodput"] == report["runtime_goodput"]
