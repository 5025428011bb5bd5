"""Everything xcli leaves in its state and settings folders is owner-only, whatever the umask
(issue 26 item 4), after a real local cluster's life through the CLI: create (keys, known_hosts,
state.json, the supervisor's log and worker folders), `config set`, `storage attach`, a detached
workload (run.json, state.json, its logs) and `xcli ssh`."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli

WHERE = ("--provider", "local", "--cluster", "modes")


@pytest.fixture(params=[0o000, 0o022], ids=["umask-000", "umask-022"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)  # inherited by every xcli process the test starts
    try:
        yield request.param
    finally:
        os.umask(old)


def _wider(root: Path) -> list[str]:
    found = []
    for path in [root, *root.rglob("*")]:
        info = path.lstat()
        if not stat.S_ISLNK(info.st_mode) and stat.S_IMODE(info.st_mode) & 0o077:
            found.append(f"{path.relative_to(root)} {stat.S_IMODE(info.st_mode):o}")
    return found


def test_state_and_settings_are_owner_only(tmp_path: Path, umask: int) -> None:
    needs_openssh()
    (tmp_path / "dataset").mkdir()
    create(tmp_path, "modes", "v5litepod-8")
    try:
        xcli(tmp_path, "config", "set", "zone", "us-east5-b")
        xcli(tmp_path, "storage", "attach", "data", *WHERE, "--type", "gcsfuse",
             "--path", str(tmp_path / "dataset"), "--mount-point", "/mnt/modes-data")  # fmt: skip
        xcli(tmp_path, "workload", "create", *WHERE, "--workload", "bg", "--docker-image",
             "python:3.11", "--command", "echo hello; echo hi > out.txt", "--detach")  # fmt: skip
        xcli(tmp_path, "workload", "wait", "bg", *WHERE)
        assert "hello" in xcli(tmp_path, "workload", "logs", "bg", *WHERE).stdout
        xcli(tmp_path, "ssh", *WHERE, "--worker", "all", "--command", "echo hi > hi.txt")
        state, settings = tmp_path / "state", tmp_path / ".config" / "xcli"
        assert (state / "clusters.json").is_file() and (settings / "config.yaml").is_file()
        assert list(state.rglob("run.json")) and list(state.rglob("known_hosts"))
        assert list(state.rglob("hi.txt")) and list(state.rglob("out.txt"))
        assert _wider(state) == [] and _wider(settings) == []
    finally:
        delete(tmp_path, "modes", check=False)
