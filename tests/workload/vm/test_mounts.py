"""Storages on VM-style workers: the gcsfuse mount and unmount around the run on Cloud TPU VMs
(golden plan, and the script run for real with stand-in gcsfuse/sudo binaries), and the
translation of recorded mount options."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.workload.vm.test_plan import WORKERS, _spec
from xcli.errors import UserError
from xcli.plan.render import plan_json, plan_text
from xcli.plan.storage import Storage
from xcli.plan.vm_run import VmWorkloadRun
from xcli.workload.storage_mounts import resolve, with_env
from xcli.workload.vm import mounts

OPTIONS = ("implicit-dirs", "metadata-cache:ttl-secs:-1", "uid=1000")
DATA = Storage("data", "gcsfuse", "my-dataset", "/mnt/data", readonly=True, mount_options=OPTIONS)
CKPT = Storage("ckpt", "gcsfuse", "gs://my-ckpt", "/mnt/ckpt", auto_mount=True)


def test_golden_vm_plan_with_gcsfuse_mounts(update_goldens: bool) -> None:
    found = resolve([DATA, CKPT], ["data"], "demo", "/mnt/ckpt/jax", None)
    assert [s.name for s in found.storages] == ["data", "ckpt"]  # auto-mount comes too
    spec = with_env(_spec(), found)
    plan = mounts.plan(spec, WORKERS[:4], True, False, found)
    for suffix, text in (("json", plan_json(plan)), ("txt", plan_text(plan))):
        path = REPO / "tests" / "goldens" / "workload" / f"vm-queued-resource-storage.{suffix}"
        if update_goldens:
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8"), f"{path.name} changed"
    (step,) = plan.steps
    assert isinstance(step, VmWorkloadRun)
    script = step.workers[0].argv[2]
    assert "sudo gcsfuse -o allow_other -o ro --implicit-dirs -o uid=1000 --config-file" in script
    assert "my-dataset /mnt/data" in script and "my-ckpt /mnt/ckpt" in script
    assert "-v /mnt/data:/mnt/data:ro" in script and "-v /mnt/ckpt:/mnt/ckpt " in script
    # the storage's variables travel with the workload's own, in the uploaded file
    assert ("JAX_COMPILATION_CACHE_DIR", "/mnt/ckpt/jax") in step.env
    assert "--env-file .xcli/workloads/train-1/env" in script
    assert script.index("gcsfuse_3.11.2_ARCH.deb") < script.index("docker run")


def test_options_become_flags_and_config_lines() -> None:
    flags, lines = mounts.gcsfuse_options(
        ["ro", "implicit-dirs", "file-cache:max-size-mb:-1", "metadata-cache:ttl-secs:-1",
         "file-cache:cache-file-for-range-read:true", "gid=2000"]
    )  # fmt: skip
    assert flags == ["--implicit-dirs", "-o gid=2000"]
    assert lines == [
        "file-cache:",
        "  max-size-mb: -1",
        "  cache-file-for-range-read: true",
        "metadata-cache:",
        "  ttl-secs: -1",
    ]


def test_only_buckets_mount_on_cloud_tpu_vms() -> None:
    from xcli.providers import DEFAULT

    fs = Storage("fs", "filestore", "projects/p/locations/z/instances/i", "/fs")
    with pytest.raises(UserError, match="mount only gcsfuse buckets"):
        mounts.check([fs], DEFAULT.capabilities("queued-resource").vm_storage)


def test_local_storages_are_folders_of_this_machine() -> None:
    from xcli.providers import DEFAULT

    bucket = Storage("b", "gcsfuse", "my-bucket", "/data")
    rule = DEFAULT.capabilities("local").vm_storage
    with pytest.raises(UserError, match="is not a folder on this machine"):
        mounts.check([bucket], rule)
    mounts.check([Storage("d", "gcsfuse", "/srv/data", "/data")], rule)
    mounts.check([bucket], DEFAULT.capabilities("queued-resource").vm_storage)


def _stubs(folder: Path, log: Path, with_gcsfuse: bool) -> dict[str, str]:
    """sudo runs its command; gcsfuse, fusermount, curl, dpkg and apt-get log what they get."""
    folder.mkdir()
    logger = f'#!/bin/sh\necho "$(basename "$0") $*" >> {log}\n'
    for name in ("fusermount", "curl", "dpkg"):
        (folder / name).write_text(logger + ('[ "$1" = --print-architecture ] && echo amd64\n'
                                             if name == "dpkg" else ""))  # fmt: skip
    # apt-get "installs" gcsfuse: the stand-in appears on PATH
    (folder / "apt-get").write_text(logger + f"printf '%s' '{logger}' > {folder}/gcsfuse\n"
                                    f"chmod +x {folder}/gcsfuse\n")  # fmt: skip
    (folder / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
    if with_gcsfuse:
        (folder / "gcsfuse").write_text(logger)
    for tool in folder.iterdir():
        tool.chmod(0o755)
    return {**os.environ, "PATH": f"{folder}:/usr/bin:/bin"}


@pytest.mark.parametrize("installed", [True, False])
def test_mounted_before_the_run_and_unmounted_after_a_failure(
    tmp_path: Path, installed: bool
) -> None:
    log = tmp_path / "log"
    env = _stubs(tmp_path / "bin", log, installed)
    storage = Storage("ckpt", "gcsfuse", "my-ckpt", str(tmp_path / "mnt"), readonly=True)
    script = mounts.wrap_script([storage], f"echo run >> {log}; exit 3", cloud_vms=True)
    done = subprocess.run(["/bin/sh", "-c", script], env=env, check=False, timeout=30)
    assert done.returncode == 3
    calls = log.read_text().splitlines()
    mount = f"gcsfuse -o allow_other -o ro my-ckpt {tmp_path / 'mnt'}"
    unmount = f"fusermount -u {tmp_path / 'mnt'}"
    assert calls[calls.index(mount) + 1] == "run"
    assert calls[-1] == unmount  # after the failed run
    installs = [c for c in calls if c.startswith("apt-get")]
    assert len(installs) == (0 if installed else 1)
