"""`xcli cluster test-network`: dry-run, refusals, and the live flow against an in-memory
Kubernetes API whose "controllers" (run from the fake clock's sleep) finish the JobSet and
leave worker 0's log: a run at full speed, one that fell back to TCP, one that never finished.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cluster_access import InMemoryAccess
from tests.support.crd import validate
from tests.support.fakekube import FakeKube
from tests.support.workload_cluster import (
    CONFIGMAP,
    JOBSETS,
    NOW,
    Cluster,
    FakeClock,
    add_pod,
    cond,
)
from tests.workload.jobset.nccl_samples import GPUDIRECT, TCP_FALLBACK
from xcli.workload.jobset import live as workload_live

NAME = "xcli-network-test"
WHERE = ["--cluster", "demo", "--project", "my-proj", "--zone", "us-east5-b"]
TEST = ["cluster", "test-network", *WHERE]
METADATA = {"accelerator": "h100-80gb-8", "num_nodes": "2", "capacity": "spot", "provider": "gke"}


class Controllers:
    """What JobSet, the Job controller and the kubelet would do once the test was applied."""

    def __init__(self, fake: FakeKube, log: str | None, outcome: str = "Completed") -> None:
        self.fake, self.log, self.outcome = fake, log, outcome

    def run(self) -> None:
        js = self.fake.objects.get(f"{JOBSETS}/{NAME}")
        if js is None or "status" in js or self.log is None:
            return
        validate(js)
        reason = "AllJobsCompleted" if self.outcome == "Completed" else "FailedJobs"
        at = "2026-11-22T12:10:00Z"
        js["metadata"]["creationTimestamp"] = "2026-11-22T12:00:00Z"
        js["status"] = {"conditions": [cond(self.outcome, "True", reason, "done", at)]}
        code = 0 if self.outcome == "Completed" else 1
        add_pod(
            self.fake,
            NAME,
            0,
            0,
            "Succeeded" if code == 0 else "Failed",
            code=code,
            at=at,
            log=self.log,
        )
        add_pod(self.fake, NAME, 0, 1, "Succeeded", code=0, at=at, log="")


def _cluster(fake: FakeKube, controllers: Controllers) -> Cluster:
    clock, access = FakeClock(), InMemoryAccess(fake)

    def sleep(seconds: float, *_: object) -> None:
        clock.sleep(seconds)
        controllers.run()

    live = workload_live.Live(access.kube_api, lambda: NOW, clock.monotonic, sleep)
    return Cluster(fake, clock, access.refs, live, access)


@pytest.fixture
def fake() -> Iterator[FakeKube]:
    kube = FakeKube()
    kube.put(
        CONFIGMAP,
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "xcli-cluster-metadata", "namespace": "default"},
            "data": METADATA,
        },
    )
    yield kube


def test_dry_run_prints_the_jobset_of_the_family(
    fake: FakeKube, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = tmp_path / "meta.yaml"
    meta.write_text(yaml.safe_dump(METADATA))
    cluster = _cluster(fake, Controllers(fake, GPUDIRECT))
    args = [*TEST, "--dry-run", "--cluster-metadata", str(meta), "-o", "json"]
    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    assert fake.requests == []  # nothing read, nothing sent
    steps = json.loads(out)["plan"]
    assert [s["id"] for s in steps] == ["delete-old", "jobset"]
    manifest = steps[1]["manifest"]
    validate(manifest)
    pod = manifest["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    main = pod["spec"]["containers"][0]
    assert main["image"].endswith("gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9")
    assert "all_gather_perf -b 1K -e 8G" in main["command"][-1]
    assert pod["spec"]["initContainers"][0]["name"] == "tcpx-daemon"  # the family's pod spec
    assert pod["spec"]["nodeSelector"]["cloud.google.com/gke-spot"] == "true"

    # the live run applies exactly the JobSet the dry-run printed
    code, out, err = cluster.run(TEST, capsys)
    assert code == 0, err
    (patch,) = fake.patches()
    assert json.loads(patch.content) == manifest


def test_live_run_at_full_speed(fake: FakeKube, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = _cluster(fake, Controllers(fake, GPUDIRECT))
    code, out, err = cluster.run(TEST, capsys)
    assert code == 0, err
    assert "NCCL all_gather_perf on 2 x h100-80gb-8 (cluster demo):" in out
    assert "bus bandwidth at 8 GiB: 72.2 GB/s (average over all sizes 35.9 GB/s)" in out
    assert "expected for a3-highgpu-8g: 70.9 GB/s (https://github.com/" in out
    assert "102% of it: ok (at least 50% needed)" in out
    assert "network test on cluster demo: running" in err and "demo: succeeded" in err
    assert cluster.writes() == [
        ("DELETE", f"{JOBSETS}/{NAME}"),  # --replace of a leftover (none here)
        ("PATCH", f"{JOBSETS}/{NAME}"),
        ("DELETE", f"{JOBSETS}/{NAME}"),  # cleaned up after
    ]
    assert f"{JOBSETS}/{NAME}" not in fake.objects


def test_fallback_to_tcp_fails_with_a_reason(
    fake: FakeKube, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = _cluster(fake, Controllers(fake, TCP_FALLBACK))
    code, out, err = cluster.run([*TEST, "-o", "json"], capsys)
    assert code == 1
    report: dict[str, Any] = json.loads(out)
    assert report["ok"] is False and report["busbw_gbps"] == 2.61
    assert report["expected_gbps"] == 70.9 and report["fraction"] == 0.0368
    assert len(report["rows"]) == 24
    lines = [line for line in err.splitlines() if line.startswith(("error:", "hint:"))]
    assert lines[0] == (
        "error: bus bandwidth 2.6 GB/s is 4% of the expected 70.9 GB/s: the network fell back "
        "to TCP?"
    )
    assert lines[1].startswith("hint: check the GPUDirect stack") and len(lines) == 2
    assert ("DELETE", f"{JOBSETS}/{NAME}") == cluster.writes()[-1]  # cleaned up even so


def test_keep_and_a_run_that_never_finished(
    fake: FakeKube, capsys: pytest.CaptureFixture[str]
) -> None:
    log = "mpirun was unable to launch the specified application\n"
    cluster = _cluster(fake, Controllers(fake, log, outcome="Failed"))
    code, _, err = cluster.run([*TEST, "--keep"], capsys)
    assert code == 1
    assert "error: the NCCL test's output has no result rows: it did not finish" in err
    assert cluster.writes() == [("DELETE", f"{JOBSETS}/{NAME}"), ("PATCH", f"{JOBSETS}/{NAME}")]
    assert f"{JOBSETS}/{NAME}" in fake.objects  # kept to look at


def test_timeout(fake: FakeKube, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = _cluster(fake, Controllers(fake, None))  # never admitted
    code, _, err = cluster.run([*TEST, "--timeout", "10m"], capsys)
    assert code == 1
    assert "error: the NCCL test did not finish within 600s on cluster demo" in err
    assert cluster.writes()[-1] == ("DELETE", f"{JOBSETS}/{NAME}")


def test_no_published_figure_needs_expect_busbw(
    fake: FakeKube, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.objects[CONFIGMAP]["data"] = {**METADATA, "accelerator": "b200-8"}
    cluster = _cluster(fake, Controllers(fake, GPUDIRECT))
    code, out, err = cluster.run(TEST, capsys)
    assert code == 0, err
    assert "published for a4-highgpu-8g: none found; pass --expect-busbw GBPS" in out
    fake.objects.pop(f"{JOBSETS}/{NAME}", None)
    code, out, err = cluster.run([*TEST, "--expect-busbw", "300"], capsys)
    assert code == 1 and "of the expected 300.0 GB/s" in err


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"accelerator": "v6e-8", "num_slices": "1"}, "cluster demo has TPUs"),
        ({"accelerator": "l4-1", "num_nodes": "2"}, "cluster demo has l4-1 GPUs"),
        ({"accelerator": "h100-80gb-8", "num_nodes": "1"}, "2 nodes requested but cluster demo"),
    ],
)
def test_refusals_send_nothing(
    fake: FakeKube, metadata: dict[str, str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.objects[CONFIGMAP]["data"] = metadata
    cluster = _cluster(fake, Controllers(fake, GPUDIRECT))
    code, _, err = cluster.run(TEST, capsys)
    assert code == 1 and message in err, err
    assert cluster.writes() == []


GOLDENS = Path(__file__).resolve().parent.parent / "goldens" / "network"


@pytest.mark.parametrize(
    ("device", "extra"),
    [("h100-mega-80gb-8", []), ("gb200-4", ["--nodes", "4", "--test", "all_reduce_perf"])],
)
def test_golden_dry_run(
    device: str,
    extra: list[str],
    fake: FakeKube,
    capsys: pytest.CaptureFixture[str],
    update_goldens: bool,
) -> None:
    cluster = _cluster(fake, Controllers(fake, None))
    code, out, err = cluster.run([*TEST, "--device-type", device, *extra, "--dry-run"], capsys)
    assert code == 0, err
    path = GOLDENS / f"{device}.txt"
    if update_goldens:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8"), f"{path.name} changed"
