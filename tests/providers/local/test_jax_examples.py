"""docs/local-provider.md's JAX examples, end to end with CPU JAX on an emulated two-slice
v5litepod-16 (8 processes): the verify command, `jax.distributed.initialize()` with no
arguments, the sharded matmul read from the page itself, and the same program as a workload on
one of the two slices (4 processes that must not wait for the other 4).

xcli runs as its own process with a PATH that lacks the folder of the python running it (a venv
that is not active, as README (a) runs it): the workers' `python3` must still be that python.
Skipped where that python has no JAX (CI installs it with the test extras).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import REPO, create, delete, needs_openssh, xcli

BASE = ("--provider", "local", "--cluster", "talk")
LABELS = [f"s{s}/w{w}" for s in range(2) for w in range(4)]


def _documented_program() -> str:
    """The fenced Python block of docs/local-provider.md that starts with `# matmul.py`."""
    page = (REPO / "docs" / "local-provider.md").read_text(encoding="utf-8")
    found = re.search(r"```python\n(# matmul\.py\n.*?)```", page, re.DOTALL)
    assert found, "docs/local-provider.md lost its matmul.py example"
    return found.group(1)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    probe = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("JAX is not installed for the python running the tests")
    home = tmp_path_factory.mktemp("jax-talk")
    folder = os.path.dirname(os.path.abspath(sys.executable))
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", path)  # xcli() passes this environment to `xcli`
        create(home, "talk", "v5litepod-16", "--num-slices", "2")
        try:
            yield home
        finally:
            delete(home, "talk", check=False)


def _per_worker(stdout: str) -> dict[str, str]:
    """`[sS/wW] line` output of `xcli ssh --worker=all`: the last line of each worker."""
    out = {}
    for line in stdout.splitlines():
        label, _, rest = line.partition("] ")
        out[label.lstrip("[")] = rest
    return out


def test_workers_run_the_python_that_runs_xcli(home: Path) -> None:
    run = xcli(home, "ssh", *BASE, "--worker=all", "--command",
               'python3 -c "import sys; print(sys.prefix)"')  # fmt: skip
    assert _per_worker(run.stdout) == dict.fromkeys(LABELS, sys.prefix)


def test_verify_command_then_joined(home: Path) -> None:
    run = xcli(home, "ssh", *BASE, "--worker=all", "--command",
               'python3 -c "import jax; print(jax.device_count())"')  # fmt: skip
    assert _per_worker(run.stdout) == dict.fromkeys(LABELS, "1")  # each process alone
    joined = "import jax; jax.distributed.initialize(); print(jax.device_count())"
    run = xcli(home, "ssh", *BASE, "--worker=all", "--command", f"python3 -c '{joined}'")
    assert _per_worker(run.stdout) == dict.fromkeys(LABELS, "8")  # no arguments, all 8


def test_sharded_matmul_across_processes(home: Path, tmp_path: Path) -> None:
    program = tmp_path / "matmul.py"
    program.write_text(_documented_program())
    xcli(home, "scp", *BASE, "--worker=all", str(program), ":~/")
    run = xcli(home, "ssh", *BASE, "--worker=all", "--command", "python3 matmul.py")
    expected = {
        label: f"process {n} of 8: 8 devices, sum 65280, expected 65280"
        for n, label in enumerate(LABELS)
    }
    assert _per_worker(run.stdout) == expected, run.stderr


def test_workload_on_one_slice_counts_its_own_processes(home: Path, tmp_path: Path) -> None:
    """--num-slices 1 of 2: before the fix JAX waited for 8 processes (the cluster's count)."""
    program = tmp_path / "matmul.py"
    program.write_text(_documented_program())
    xcli(home, "scp", *BASE, "--worker=all", "--slice=0", str(program), ":~/")
    run = xcli(home, "workload", "create", *BASE, "--workload", "hello", "--num-slices", "1",
               "--command", "python3 matmul.py", check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = sorted(line for line in run.stdout.splitlines() if "process" in line)
    # one slice: workers are labelled w0..w3
    assert lines == [
        f"[w{n}] process {n} of 4: 4 devices, sum 16256, expected 16256" for n in range(4)
    ], run.stderr
