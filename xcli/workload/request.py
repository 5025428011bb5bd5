"""`xcli workload create` as a frozen request, and the request -> WorkloadSpec translation.

The CLI builds a `WorkloadRequest` from its flags (xcli/cli/workload.py), after the checks that
need no cluster; `cluster test-network` builds one for its NCCL test. No flag mapping reaches
this package.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from xcli.errors import UserError
from xcli.plan.hang import parse_hang_after
from xcli.spec import Capacity, check_duration
from xcli.workload.scheduling import DEFAULT_SCHEDULER
from xcli.workload.spec import DEFAULT_MAX_DISRUPTIONS, ClusterMeta, WorkloadSpec, parse_env


@dataclass(frozen=True)
class PathwaysOptions:
    """`workload create --pathways` (xcli/workload/pathways/): what only Pathways takes."""

    gcs_location: str | None = None
    version: str | None = None
    headless: bool = False
    elastic_slices: int = 0
    max_slice_restarts: int = 1


@dataclass(frozen=True)
class WorkloadRequest:
    """What `workload create` was asked, as typed (durations and exit codes still as text:
    spec_from_request checks them with the flag names in its messages)."""

    cluster: str
    name: str
    command: str
    provider: str  # the cluster's (given, or found for it), for the hints that repeat it
    image: str = ""  # "": none (a plain process where the provider allows it)
    tpu_type: str | None = None
    device_type: str | None = None
    num_slices: int | None = None
    num_nodes: int | None = None
    flex_start: bool = False  # --flex-start (XPK's --flex): the cluster's capacity must be so
    priority: str = "medium"
    max_restarts: int = 0
    max_disruptions: int = DEFAULT_MAX_DISRUPTIONS
    hang_after: str | None = None  # D or Nx, as typed (xcli/plan/hang.py)
    recover: bool = False  # --recover (VM-style clusters whose provider can re-create them)
    restart_scope: str = "all"  # all | slice (xcli/workload/pathways/jobset.py failure_policy)
    restart_on_exit_codes: str = ""  # N,M as typed
    env_pairs: tuple[str, ...] = ()
    env_file: Path | None = None
    env_secret: bool = False  # --env-secret: the values in a Secret, not in the JobSet
    ttl_after_finished: str = "12h"
    termination_grace_period: str = "30s"
    replace: bool = False
    namespace: str = "default"
    scheduler: str | None = None
    detach: bool = False
    show_marks: bool = False  # VM-style live stream: print the XCLI_GOODPUT lines too
    output_manifest_file: Path | None = None
    storage: tuple[str, ...] = ()  # --storage NAME[,NAME], as typed
    compilation_cache: str | None = None
    checkpoint_dir: str | None = None
    pathways: PathwaysOptions | None = None  # --pathways: the workload is a Pathways JobSet
    # --vertex-tensorboard: the Experiment's name ("" for XPK's <cluster>-<workload>); None: off
    experiment: str | None = None
    # --on-demand|--spot|--reservation: the capacity NAP provisions (None: the cluster's)
    capacity: Capacity | None = None

    @property
    def accelerator(self) -> str | None:
        return requested_accelerator(self.tpu_type, self.device_type)


@dataclass(frozen=True)
class NetworkTestRequest:
    """`cluster test-network`: the test a WorkloadRequest is made from (jobset/network_test.py)."""

    cluster: str
    nodes: int = 2
    test: str = "all_gather_perf"
    min_fraction: float = 0.5
    expect_busbw: float | None = None
    keep: bool = False
    timeout: int | None = 3600  # seconds
    device_type: str | None = None  # dry-run: the cluster's GPU shape


def requested_accelerator(tpu_type: str | None, device_type: str | None) -> str | None:
    if tpu_type and device_type:
        raise UserError(
            "pass at most one of --tpu-type and --device-type",
            hint="--tpu-type for a TPU shape, --device-type for a GPU (or TPU) shape",
        )
    return str(tpu_type or device_type) if (tpu_type or device_type) else None


def spec_from_request(req: WorkloadRequest, meta: ClusterMeta) -> WorkloadSpec:
    """The request, checked, with the cluster's facts as defaults (any provider)."""
    from xcli.workload.spec import workload_spec

    check_flex_start(req, meta)
    codes = exit_codes(req.restart_on_exit_codes)
    env = parse_env(req.env_pairs, req.env_file)
    ttl = check_duration(req.ttl_after_finished, "--ttl-after-finished", 60, 365 * 86400)
    grace = check_duration(req.termination_grace_period, "--termination-grace-period", 1, 86400)
    spec = workload_spec(
        cluster=req.cluster,
        name=req.name,
        image=req.image,
        command=req.command,
        meta=meta,
        accelerator=req.accelerator,
        num_slices=req.num_slices,
        num_nodes=req.num_nodes,
        priority=req.priority,
        max_restarts=req.max_restarts,
        max_disruptions=req.max_disruptions,
        restart_on_exit_codes=codes,
        env=env,
        ttl_after_finished=ttl,
        termination_grace_period=grace,
        replace=req.replace,
    )
    scheduler = str(req.scheduler or DEFAULT_SCHEDULER)
    hang = parse_hang_after(req.hang_after)
    return dataclasses.replace(
        spec,
        namespace=req.namespace,
        scheduler=scheduler,
        hang_after=hang,
        recover=req.recover,
        env_secret=req.env_secret,
    )


def check_flex_start(req: WorkloadRequest, meta: ClusterMeta) -> None:
    """--flex-start (XPK's workload --flex) on a cluster of another capacity: refused, every
    kind (a JobSet's or Pathways' pods select the cluster's flex-start nodes)."""
    if req.flex_start and meta.capacity.kind != "flex-start":
        # XPK's workload --flex picks the capacity of node auto-provisioning only
        # (src/xpk/core/nap.py get_autoprovisioning_node_selector_args, core/capacity.py
        # l.94-96 at 367c838253be); xcli's workloads run on their cluster's pools
        raise UserError(
            f"--flex-start: cluster {meta.name} has {meta.capacity.kind} capacity, not flex-start",
            hint="a workload runs on its cluster's flex-start pools: create the cluster with "
            "`xcli cluster create --flex-start` (XPK's cluster create --flex), or drop "
            "--flex-start (on an auto-provisioning cluster: --on-demand, --spot or "
            "--reservation)",
        )


def exit_codes(text: str) -> tuple[int, ...]:
    codes: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if not part.isdigit():
            raise UserError(
                f"--restart-on-exit-codes: {part!r} is not an exit code", hint="e.g. 1,3"
            )
        codes.append(int(part))
    return tuple(codes)
