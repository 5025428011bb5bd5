"""A workload on a node auto-provisioning cluster, live against the in-memory Kubernetes API
(issue 38): the cluster's metadata ConfigMap, as `cluster create --enable-autoprovisioning`
writes it, lets a workload of another slice size through, and the same JobSet as the dry-run
is applied; one over the chip limit is refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.plan.gke_cases import CASES as GKE_CASES
from tests.support.workload_cluster import CONFIGMAP, JOBSETS, WHERE, Cluster, cluster
from xcli.plan.gke import incluster
from xcli.providers.gke import nap

__all__ = ["cluster"]  # the fixture

CREATE = [
    "workload", "create", *WHERE, "--workload", "small-1", "--docker-image", "img:1",
    "--command", "python3 train.py",
]  # fmt: skip


def _nap_cluster(cluster: Cluster) -> dict[str, str]:
    spec = GKE_CASES["v6e-256-x2-nap-spot"][1]
    config = incluster.metadata_configmap(spec, nap=nap.quota(spec))
    cluster.fake.put(CONFIGMAP, config)
    data: dict[str, str] = config["data"]
    return data


def test_another_slice_size_is_applied_as_the_dry_run_shows(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _nap_cluster(cluster)
    meta_file = tmp_path / "meta.yaml"
    meta_file.write_text(yaml.safe_dump(data))
    args = [*CREATE, "--tpu-type", "v6e-16", "--num-slices", "4", "--output", "json"]
    code, out, err = cluster.run([*args, "--dry-run", "--cluster-metadata", str(meta_file)], capsys)
    assert code == 0, err
    (step,) = json.loads(out)["plan"]
    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    (patch,) = cluster.fake.patches()
    assert patch.url.path == f"{JOBSETS}/small-1"
    applied = json.loads(patch.content)
    assert applied == step["manifest"]
    pod = applied["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"] == "4x4"


def test_over_the_limit_is_refused_before_writing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _nap_cluster(cluster)
    code, _, err = cluster.run([*CREATE, "--tpu-type", "v6e-256", "--num-slices", "3"], capsys)
    assert code == 1
    assert "auto-provisioning limit is 512" in err and "--autoprovisioning-max-chips 768" in err
    assert cluster.fake.patches() == []
