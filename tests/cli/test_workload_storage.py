"""`xcli workload create --storage ... --compilation-cache ... --dry-run` on GKE: the golden
plan (two storages, a compilation cache), the pod settings, validated, and the environment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.test_workload_cli import BASE, GOLDENS, _check_golden, _run
from tests.support.core import validate_core
from tests.support.crd import validate
from xcli.plan.storage import Storage, to_configmap

DATA = Storage(
    name="data",
    type="gcsfuse",
    source="my-dataset",
    mount_point="/data",
    readonly=True,
    mount_options=("implicit-dirs", "metadata-cache:ttl-secs:-1"),
    pvc="data-pvc",
)
CKPT = Storage(
    name="ckpt",
    type="filestore",
    source="projects/p/locations/z/instances/fs",
    mount_point="/ckpt",
    pvc="ckpt-pvc",
)
TWO = ["--storage", "data,ckpt", "--storage-record", "data.yaml", "--storage-record", "ckpt.json"]
SCENARIO = [
    "--tpu-type",
    "v6e-256",
    "--num-slices",
    "2",
    *TWO,
    "--compilation-cache",
    "/ckpt/jax-cache",
    "--checkpoint-dir",
    "gs://my-ckpt/run-1",
]


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "data.yaml").write_text(yaml.safe_dump(to_configmap(DATA)))
    (tmp_path / "ckpt.json").write_text(json.dumps(to_configmap(CKPT)))
    nested = Storage(name="more", type="gcsfuse", source="b2", mount_point="/data/more", pvc="m")
    (tmp_path / "nested.json").write_text(json.dumps(nested.to_json()))
    (tmp_path / "ro.json").write_text(json.dumps(CKPT.to_json() | {"readonly": True}))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _pods(out: str) -> list[dict[str, Any]]:
    (step,) = json.loads(out)["plan"]
    jobs = step["manifest"]["spec"]["replicatedJobs"]
    return [job["template"]["spec"]["template"] for job in jobs]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden_two_storages_and_a_compilation_cache(
    fmt: str, records: Path, capsys: pytest.CaptureFixture[str], update_goldens: bool
) -> None:
    code, out, err = _run([*BASE, *SCENARIO, "--output", fmt], capsys)
    assert code == 0, err
    suffix = "json" if fmt == "json" else "txt"
    _check_golden(GOLDENS / f"v6e-256-x2-storage.{suffix}", out, update_goldens)
    if fmt == "json":
        validate(json.loads(out)["plan"][0]["manifest"])


def test_pods_mount_both_storages_with_the_gcsfuse_settings(
    records: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run([*BASE, *SCENARIO, "--output", "json"], capsys)
    assert code == 0, err
    for template in _pods(out):
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", **template["metadata"]},
            "spec": template["spec"],
        }
        validate_core(pod)
        assert template["metadata"]["annotations"] == {
            "gke-gcsfuse/volumes": "true",
            "gke-gcsfuse/cpu-limit": "0",
            "gke-gcsfuse/memory-limit": "0",
            "gke-gcsfuse/ephemeral-storage-limit": "0",
        }
        assert template["spec"]["volumes"] == [
            {"name": "shared-memory", "emptyDir": {"medium": "Memory"}},  # every JobSet pod
            {
                "name": "storage-data",
                "persistentVolumeClaim": {"claimName": "data-pvc", "readOnly": True},
            },
            {
                "name": "storage-ckpt",
                "persistentVolumeClaim": {"claimName": "ckpt-pvc", "readOnly": False},
            },
        ]
        for container in template["spec"]["containers"]:
            assert container["volumeMounts"] == [
                {"name": "shared-memory", "mountPath": "/dev/shm"},
                {"name": "storage-data", "mountPath": "/data", "readOnly": True},
                {"name": "storage-ckpt", "mountPath": "/ckpt", "readOnly": False},
            ]
            env = {e["name"]: e.get("value") for e in container["env"]}
            assert env["JAX_COMPILATION_CACHE_DIR"] == "/ckpt/jax-cache"
            assert env["XLA_PERSISTENT_CACHE_PATH"] == "/ckpt/jax-cache"
            assert env["XCLI_CHECKPOINT_DIR"] == "gs://my-ckpt/run-1"


def test_compilation_cache_on_gcs_is_in_every_container(
    records: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Acceptance: `--compilation-cache gs://b/c --dry-run` puts the path in every container."""
    args = [
        *BASE,
        "--device-type",
        "h100-80gb-8",
        "--num-nodes",
        "2",
        "--compilation-cache",
        "gs://bkt/c",  # issue 16's gs://b/c: no bucket of 1 character exists (issue 37)
        "--env",
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=5",
        "--output",
        "json",
    ]
    code, out, err = _run(args, capsys)
    assert code == 0, err
    containers = [c for t in _pods(out) for c in t["spec"]["containers"]]
    assert containers
    for container in containers:
        env = [(e["name"], e.get("value")) for e in container["env"]]
        assert ("JAX_COMPILATION_CACHE_DIR", "gs://bkt/c") in env
        assert ("XLA_PERSISTENT_CACHE_PATH", "gs://bkt/c") in env
        assert ("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0") in env
        # the user's --env wins over the default minimum
        names = [n for n, _ in env]
        assert names.count("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS") == 1
        # ... and, being the user's own --env, its value is hidden in the printed plan (issue 37)
        assert ("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "<redacted>") in env
    assert "etils[epath]" in " ".join(json.loads(out)["notes"])


def test_a_storage_a_dry_run_did_not_read_is_mounted_from_its_record_read_first(
    records: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """XPK's `workload create --storage=test-storage` (docs/usage/storage.md:182) on a dry-run
    with no record file: the plan reads the record first and mounts it by refs (issue 36)."""
    code, out, err = _run(
        [*BASE, "--tpu-type", "v6e-256", "--num-slices", "2", "--storage", "nope", *TWO[2:],
         "-o", "json"], capsys,
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    read = doc["plan"][0]
    assert read["kind"] == "read_first" and read["name"] == "xcli-storage-nope"
    (apply,) = [s for s in doc["plan"] if s["kind"] == "k8s_apply" and
                s["manifest"]["kind"] == "JobSet"]  # fmt: skip
    assert "storage-nope" in apply["after"]
    pod = apply["manifest"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    (volume,) = [v for v in pod["volumes"] if v["name"] == "storage-nope"]
    assert volume["persistentVolumeClaim"]["claimName"] == "${storage-nope.pvc}"
    mounts = pod["containers"][0]["volumeMounts"]
    assert {"name": "storage-nope", "mountPath": "${storage-nope.mount_point}",
            "readOnly": "${storage-nope.readonly}"} in mounts  # fmt: skip
    assert any("the live run reads first" in n for n in doc["notes"])


@pytest.mark.parametrize(
    ("extra", "error", "hint"),
    [
        (
            [
                "--storage",
                "data",
                "--storage-record",
                "data.yaml",
                "--compilation-cache",
                "/data/c",
            ],
            "error: --compilation-cache /data/c is inside storage data, which is attached",
            "hint: write it to a storage attached without --readonly",
        ),
        (
            ["--storage", "ckpt", "--storage-record", "ro.json", "--checkpoint-dir", "/ckpt/x"],
            "error: --checkpoint-dir /ckpt/x is inside storage ckpt, which is attached read-only",
            "hint: write it to a storage attached without --readonly",
        ),
        (
            ["--compilation-cache", "/elsewhere"],
            "error: --compilation-cache /elsewhere is not inside a mounted storage",
            "hint: mount one with --storage NAME",
        ),
        (
            [
                "--storage",
                "data,more",
                "--storage-record",
                "data.yaml",
                "--storage-record",
                "nested.json",
            ],
            "error: storages data and more collide: mount points /data and /data/more",
            "hint: mount only one of them",
        ),
        (
            ["--compilation-cache", "gs://My-Bucket/c"],
            "error: --compilation-cache 'gs://My-Bucket/c': bucket name 'My-Bucket' may contain "
            "only lowercase letters, digits, -, _ and ., and must start and end with a letter "
            "or digit",
            "hint: bucket names: 3-63 characters",
        ),
        (
            ["--compilation-cache", "cache"],
            "error: --compilation-cache 'cache' is neither gs://BUCKET/PATH nor",
            "hint: give gs://BUCKET/PATH",
        ),
    ],
)
def test_bad_storage_input(
    extra: list[str], error: str, hint: str, records: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run([*BASE, "--tpu-type", "v6e-256", "--num-slices", "2", *extra], capsys)
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 2 and lines[0].startswith(error) and lines[1].startswith(hint), err
