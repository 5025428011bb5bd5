"""The workload scenarios the JobSet, plan and golden tests share."""

from __future__ import annotations

from typing import Any

from xcli.catalog import lookup
from xcli.spec import Capacity
from xcli.workload.spec import ClusterMeta, WorkloadSpec, workload_spec

# name -> (cluster accelerator, slices or nodes, capacity, reservation, workload overrides)
CASES: dict[str, dict[str, Any]] = {
    "v6e-256-x2": {"accel": "v6e-256", "count": 2, "capacity": "on-demand"},
    "v5litepod-16-x1": {"accel": "v5litepod-16", "count": 1, "capacity": "on-demand"},
    "v5p-128-x4-spot": {"accel": "v5p-128", "count": 4, "capacity": "spot", "max_restarts": 3},
    "tpu7x-8": {"accel": "tpu7x-8", "count": 1, "capacity": "reservation", "reservation": "res-a"},
    "h100-80gb-8-x2": {"accel": "h100-80gb-8", "count": 2, "capacity": "flex-start"},
    # the GPUDirect families (workload/jobset/gpu_network.py)
    "h100-mega-80gb-8-x4": {"accel": "h100-mega-80gb-8", "count": 4, "capacity": "spot"},
    "h200-141gb-8-x2": {"accel": "h200-141gb-8", "count": 2, "capacity": "on-demand"},
    "b200-8-x2": {"accel": "b200-8", "count": 2, "capacity": "on-demand"},
    "gb200-4-x18": {"accel": "gb200-4", "count": 18, "capacity": "reservation", "reservation": "r"},
}


def meta_for(case: str) -> ClusterMeta:
    c = CASES[case]
    accel = lookup(c["accel"])
    count = c["count"]
    return ClusterMeta(
        name="demo",
        provider="gke",
        accelerator=accel,
        capacity=Capacity(c["capacity"], reservation=c.get("reservation")),
        num_slices=count if accel.kind == "tpu" else 1,
        num_nodes=count if accel.kind == "gpu" else 1,
    )


def spec_for(case: str, **overrides: Any) -> WorkloadSpec:
    c = CASES[case]
    args: dict[str, Any] = {
        "cluster": "demo",
        "name": "train-1",
        "image": "us-docker.pkg.dev/proj/repo/trainer:1",
        "command": "python3 train.py --steps 100",
        "meta": meta_for(case),
        "max_restarts": c.get("max_restarts", 0),
        "env": (("LIBTPU_INIT_ARGS", "--xla_tpu_enable_latency_hiding_scheduler=true"),),
    }
    args.update(overrides)
    return workload_spec(**args)
