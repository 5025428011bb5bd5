"""Where OpenSSH's reusable-connection sockets go, and that the folder must be private."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xcli.errors import UserError
from xcli.gateways.ssh.openssh_engine import MAX_CONTROL_DIR, control_dir, ensure_control_dir


def test_short_state_dir_holds_the_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XCLI_HOME", "/x/state")
    assert control_dir() == Path("/x/state/cm")


def test_long_state_dirs_fall_back_to_distinct_short_folders(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = set()
    for name in ("a", "b"):
        monkeypatch.setenv("XCLI_HOME", str(tmp_path / ("long-" * 12) / name))
        folder = control_dir()
        assert len(str(folder)) <= MAX_CONTROL_DIR and str(os.getuid()) in folder.name
        found.add(folder)
    assert len(found) == 2


def test_a_shared_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "cm"
    ensure_control_dir(folder)
    assert folder.stat().st_mode & 0o777 == 0o700
    folder.chmod(0o777)
    with pytest.raises(UserError, match="is not private to you"):
        ensure_control_dir(folder)
