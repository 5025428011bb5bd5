"""The one py-spy dump command (xcli/plan/stacks.py:dump_command), run for real under /bin/sh:
`xcli workload stacks` and `--hang-after` both send it. On a Cloud TPU VM the run is a
container (no pid file): its processes come from `docker top xcli-NAME` and py-spy runs under
sudo; here `docker` and `sudo` are stand-ins on PATH that print a real Python's pid and run
the command as given. Without any process, the host says so (exit 3)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xcli.plan.stacks import NO_PROCESS, dump_command


def _spy_dir() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not os.access(found, os.X_OK):
        pytest.skip("py-spy is not installed (the test extra installs it)")
    return str(Path(found).parent)


def test_a_cloud_vm_dumps_the_containers_python_under_sudo(tmp_path: Path) -> None:
    spy = _spy_dir()
    program = "import time\ndef held():\n    time.sleep(60)\nheld()\n"
    target = subprocess.Popen([sys.executable, "-c", program])
    try:
        tools = tmp_path / "bin"
        tools.mkdir()
        calls = tmp_path / "calls"
        (tools / "sudo").write_text(f'#!/bin/sh\necho "sudo $1" >> {calls}\nexec "$@"\n')
        (tools / "docker").write_text(
            f'#!/bin/sh\necho "docker $*" >> {calls}\nprintf "PID\\n{target.pid}\\n"\n'
        )
        for tool in tools.iterdir():
            tool.chmod(0o755)
        env = {**os.environ, "PATH": f"{tools}:{spy}:{os.environ['PATH']}", "HOME": str(tmp_path)}
        time.sleep(1)  # py-spy can fail on an interpreter a moment old (the command retries)
        done = subprocess.run(
            ["/bin/sh", "-c", dump_command("train", cloud_vm=True)], cwd=tmp_path, env=env,
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    finally:
        target.kill()
        target.wait()
    assert done.returncode == 0, done.stderr
    assert f"Process {target.pid}:" in done.stdout and "held (<string>:3)" in done.stdout
    said = calls.read_text().splitlines()
    assert said[:2] == ["sudo docker", "docker top xcli-train -eo pid"]
    assert "sudo" in said[-1] and said[-1].endswith("py-spy")


def test_no_process_here_is_said(tmp_path: Path) -> None:
    done = subprocess.run(
        ["/bin/sh", "-c", dump_command("train")], cwd=tmp_path, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == NO_PROCESS
    assert done.stderr.strip() == "xcli: workload train has no process here"
