"""Pathways workloads: the `pathways` WorkloadKind (a JobSet, xcli/workload/pathways/jobset.py).

A Pathways workload is a JobSet like the `jobset` kind's, so reading it (list, status, logs,
wait, delete, goodput) is that kind's; only the create differs. The cluster must have the
Pathways head pool (`cluster create --pathways` or `cluster adapt --pathways`): its metadata
ConfigMap says so, and a live run refuses a cluster without it before anything is applied.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xcli.errors import UserError
from xcli.plan.gke import pathways_pool
from xcli.plan.model import Plan, Step, symbolic
from xcli.plan.steps import K8sApply, Text
from xcli.workload.jobset.kind import JobSetKind
from xcli.workload.pathways import jobset as pj
from xcli.workload.pathways.spec import DEFAULT_VERSION, PathwaysSpec, check
from xcli.workload.protocol import Context, Creation

if TYPE_CHECKING:
    from xcli.providers import Capabilities
    from xcli.workload.backends import KindGateways
    from xcli.workload.request import WorkloadRequest
    from xcli.workload.spec import ClusterMeta


def spec_from(request: WorkloadRequest, meta: ClusterMeta) -> PathwaysSpec:
    """The checked spec; the shape is the cluster's (Pathways uses every slice it has)."""
    from xcli.workload.spec import parse_env

    options = request.pathways
    assert options is not None  # the use case picks this kind only for --pathways
    if not options.gcs_location:
        raise UserError(
            "--pathways needs --pathways-gcs-location: the scratch location of the Pathways "
            "servers, in a bucket of your project",
            hint="pass --pathways-gcs-location gs://BUCKET/pathways (create the bucket with "
            "gcloud storage buckets create gs://BUCKET)",
        )
    env = parse_env(request.env_pairs, request.env_file)
    spec = PathwaysSpec(
        name=request.name,
        accelerator=meta.accelerator,
        num_slices=request.num_slices or meta.num_slices,
        gcs_location=options.gcs_location,
        version=options.version or DEFAULT_VERSION,
        image=request.image or None,
        command=request.command or None,
        headless=options.headless,
        elastic_slices=options.elastic_slices,
        max_slice_restarts=options.max_slice_restarts,
        namespace=request.namespace,
        local_queue=meta.local_queue,
        priority=request.priority,
        capacity_kind=meta.capacity.kind,
        env=env,
    )
    check(spec)
    return spec


def check_cluster(spec: PathwaysSpec, meta: ClusterMeta, existing: Collection[str]) -> None:
    # Which providers run Pathways is their Capabilities.workloads (app/workload.py refuses
    # the others before a kind is built), so nothing here names a provider.
    if meta.source != "flags" and not meta.pathways_pool:
        raise UserError(
            f"cluster {meta.name} has no Pathways head pool",
            hint=f"add it: xcli cluster adapt --cluster {meta.name} --pathways (or create the "
            "cluster with cluster create --pathways)",
        )
    if spec.num_slices > meta.num_slices:
        raise UserError(
            f"--num-slices {spec.num_slices}: cluster {meta.name} has {meta.num_slices}",
            hint=f"pass --num-slices {meta.num_slices} or fewer",
        )
    if spec.name in existing:
        raise UserError(
            f"workload {spec.name} already exists on cluster {meta.name}",
            hint="choose another --workload name, or delete it first",
        )


def plan_create(
    spec: PathwaysSpec, meta: ClusterMeta, existing: Collection[str], cluster: Text
) -> Plan:
    check_cluster(spec, meta, existing)
    manifest = pj.build_jobset(spec)
    mode = "headless" if spec.headless else "batch"
    step: Step = K8sApply(
        id="jobset",
        summary=f"apply Pathways JobSet {spec.name} ({mode}): a head on {pathways_pool.POOL}, "
        f"{spec.num_slices} x {spec.accelerator.name} workers",
        cluster=cluster,
        manifest=manifest,
    )
    notes = [f"pulls {image}" for image in spec.images()]
    notes.append(f"Pathways scratch location: {spec.gcs_location}")
    if spec.version == "latest":
        notes.append(
            "--pathways-version latest, as asked: the servers may change under a later restart; "
            "pin a tag such as jax-0.9.0 that matches the JAX in your image"
        )
    if meta.source == "flags":
        notes.append(
            "dry-run: the cluster was not read; a live run refuses it unless it has the "
            "Pathways head pool"
        )
    if spec.headless:
        notes.append(
            f"connect: xcli workload connect {spec.name} --cluster {meta.name} forwards the "
            f"proxy's port {pj.PROXY_PORT}, then JAX_PLATFORMS=proxy "
            f"JAX_BACKEND_TARGET=grpc://127.0.0.1:{pj.PROXY_PORT} (docs/pathways.md)"
        )
    return Plan(
        title=f"create Pathways workload {spec.name} on cluster {meta.name}",
        steps=(step,),
        notes=tuple(notes),
        max_parallel=1,
    )


@dataclass
class PathwaysKind(JobSetKind):
    @classmethod
    def build(
        cls, provider: str, capabilities: Capabilities, gateways: KindGateways
    ) -> PathwaysKind:
        from xcli.errors import InternalError

        if gateways.live is None:
            raise InternalError("the pathways kind was built without a way to reach clusters")
        return cls(gateways.live)

    def plan_create(self, ctx: Context, request: WorkloadRequest) -> Creation:
        from xcli.workload.jobset.live import handlers
        from xcli.workload.jobset.plan import gke_cluster_path

        if request.storage:
            raise UserError(
                "--storage is not available with --pathways yet",
                hint="read data from Cloud Storage in your program, or drop --pathways",
            )
        ref = ctx.cluster_ref(request.cluster)
        meta, existing = ctx.facts.cluster(self.live, ref, request, ctx.say)
        spec = spec_from(request, meta)
        plan = plan_create(
            spec, meta, existing, gke_cluster_path(ctx.project, ctx.zone, request.cluster)
        )
        where = f"{spec.name} --cluster {request.cluster}"
        return Creation(
            plan,
            lambda: handlers(self.live, ref),
            manifests=tuple(symbolic(s.manifest) for s in plan.steps if isinstance(s, K8sApply)),
            follow=f"follow it: xcli workload status {where}; xcli workload logs {where} "
            f"--follow; xcli workload wait {where}",
        )
