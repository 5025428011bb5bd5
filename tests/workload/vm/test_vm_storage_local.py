"""Storage on a real local cluster, end to end through the CLI: `xcli storage attach` a folder,
a workload writes a checkpoint into the mounted storage, a second workload restores it, a
read-only storage stays read-only, and `xcli storage detach` leaves the data in place."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli

CLUSTER = ("--provider", "local", "--cluster", "stdemo")
SAVE = (
    'mkdir -p "$XCLI_CHECKPOINT_DIR" && '
    'echo "step 100 of worker $TPU_WORKER_ID" > "$XCLI_CHECKPOINT_DIR/ckpt-$TPU_WORKER_ID"'
)
RESTORE = 'echo "restored: $(cat "$XCLI_CHECKPOINT_DIR/ckpt-$TPU_WORKER_ID")"'


def _user_namespaces() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = ["unshare", "--user", "--map-root-user", "--mount", "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def attach(home: Path, name: str, folder: Path, mount: Path, *flags: str) -> Path:
    """`xcli storage attach` of a folder on a local cluster; the record file it wrote."""
    xcli(home, "storage", "attach", name, *CLUSTER, "--type", "gcsfuse", "--path", str(folder),
         "--mount-point", str(mount), *flags)  # fmt: skip
    record = home / "state" / "storage" / "stdemo" / f"{name}.json"
    assert json.loads(record.read_text())["source"] == str(folder)  # plan/storage.py's file
    return record


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    home = tmp_path_factory.mktemp("storage-local")
    create(home, "stdemo", "v5litepod-16")
    yield home
    delete(home, "stdemo", check=False)


def run(home: Path, name: str, command: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return xcli(home, "workload", "create", *CLUSTER, "--workload", name, "--command", command,
                *extra, check=False)  # fmt: skip


def test_checkpoint_written_then_restored_and_kept_after_detach(home: Path) -> None:
    bucket = home / "bucket"
    bucket.mkdir()
    mount = home / "mnt" / "ckpt"  # does not exist yet; its parent is writable
    (home / "mnt").mkdir()
    record = attach(home, "ckpt", bucket, mount)
    where = ("--storage", "ckpt", "--checkpoint-dir", f"{mount}/run-1")

    saved = run(home, "save", SAVE, *where)
    assert saved.returncode == 0, saved.stderr
    for worker in range(4):
        text = (bucket / "run-1" / f"ckpt-{worker}").read_text()
        assert text == f"step 100 of worker {worker}\n"

    restored = run(home, "restore", RESTORE, *where)
    assert restored.returncode == 0, restored.stderr
    for worker in range(4):
        assert f"[w{worker}] restored: step 100 of worker {worker}" in restored.stdout

    xcli(home, "storage", "detach", "ckpt", *CLUSTER)
    assert not record.exists()
    assert (bucket / "run-1" / "ckpt-0").read_text() == "step 100 of worker 0\n"
    gone = run(home, "again", RESTORE, *where)
    assert gone.returncode == 1
    assert gone.stderr.splitlines() == [
        "error: no storage ckpt is attached to cluster stdemo",
        "hint: none is; attach one with `xcli storage attach NAME --cluster stdemo ...`",
    ]


def test_read_only_storage_cannot_be_written(home: Path) -> None:
    if not _user_namespaces():
        pytest.skip("no unprivileged user namespaces: the symlink fallback cannot enforce it")
    data = home / "dataset"
    data.mkdir()
    (data / "shard-0").write_text("tokens\n")
    mount = home / "data"
    attach(home, "data", data, mount, "--readonly", "--auto-mount")
    read = run(home, "read", f"cat {mount}/shard-0 && ! touch {mount}/new 2>/dev/null")
    assert read.returncode == 0, read.stderr + read.stdout
    assert "[w0] tokens" in read.stdout  # auto-mount: mounted without --storage
    assert not (data / "new").exists()
