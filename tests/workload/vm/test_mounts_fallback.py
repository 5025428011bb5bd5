"""The local provider's symlink fallback (no user namespaces) with hostile mount points: the
script from templates/workload/vm-mounts.sh.j2 runs for real under /bin/sh, with an `unshare`
that fails first on PATH, and nothing outside the mount points may change.

Issue 26 item 1: the clean-up once expanded `$made` unquoted, so a mount point `/data/*` removed
every file in `/data` and `/data/keep me` removed `/data/keep`. `storage attach` now refuses such
mount points; this test keeps the script itself safe (defence in depth).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from xcli.plan.storage import Storage
from xcli.workload.vm import mounts

HOSTILE = ("*", "keep me", "[ab]", "$(touch pwned)", "-rf", "new\nline", "x?")


def _tree(root: Path) -> dict[str, str]:
    """Every path under root: a link as its target, a file as its text, else "dir"."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            found[str(path.relative_to(root))] = (
                "-> " + os.readlink(path)
                if path.is_symlink()
                else path.read_text()
                if path.is_file()
                else "dir"
            )
    return found


@pytest.mark.parametrize("hostile", HOSTILE)
def test_fallback_removes_only_its_own_links(tmp_path: Path, hostile: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    unshare = bin_dir / "unshare"
    unshare.write_text("#!/bin/sh\nexit 1\n")
    unshare.chmod(0o755)
    source = tmp_path / "source"
    source.mkdir()
    (source / "dataset").write_text("data")
    data = tmp_path / "data"
    data.mkdir()
    for name in ("a", "b", "keep", "me", "x1", "-r", "f"):
        (data / name).write_text(name)
    before = _tree(tmp_path)
    target = data / hostile
    storage = Storage("s", "gcsfuse", str(source), str(target))
    # the workload reads the storage through the link while the link exists
    inner = f"cat {shlex.quote(str(target / 'dataset'))}"
    script = mounts.wrap_script([storage], inner, cloud_vms=False)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = subprocess.run(
        ["/bin/sh", "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
        timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "data"
    assert not os.path.lexists(target), "the link outlived the run"
    assert _tree(tmp_path) == before
