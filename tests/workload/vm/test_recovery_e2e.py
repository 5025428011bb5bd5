"""Recovery end to end on the local provider with real CPU JAX (issue 35): a run that blocks
after step 5 with --hang-after 3s gets every worker's stacks saved (py-spy) and is restarted,
and goodput names the cause `hang`; a program that ignores its checkpoint is reported as
restarted from scratch. Each run is one short `workload create` in the foreground."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gateways.local_support import REPO, cli_env, create, delete, needs_openssh, xcli
from tests.workload.vm import recovery_loop

CLUSTER = ("--provider", "local", "--cluster", "recov")
LOOP = Path(recovery_loop.__file__)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    probe = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("JAX is not installed for the python running the tests")
    home = tmp_path_factory.mktemp("recovery")
    create(home, "recov", "v5p-16")  # two workers
    yield home
    delete(home, "recov", check=False)


def _goodput(home: Path, name: str) -> dict[str, Any]:
    out = xcli(home, "workload", "goodput", name, *CLUSTER, "--output", "json").stdout
    return json.loads(out)  # type: ignore[no-any-return]


def test_a_hung_run_gets_its_stacks_saved_and_is_restarted(home: Path, tmp_path: Path) -> None:
    if shutil.which("py-spy") is None and not (Path(sys.executable).parent / "py-spy").exists():
        pytest.skip("py-spy is not installed (the test extra installs it)")
    command = f"exec {sys.executable} {LOOP} hang {tmp_path}"
    run = xcli(home, "workload", "create", *CLUSTER, "--workload", "hung", "--command", command,
               "--max-restarts", "1", "--hang-after", "3s", check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "restart: worker all failed (hang: no new goodput mark for" in run.stderr
    (stacks,) = (home / "state").rglob("hung/stacks/attempt-0")
    dumps = {p.name: p.read_text() for p in sorted(stacks.iterdir())}
    assert sorted(dumps) == ["summary.txt", "w0.txt", "w1.txt"], dumps
    for name in ("w0.txt", "w1.txt"):  # py-spy's own dump of the blocked main thread
        text = dumps[name]
        assert "Thread" in text and "main (" in text and "recovery_loop.py" in text, text
    # grouped as `xcli workload stacks` groups them: both workers blocked in the same place
    assert dumps["summary.txt"].startswith("2 hosts in "), dumps["summary.txt"]
    report = _goodput(home, "hung")
    (cut,) = report["interruptions"]
    assert cut["cause"] == "hang" and "--hang-after 3s" in cut["detail"]
    assert (cut["step_reached"], cut["checkpoint_resumed_from"]) == (5, 5)
    assert cut["restarted_from_scratch"] is False
    assert report["steps"] == recovery_loop.TOTAL - 1
    assert report["restarts"] == {"disruptions": 0, "failures": 1}
    text = xcli(home, "workload", "goodput", "hung", *CLUSTER).stdout
    assert "hang (hang: no new goodput mark" in text


def test_a_program_that_ignores_its_checkpoint_restarted_from_scratch(
    home: Path, tmp_path: Path
) -> None:
    command = f"exec {sys.executable} {LOOP} scratch {tmp_path}"
    run = xcli(home, "workload", "create", *CLUSTER, "--workload", "scratch", "--command",
               command, "--max-restarts", "1", check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = _goodput(home, "scratch")
    (cut,) = report["interruptions"]
    assert (cut["cause"], cut["exit_code"]) == ("worker exit", 3)
    assert cut["checkpoint_resumed_from"] == 5 and cut["restarted_from_scratch"] is True
    assert report["badput"]["restarted_from_scratch"] > 0
    text = xcli(home, "workload", "goodput", "scratch", *CLUSTER).stdout
    assert "restarted from scratch (checkpoint 5 was not resumed from)" in text


def _pids(home: Path, name: str) -> list[int]:
    """The run's process group on each worker (the pid files its run wrapper writes)."""
    found = []
    for pid_file in (home / "state" / "local" / "recov" / "workers").glob(
        f"*/.xcli/workloads/{name}/pid"
    ):
        try:
            found.append(int(pid_file.read_text().split()[0]))
        except (OSError, ValueError):
            continue
    return found


def _marked(home: Path, name: str, mark: str) -> bool:
    found = list((home / "state").rglob(f"{name}/goodput.jsonl"))
    return bool(found) and any(
        mark in json.loads(line)["line"] and json.loads(line)["worker"] in ("w0", "s0/w0")
        for line in found[0].read_text().splitlines()
        if line.endswith("}")
    )


def _preempt(home: Path, name: str) -> None:
    """The emulated hosts go, as a preempted slice's do: every worker's SSH server (the
    supervisor holds them all) and what runs on them, killed without warning."""
    state = json.loads((home / "state" / "local" / "recov" / "state.json").read_text())
    for group in _pids(home, name):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
    os.kill(int(state["pid"]), signal.SIGKILL)


def test_preempted_hosts_are_recreated_and_the_run_resumes_from_its_checkpoint(
    home: Path, tmp_path: Path
) -> None:
    command = f"exec {sys.executable} {LOOP} resume {tmp_path}"
    argv = [sys.executable, "-m", "xcli", "workload", "create", *CLUSTER, "--workload",
            "preempt", "--command", command, "--max-restarts", "1", "--recover"]  # fmt: skip
    run = subprocess.Popen(argv, env=cli_env(home), cwd=REPO, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while not _marked(home, "preempt", "checkpoint=5"):  # as xcli read it from worker 0
            assert time.monotonic() < deadline and run.poll() is None, "no checkpoint 5"
            time.sleep(0.02)
        _preempt(home, "preempt")
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err
    assert "its SSH servers are gone (its hosts were preempted): re-creating it" in err
    report = _goodput(home, "preempt")
    (cut,) = report["interruptions"]
    assert cut["cause"] == "reschedule", cut
    saved = cut["checkpoint_resumed_from"]
    assert saved is not None and saved >= 5 and cut["restarted_from_scratch"] is False
    marks = [
        json.loads(line)
        for line in next((home / "state").rglob("preempt/goodput.jsonl")).read_text().splitlines()
    ]
    steps = [m for m in marks if m["worker"] in ("w0", "s0/w0") and "step=" in m["line"]]
    after = [
        m
        for m in steps
        if m["at"]
        > max(
            x["at"]
            for x in steps
            if "step=" in x["line"] and int(x["line"].split("step=")[1]) == saved
        )
    ]
    first = int(after[0]["line"].split("step=")[1])
    assert first == saved + 1  # resumed right after the checkpoint, on the re-created worker
    assert report["steps"] == recovery_loop.TOTAL - 1
    assert report["restarts"] == {"disruptions": 1, "failures": 0}
