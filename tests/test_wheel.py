"""Build the wheel, install it into a fresh virtual environment, and use it from elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def sh(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{argv}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    sh(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(work / "dist"),
            str(REPO),
        ],
        cwd=work,
    )
    wheels = list((work / "dist").glob("xcli-*.whl"))
    assert len(wheels) == 1
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    sh([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(wheels[0])], cwd=work)
    return env_dir


def clean_env(home: Path) -> dict[str, str]:
    """No credentials, no config: what a CI job that only wants a dry-run has."""
    keep = {
        k: v
        for k, v in os.environ.items()
        if k in ("PATH", "LANG", "LC_ALL", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")
    }
    return {
        **keep,
        "HOME": str(home),
        "XCLI_HOME": str(home / "state"),
        "CLOUDSDK_CONFIG": str(home / "gcloud"),
    }


def test_wheel_ships_its_resources_and_runs_outside_the_repo(
    installed: Path, tmp_path: Path
) -> None:
    python = str(installed / "bin" / "python")
    found = sh(
        [
            python,
            "-c",
            "from xcli.resources import resource_dir as r;"
            "print(r('templates')); print(r('terraform'))",
        ],
        cwd=tmp_path,
    )
    for line in found.splitlines():
        assert str(installed) in line and "_resources" in line
    xcli = str(installed / "bin" / "xcli")
    out = sh(
        [xcli, "catalog", "show", "v6e-256", "--output", "json"],
        cwd=tmp_path,
        env=clean_env(tmp_path),
    )
    assert json.loads(out)["vms_per_slice"] == 64


def test_dry_run_from_the_wheel_needs_no_credentials(installed: Path, tmp_path: Path) -> None:
    xcli = str(installed / "bin" / "xcli")
    argv = [
        xcli,
        "cluster",
        "create",
        "--cluster",
        "demo",
        "--tpu-type",
        "v6e-256",
        "--num-slices",
        "2",
        "--spot",
        "--project",
        "my-project",
        "--zone",
        "us-east5-b",
        "--dry-run",
        "--output",
        "json",
    ]
    first = sh(argv, cwd=tmp_path, env=clean_env(tmp_path))
    second = sh(argv, cwd=tmp_path, env=clean_env(tmp_path))
    assert first == second
    steps = json.loads(first)["plan"]
    assert any(s.get("request", {}).get("url", "").endswith("/nodePools") for s in steps)


def test_terraform_folder_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    """--terraform renders the root templates and copies the modules shipped in the wheel."""
    xcli = str(installed / "bin" / "xcli")
    argv = [xcli, "cluster", "create", "--cluster", "demo", "--tpu-type", "v6e-256", "--spot"]
    argv += ["--project", "my-project", "--zone", "us-east5-b", "--terraform", "deploy"]
    sh([*argv, "--dry-run", "--out", "out"], cwd=tmp_path, env=clean_env(tmp_path))
    assert not (tmp_path / "deploy").exists()
    shipped = REPO / "terraform" / "tpu-node-pool" / "main.tf"
    copied = tmp_path / "out" / "terraform" / "modules" / "tpu-node-pool" / "main.tf"
    assert copied.read_text() == shipped.read_text()
    assert 'source = "./modules/tpu-node-pool"' in (tmp_path / "out/terraform/main.tf").read_text()


def test_wheel_and_sdist_carry_the_licence(installed: Path, tmp_path: Path) -> None:
    """PEP 639: the licence text ships in both (license-files), named in the metadata."""
    (wheel,) = (installed.parent / "dist").glob("xcli-*.whl")
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = whl.read(meta).decode()
        licence = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert len(licence) == 1
        assert whl.read(licence[0]) == (REPO / "LICENSE").read_bytes()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    assert "License-File: LICENSE" in metadata.splitlines()
    sh([sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path)], cwd=REPO)
    (sdist,) = tmp_path.glob("xcli-*.tar.gz")
    with tarfile.open(sdist) as tar:
        members = tar.getnames()
        top = members[0].split("/")[0]
        assert f"{top}/LICENSE" in members
        assert f"{top}/CHANGELOG.md" in members
        assert f"{top}/tests/data/SOURCES.md" in members  # the tests run from an sdist too
        extracted = tar.extractfile(f"{top}/LICENSE")
        assert extracted is not None and extracted.read() == (REPO / "LICENSE").read_bytes()
