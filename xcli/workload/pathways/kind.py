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
from xcli.workload.jobset import env_secret
from xcli.workload.jobset.kind import JobSetKind
from xcli.workload.pathways import jobset as pj
from xcli.workload.pathways.spec import DEFAULT_VERSION, XPK_SCRATCH, PathwaysSpec, check
from xcli.workload.protocol import Context, Creation

if TYPE_CHECKING:
    from xcli.providers import Capabilities
    from xcli.workload.backends import KindGateways
    from xcli.workload.request import WorkloadRequest
    from xcli.workload.spec import ClusterMeta


def spec_from(request: WorkloadRequest, meta: ClusterMeta) -> PathwaysSpec:
    """The checked spec; the shape is the cluster's (Pathways uses every slice it has)."""
    from xcli.workload.request import check_flex_start
    from xcli.workload.spec import parse_env

    check_flex_start(request, meta)
    options = request.pathways
    assert options is not None  # the use case picks this kind only for --pathways
    env = parse_env(request.env_pairs, request.env_file)
    spec = PathwaysSpec(
        name=request.name,
        accelerator=meta.accelerator,
        num_slices=request.num_slices or meta.num_slices,
        gcs_location=options.gcs_location or XPK_SCRATCH,
        version=options.version or DEFAULT_VERSION,
        image=request.image or None,
        command=request.command or None,
        headless=options.headless,
        elastic_slices=options.elastic_slices,
        max_slice_restarts=options.max_slice_restarts,
        restart_scope=request.restart_scope,
        max_restarts=request.max_restarts,
        namespace=request.namespace,
        local_queue=meta.local_queue,
        priority=request.priority,
        capacity_kind=meta.capacity.kind,
        env=env,
        kueue_topology=meta.kueue_topology,
        env_secret=request.env_secret,
    )
    check(spec)
    return spec


def check_cluster(spec: PathwaysSpec, meta: ClusterMeta, existing: Collection[str]) -> None:
    # Which providers run Pathways is their Capabilities.workloads (app/workload.py refuses
    # the others before a kind is built), so nothing here names a provider.
    if meta.dynamic_slicing:
        # XPK's recipes/Workload_create_pathways_super-slicing.md shows Pathways workers asking
        # the slice controller for their slices; xcli's Pathways JobSet keeps one slice per
        # node pool, which Kueue's super-slice Topology has no level for
        raise UserError(
            f"cluster {meta.name} is a --super-slicing cluster, and xcli's Pathways workers "
            "still need one node pool per slice",
            hint="run it without --pathways (a JobSet of the shape you need: --tpu-type "
            "tpu7x-AxBxC), or on a cluster of explicit pools (cluster create --pathways)",
        )
    if meta.source != "flags" and not meta.pathways_pool:
        raise UserError(
            f"cluster {meta.name} has no Pathways head pool",
            hint=f"add it: xcli cluster adapt --cluster {meta.name} --pathways (or create the "
            "cluster with cluster create --pathways)",
        )
    if spec.restart_scope == "slice" and meta.source != "flags":
        from xcli.plan.gke.jobset_config import RESTART_JOB

        if RESTART_JOB not in meta.jobset_gates:
            raise UserError(
                f"--restart-scope slice: cluster {meta.name}'s JobSet controller has its "
                "RestartJob feature gate off, and its webhook refuses per-slice restarts",
                hint="turn it on: run the same `xcli cluster create` again with "
                "--slice-restarts (it reconfigures the controller; nothing else changes)",
            )
    chips = spec.num_slices * spec.accelerator.chips
    if meta.autoprovisioned and chips > meta.nap_max_chips:  # NAP makes the workers' pools
        raise UserError(
            f"--num-slices {spec.num_slices}: {chips} chips, over cluster {meta.name}'s "
            f"auto-provisioning limit of {meta.nap_max_chips}",
            hint=f"pass --num-slices {meta.nap_max_chips // spec.accelerator.chips} or fewer, "
            "or raise the limit with `xcli cluster create ... --enable-autoprovisioning "
            f"--autoprovisioning-max-chips {chips}`",
        )
    if spec.num_slices > meta.num_slices and not meta.autoprovisioned:
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
    names = tuple(name for name, _ in spec.env)
    secret = spec.env_secret and bool(spec.env)
    if secret:
        manifest = env_secret.referenced(manifest, names, env_secret.secret_name(spec.name))
    mode = "headless" if spec.headless else "batch"
    step: Step = K8sApply(
        id="jobset",
        summary=f"apply Pathways JobSet {spec.name} ({mode}): a head on {pathways_pool.POOL}, "
        f"{spec.num_slices} x {spec.accelerator.name} workers",
        cluster=cluster,
        manifest=manifest,
        redact=names,
    )
    steps = [step]
    if secret:
        steps.append(env_secret.secret_step(spec.name, spec.namespace, spec.env, cluster))
    notes = [f"pulls {image}" for image in spec.images()]
    where = ""
    if spec.gcs_location == XPK_SCRATCH:
        where = " (XPK's default; pass --pathways-gcs-location gs://BUCKET/PATH for one in your "
        where += "project)"
    notes.append(f"Pathways scratch location: {spec.gcs_location}{where}")
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
        steps=tuple(steps),
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
