"""Storage on a real local cluster, end to end: a workload writes a checkpoint into a mounted
storage, a second workload restores it, a read-only storage stays read-only, and removing the
record (what `xcli storage detach` does on this provider) leaves the data in place."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli
from xcli.plan.storage import Storage

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


def attach(home: Path, storage: Storage) -> Path:
    """The record `xcli storage attach` writes for a local cluster (plan/storage.py's file)."""
    path = home / "state" / "storage" / "stdemo" / f"{storage.name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(storage.to_json()), encoding="utf-8")
    return path


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
    record = attach(home, Storage("ckpt", "gcsfuse", str(bucket), str(mount)))
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

    record.unlink()  # detach
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
    attach(home, Storage("data", "gcsfuse", str(data), str(mount), readonly=True, auto_mount=True))
    read = run(home, "read", f"cat {mount}/shard-0 && ! touch {mount}/new 2>/dev/null")
    assert read.returncode == 0, read.stderr + read.stdout
    assert "[w0] tokens" in read.stdout  # auto-mount: mounted without --storage
    assert not (data / "new").exists()
