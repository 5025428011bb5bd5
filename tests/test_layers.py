"""The import contracts (pyproject.toml [tool.importlinter]) fail on a deliberate violation: a
copy of the package with one forbidden import added is checked by lint-imports itself, so a
bypass of app/ by the CLI cannot come back unnoticed (issue 23)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT), "--no-cache", "--config", str(root / "pyproject.toml")],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.skipif(not LINT.exists(), reason="import-linter is a test dependency")
def test_a_cli_import_of_the_workload_package_breaks_the_sixth_contract(tmp_path: Path) -> None:
    shutil.copytree(REPO / "xcli", tmp_path / "xcli", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    assert _lint(tmp_path).returncode == 0  # the copy as it is keeps every contract
    ssh = tmp_path / "xcli" / "cli" / "ssh.py"
    ssh.write_text(ssh.read_text() + "\nfrom xcli.workload.jobset import manifest  # noqa\n")
    broken = _lint(tmp_path)
    assert broken.returncode != 0
    assert "The CLI reaches the core through app/ only" in broken.stdout
    assert "xcli.cli.ssh -> xcli.workload.jobset.manifest" in broken.stdout
