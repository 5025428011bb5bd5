"""`xcli workload status` and `workload list` on a 9,216-chip workload, against an in-memory API.

    python benchmarks/workload_read.py [--runs 5] [--slices 36] [--tpu-type tpu7x-512]

The cluster is the in-memory Kubernetes API server of the tests (tests/support/fakekube.py,
over httpx's mock transport: no socket), holding what a 36-slice tpu7x-512 workload leaves in
a real one: the metadata ConfigMap and ClusterQueue `cluster create` writes, the JobSet
`workload create` renders (with its status), its Kueue Workload, and one Running pod per TPU
VM (2,304) shaped as the API server returns them: the JobSet's pod template as the spec,
the node, the status with container statuses and conditions, and managedFields.
The CLI runs in this process with the workload gateways pointing at it (as the tests do).

Printed: the median wall time of each command, the part the fake server spent (listing and
encoding, a real API server's work) and the rest (the client's), the CPU time of this process
(steadier than wall time on a loaded machine), the requests made (list pages included), and
the bytes of pods served; the machine's load average before and after. Target (issue 28): status
under 2 s. This is a measurement, not a test: nothing here fails.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.fakekube import FakeKube
from tests.support.workload_cluster import (
    CONFIGMAP,
    JOBSETS,
    NOW,
    NS,
    WHERE,
    FakeClock,
    add_kueue,
    cond,
)
from xcli.catalog import lookup
from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.gateways.kube.api import KubeApi
from xcli.plan.cluster import ClusterRef
from xcli.plan.gke import incluster
from xcli.spec import Capacity, ClusterSpec
from xcli.workload.backends import WorkloadGateways
from xcli.workload.jobset import live as workload_live
from xcli.workload.jobset.manifest import build_jobset
from xcli.workload.spec import ClusterMeta, workload_spec

AT = "2026-11-22T10:00:00Z"


def _managed_fields(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """What the API server keeps per field manager: the field set of the whole spec."""

    def fields(value: Any) -> Any:
        if isinstance(value, dict):
            return {f"f:{k}": fields(v) for k, v in value.items()}
        return {}

    entry = {"apiVersion": "v1", "fieldsType": "FieldsV1", "time": AT}
    return [
        {**entry, "manager": "job-controller", "operation": "Update",
         "fieldsV1": {"f:spec": fields(spec)}},
        {**entry, "manager": "kubelet", "operation": "Update", "subresource": "status",
         "fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {},
                                   "f:phase": {}, "f:podIP": {}, "f:startTime": {}}}},
    ]  # fmt: skip


def _pod(js: dict[str, Any], slice_: int, index: int) -> dict[str, Any]:
    template = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    name = f"train-1-slice-{slice_}-{index}-x7k2q"
    spec = json.loads(json.dumps(template["spec"]))
    spec["nodeName"] = f"gke-demo-np-{slice_}-{index:04d}"
    labels = dict(template.get("metadata", {}).get("labels") or {})
    labels.update({
        "jobset.sigs.k8s.io/jobset-name": "train-1",
        "jobset.sigs.k8s.io/replicatedjob-name": "slice",
        "jobset.sigs.k8s.io/job-index": str(slice_),
        "jobset.sigs.k8s.io/restart-attempt": "0",
        "batch.kubernetes.io/job-completion-index": str(index),
        "batch.kubernetes.io/job-name": f"train-1-slice-{slice_}",
    })  # fmt: skip
    running = {"running": {"startedAt": AT}}
    containers = [
        {"name": c["name"], "image": c["image"], "ready": True, "restartCount": 0,
         "state": running, "containerID": f"containerd://{slice_:04d}{index:04d}"}
        for c in spec["containers"]
    ]  # fmt: skip
    kinds = ("PodScheduled", "Initialized", "ContainersReady", "Ready")
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name, "namespace": "default", "labels": labels,
            "annotations": dict(template.get("metadata", {}).get("annotations") or {}),
            "uid": f"pod-{slice_}-{index}", "creationTimestamp": AT, "resourceVersion": "1",
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job",
                                 "name": f"train-1-slice-{slice_}", "uid": f"job-{slice_}",
                                 "controller": True, "blockOwnerDeletion": True}],
            "managedFields": _managed_fields(spec),
        },
        "spec": spec,
        "status": {
            "phase": "Running", "hostIP": f"10.0.{slice_}.{index}",
            "podIP": f"10.0.{slice_}.{index}",
            "startTime": AT, "qosClass": "Burstable", "containerStatuses": containers,
            "conditions": [{"type": k, "status": "True", "lastTransitionTime": AT} for k in kinds],
        },
    }  # fmt: skip


def build(tpu: str, slices: int) -> tuple[FakeKube, int]:
    accel = lookup(tpu)
    fake = TimedKube()
    spec = ClusterSpec("demo", "my-proj", "us-east5-b", "gke", accel, Capacity("spot"), slices)
    fake.put(CONFIGMAP, incluster.metadata_configmap(spec))
    meta = ClusterMeta(name="demo", provider="gke", accelerator=accel,
                       capacity=Capacity("spot"), num_slices=slices, num_nodes=1)  # fmt: skip
    wl = workload_spec(cluster="demo", name="train-1", image="us-docker.pkg.dev/p/r/t:1",
                       command="python3 train.py", meta=meta)  # fmt: skip
    js = build_jobset(wl, meta)
    js["metadata"].update(creationTimestamp=AT, uid="uid-train-1")
    js["status"] = {"conditions": [], "restarts": 0}
    fake.put(f"{JOBSETS}/train-1", js)
    admitted = cond("Admitted", "True", "Admitted", "admitted", AT)
    add_kueue(fake, "train-1", [cond("QuotaReserved", "True", "QuotaReserved", "ok", AT), admitted])
    size = 0
    for s in range(slices):
        for i in range(accel.vms_per_slice):
            pod = _pod(js, s, i)
            size += len(json.dumps(pod))
            fake.put(f"{NS}/pods/{pod['metadata']['name']}", pod)
    return fake, size


class TimedKube(FakeKube):
    """The fake API server, timing itself: its work (listing, encoding JSON) is a real API
    server's, on another machine, so it is taken out of the client's time."""

    server = 0.0

    def handle(self, request: Any) -> Any:
        start = time.perf_counter()
        try:
            return super().handle(request)
        finally:
            TimedKube.server += time.perf_counter() - start


def run(fake: FakeKube, argv: list[str]) -> tuple[float, int, str, float, float]:
    clock = FakeClock()

    def connect(_ref: ClusterRef) -> KubeApi:
        return KubeApi("203.0.113.9", None, lambda: "tok", transport=fake.transport())

    live = workload_live.Live(connect, lambda: NOW, clock.monotonic, clock.sleep)
    deps = Dependencies(workload_gateways=WorkloadGateways(live=live))
    before = len(fake.requests)
    out = io.StringIO()
    TimedKube.server = 0.0
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = run_guarded(cli, argv, debug=False, obj=deps)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    if code != 0:
        sys.exit(f"{' '.join(argv)} exited {code}")
    return wall, len(fake.requests) - before, out.getvalue(), TimedKube.server, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tpu-type", default="tpu7x-512")
    parser.add_argument("--slices", type=int, default=36)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    fake, size = build(args.tpu_type, args.slices)
    pods = sum(1 for p in fake.objects if p.startswith(f"{NS}/pods/"))
    print(f"{pods} pods ({size / 1e6:.1f} MB as JSON), {args.tpu_type} x{args.slices}; "
          f"median of {args.runs} runs")  # fmt: skip
    for name, argv in (
        ("status", ["workload", "status", "train-1", *WHERE]),
        ("list", ["workload", "list", *WHERE]),
    ):
        runs = [run(fake, argv) for _ in range(args.runs)]
        wall = statistics.median(r[0] for r in runs)
        server = statistics.median(r[3] for r in runs)
        cpu = statistics.median(r[4] for r in runs)
        print(f"workload {name:<7} wall {wall * 1000:>6.0f} ms, of which fake server "
              f"{server * 1000:>5.0f} ms; client {(wall - server) * 1000:>6.0f} ms; process CPU "
              f"{cpu * 1000:>6.0f} ms; {runs[0][1]:>3} requests")  # fmt: skip
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
