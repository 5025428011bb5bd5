"""Shared test fixtures. Tests never reach any outside host."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Upstream schemas and reference data the tests check against (tests/data/SOURCES.md).
DATA = REPO / "tests" / "data"

# Real sshd on loopback (fixtures `sshd`, `blackhole`) for the SSH engine and the local provider.
pytest_plugins = ["tests.support.sshd"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens", action="store_true", help="rewrite golden files from current output"
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own config, state and gcloud folders; no real user file is read."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XCLI_HOME", str(home / "state"))
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(home / ".config" / "gcloud"))
    # no local Docker Engine or Podman: a test that wants one serves it (tests/support/engine.py)
    monkeypatch.setenv("DOCKER_HOST", f"unix://{home / 'no-engine.sock'}")
    for var in (
        "XCLI_PROJECT",
        "XCLI_ZONE",
        "XCLI_DRY_RUN",
        "XCLI_YES",
        "XCLI_DEBUG",
        "CLOUDSDK_ACTIVE_CONFIG_NAME",
        "CLOUDSDK_CORE_PROJECT",
        "CLOUDSDK_COMPUTE_ZONE",
        "GOOGLE_CLOUD_PROJECT",
    ):
        monkeypatch.delenv(var, raising=False)
    return home
