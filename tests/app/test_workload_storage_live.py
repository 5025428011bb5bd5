"""`workload create --storage` live against an in-memory Kubernetes API: the storage records
are read from their ConfigMaps (auto-mount ones included), and the JobSet applied is the one
the dry-run printed from --storage-record files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.app.test_workload_live import CREATE
from tests.support.core import validate_core
from tests.support.workload_cluster import JOBSETS, NS, Cluster, cluster, set_up
from xcli.plan.storage import Storage, configmap_name, to_configmap

__all__ = ["cluster"]  # the fixture

DATA = Storage("data", "gcsfuse", "my-dataset", "/data", readonly=True, pvc="data-pvc")
CKPT = Storage("ckpt", "gcsfuse", "my-ckpt", "/ckpt", auto_mount=True, pvc="ckpt-pvc")
LEVERS = ["--storage", "data", "--compilation-cache", "/ckpt/jax", "--output", "json"]


def test_live_reads_the_records_and_applies_the_dry_run_manifest(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = set_up(cluster.fake)
    for storage in (DATA, CKPT):
        obj = to_configmap(storage)
        validate_core(obj)
        cluster.fake.put(f"{NS}/configmaps/{configmap_name(storage.name)}", obj)
        (tmp_path / f"{storage.name}.yaml").write_text(yaml.safe_dump(obj))
    meta_file = tmp_path / "meta.yaml"
    meta_file.write_text(yaml.safe_dump(config["data"]))
    records = ["--storage-record", str(tmp_path / "data.yaml"),
               "--storage-record", str(tmp_path / "ckpt.yaml")]  # fmt: skip
    dry = [*CREATE, *LEVERS, "--dry-run", "--cluster-metadata", str(meta_file), *records]
    code, out, err = cluster.run(dry, capsys)
    assert code == 0, err
    (step,) = json.loads(out)["plan"]
    assert cluster.fake.requests == []

    code, out, err = cluster.run([*CREATE, *LEVERS], capsys)
    assert code == 0, err
    (patch,) = cluster.fake.patches()
    assert patch.url.path == f"{JOBSETS}/train-1"
    applied = json.loads(patch.content)
    assert applied == step["manifest"]
    pod = applied["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert [v["name"] for v in pod["volumes"]] == ["shared-memory", "storage-data", "storage-ckpt"]
    listed = [r for r in cluster.fake.requests if r.url.path == f"{NS}/configmaps"]
    assert [dict(r.url.params).get("labelSelector") for r in listed] == ["xcli.dev/storage=true"]


def test_an_unknown_name_lists_the_attached_ones_and_writes_nothing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    cluster.fake.put(f"{NS}/configmaps/xcli-storage-data", to_configmap(DATA))
    code, _, err = cluster.run([*CREATE, "--storage", "datta"], capsys)
    assert code == 1
    assert err.splitlines() == [
        "error: no storage datta is attached to cluster demo",
        "hint: attached: data",
    ]
    assert cluster.fake.patches() == []
