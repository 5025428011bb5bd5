"""`workload create` on GKE: the pre-submit checks and the plan. Pure: the cluster's facts and
the names of existing workloads are arguments, read by the caller from the cluster (live) or
from flags and files (dry-run).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Any

from xcli.catalog import Accelerator
from xcli.catalog.store import cpu_request
from xcli.errors import UserError
from xcli.plan.gke.kube_steps import K8sDelete
from xcli.plan.model import Plan, Ref, Step
from xcli.plan.steps import K8sApply, Text
from xcli.spec import Capacity, format_duration
from xcli.workload.jobset import env_secret, slicing
from xcli.workload.jobset.gpu_network import compute_domain, needs_compute_domain
from xcli.workload.jobset.manifest import (
    API_VERSION,
    build_jobset,
    capacity_selectors,
    coordinator_host,
    retryable_exit_codes,
)
from xcli.workload.spec import ClusterMeta, WorkloadSpec


def gke_cluster_path(project: str, zone: str, cluster: str) -> str:
    """GKE clusters xcli makes are regional (node locations limited to the zone)."""
    return f"projects/{project}/locations/{zone.rsplit('-', 1)[0]}/clusters/{cluster}"


def check_fits(spec: WorkloadSpec, meta: ClusterMeta, existing: Collection[str]) -> None:
    """Refuse what the cluster cannot run, before anything is sent."""
    want, have = spec.accelerator, meta.accelerator
    if meta.autoprovisioned:
        check_nap_limits(spec, meta)
    elif slicing.on(meta):  # slices of the workload's shape, formed from the cluster's sub-blocks
        slicing.check_fits(spec, meta)
    elif want.name != have.name:
        raise UserError(
            f"cluster {meta.name} has {have.name}, not {want.name}",
            hint=f"drop --tpu-type/--device-type to use {have.name}, or pick a cluster with "
            f"{want.name} (`xcli cluster list`)"
            + slicing.other_shape_hint(want, have)
            + nap_hint(want, have),
        )
    elif want.kind == "tpu" and spec.num_slices > meta.num_slices:
        raise UserError(
            f"{spec.num_slices} slices requested but cluster {meta.name} has {meta.num_slices}",
            hint=f"use --num-slices {meta.num_slices} or fewer, or grow the cluster with "
            f"`xcli cluster create --cluster {meta.name} --num-slices {spec.num_slices} ...`",
        )
    elif want.kind == "gpu" and spec.num_nodes > meta.num_nodes:
        raise UserError(
            f"{spec.num_nodes} nodes requested but cluster {meta.name} has {meta.num_nodes}",
            hint=f"use --num-nodes {meta.num_nodes} or fewer",
        )
    if spec.name in existing and not spec.replace:
        raise UserError(
            f"workload {spec.name} already exists on cluster {meta.name}",
            hint="pick another --workload name, or pass --replace to delete it and run again",
        )


def nap_hint(want: Accelerator, have: Accelerator) -> str:
    """What would run another shape of the same family: a node auto-provisioning cluster."""
    if want.gke_accelerator != have.gke_accelerator:
        return ""
    if want.gpu_network or (want.multi_host and want.placement == "workload-policy"):
        return ""  # shapes NAP does not take (providers/gke/nap.py check)
    return (
        f"; a cluster made with --enable-autoprovisioning runs any {have.family} shape within "
        "its chip limit (docs/tpu.md)"
    )


def check_nap_limits(spec: WorkloadSpec, meta: ClusterMeta) -> None:
    """On a node auto-provisioning cluster any shape of its accelerator family runs, GKE making
    the pools at submit time, as long as the cluster's chip limit covers the workload (the
    pre-flight gcluster runs before a NAP submit, and XPK's check_if_workload_can_schedule:
    AI-Hypercomputer/xpk@367c838 src/xpk/core/scheduling.py l.93-108)."""
    want, have = spec.accelerator, meta.accelerator
    if want.gke_accelerator != have.gke_accelerator:
        raise UserError(
            f"cluster {meta.name} auto-provisions {have.gke_accelerator} ({have.family}), "
            f"not {want.gke_accelerator} ({want.name})",
            hint=f"pick a {have.family} shape, or a cluster of {want.family} (`xcli cluster list`)",
        )
    if spec.total_chips > meta.nap_max_chips:
        raise UserError(
            f"workload {spec.name} needs {spec.total_chips} chips ({_shape(spec)}) but cluster "
            f"{meta.name}'s auto-provisioning limit is {meta.nap_max_chips}",
            hint=f"raise the limits with `xcli cluster create --cluster {meta.name} "
            f"{_shape_flags(meta)} --enable-autoprovisioning --autoprovisioning-max-chips "
            f"{spec.total_chips}` (with the cluster's capacity flag), or ask for fewer "
            f"{'slices' if want.kind == 'tpu' else 'nodes'}",
        )


def with_capacity(meta: ClusterMeta, capacity: Capacity | None) -> ClusterMeta:
    """The cluster's facts with the capacity `workload create` asked for (None: the cluster's).
    Only an auto-provisioning cluster makes pools of the capacity a workload asks for; on
    facts from flags (a dry-run reading no cluster) it is taken as the cluster's."""
    if capacity is None or capacity == meta.capacity:
        return meta
    if not meta.autoprovisioned and meta.source != "flags":
        raise UserError(
            f"cluster {meta.name} has its own {meta.capacity.kind} pools; a workload chooses "
            "its capacity only on a node auto-provisioning cluster",
            hint="drop the capacity flag, or create the cluster with --enable-autoprovisioning",
        )
    if "/reservationBlocks/" in str(capacity.reservation or ""):
        raise UserError(
            "an auto-provisioning cluster's pools cannot target a reservation block",
            hint="name the reservation: NAME or projects/P/reservations/R",
        )
    return dataclasses.replace(meta, capacity=capacity)


def _shape_flags(meta: ClusterMeta) -> str:
    accel = meta.accelerator
    if accel.kind == "tpu":
        return f"--tpu-type {accel.name} --num-slices {meta.num_slices}"
    return f"--device-type {accel.name} --num-nodes {meta.num_nodes}"


def plan_workload_create(
    spec: WorkloadSpec, meta: ClusterMeta, existing: Collection[str], cluster: Text | None = None
) -> Plan:
    """Check, then: (delete the old JobSet if --replace) -> server-side apply the new one.

    `cluster` names the cluster for the Kubernetes steps (the CLI passes gke_cluster_path;
    default: the cluster's name).
    A JobSet's replicated jobs are immutable, so --replace deletes and recreates rather than
    re-applying (JobSet v0.12.0's update validation, pkg/webhooks/ in
    https://github.com/kubernetes-sigs/jobset).
    """
    check_fits(spec, meta, existing)
    cluster = spec.cluster if cluster is None else cluster
    manifest = build_jobset(spec, meta)
    names = spec.user_env_names
    if spec.env_secret and names:
        manifest = env_secret.referenced(manifest, names, env_secret.secret_name(spec.name))
    steps: list[Step] = []
    if spec.replace:
        steps.append(
            K8sDelete(
                id="delete-old",
                summary=f"delete JobSet {spec.name} if it exists and wait until it is gone",
                cluster=cluster,
                api_version=API_VERSION,
                resource="jobsets",
                namespace=spec.namespace,
                name=spec.name,
            )
        )
    steps.append(
        K8sApply(
            id="jobset",
            summary=f"apply JobSet {spec.name}: {_shape(spec)}",
            after=tuple(s.id for s in steps),
            cluster=cluster,
            manifest=manifest,
            redact=names,
        )
    )
    if spec.env_secret and names:
        secret_env = tuple((k, v) for k, v in spec.env if k in names)
        steps.append(env_secret.secret_step(spec.name, spec.namespace, secret_env, cluster))
    if needs_compute_domain(spec.accelerator):  # A4X: the NVLink domain its pods claim
        uid = Ref("jobset", "uid")
        domain = compute_domain(spec.name, spec.namespace, spec.num_nodes, uid)
        steps.append(
            K8sApply(
                id="compute-domain",
                summary=f"apply ComputeDomain {domain['metadata']['name']} (owned by the JobSet)",
                after=("jobset",),
                cluster=cluster,
                manifest=domain,
            )
        )
    return Plan(
        title=f"create workload {spec.name} on cluster {meta.name}",
        steps=tuple(steps),
        notes=plan_notes(spec, meta, existing_known=meta.source == "configmap"),
        max_parallel=1,
    )


def _shape(spec: WorkloadSpec) -> str:
    accel = spec.accelerator
    if accel.kind == "tpu":
        return (
            f"{spec.num_slices} x {accel.name} ({accel.vms_per_slice} pod(s) of "
            f"{accel.chips_per_vm} chips per slice)"
        )
    if accel.kind == "cpu":
        return (
            f"{accel.name} ({spec.num_nodes} pod(s), one per {accel.machine_type} VM, "
            f"{cpu_request(accel)} vCPUs each)"
        )
    return f"{spec.num_nodes} x {accel.name} ({accel.chips_per_vm} GPUs per pod)"


def plan_notes(spec: WorkloadSpec, meta: ClusterMeta, *, existing_known: bool) -> tuple[str, ...]:
    codes = retryable_exit_codes(spec)
    extra = [c for c in codes if c != 42 and c < 128]
    notes = [
        f"queued by Kueue in LocalQueue {spec.namespace}/{meta.local_queue} (namespace "
        f"{spec.namespace}), priority {spec.priority}"
        if spec.namespace != "default"
        else f"queued by Kueue in LocalQueue {meta.local_queue}, priority {spec.priority}",
        f"restarts: up to {spec.max_restarts}; exit codes 42, 128-255"
        + (f", {', '.join(map(str, extra))}" if extra else "")
        + " and preemption/node loss restart the whole JobSet; any other non-zero exit fails "
        "it at once",
        f"finished JobSets are deleted after {format_duration(spec.ttl_after_finished)}",
    ]
    notes += slicing.note(spec, meta)
    if spec.accelerator.kind == "tpu" and spec.num_slices > 1:
        notes.append(
            f"multislice coordinator: {coordinator_host(spec)} (MEGASCALE_* set from the "
            "JobSet's pod annotations)"
        )
    if meta.autoprovisioned:
        notes.append(
            f"node auto-provisioning: GKE creates the node pools of {_shape(spec)} when Kueue "
            f"admits it (minutes per pool), within cluster {meta.name}'s limit of "
            f"{meta.nap_max_chips} chips ({spec.total_chips} asked)"
        )
    reservation = meta.capacity.reservation or ""
    if "/reservations/" in reservation and not meta.autoprovisioned:
        notes.append(
            f"reservation {reservation}: pods select nodes by the reservation's name only "
            "(node label values cannot hold '/')"
        )
    if meta.source == "flags":
        notes.append(
            f"cluster facts from flags (no cluster read): {meta.accelerator.name}, "
            f"{meta.num_slices} slice(s), capacity {meta.capacity.kind}"
            + ("" if capacity_selectors(meta) else ", so no capacity node selector")
            + "; pass --cluster-metadata FILE to render for the cluster's real metadata"
        )
    elif meta.source != "configmap":
        notes.append(f"cluster facts read from {meta.source}")
    if not existing_known:
        notes.append(
            "existing workload names were not checked (no cluster read); a live run refuses "
            "a name in use unless --replace"
        )
    return tuple(notes)


def manifest_documents(plan: Plan) -> list[Mapping[str, Any]]:
    """The Kubernetes objects a plan applies, in order (for --output-manifest-file)."""
    return [s.manifest for s in plan.steps if isinstance(s, K8sApply)]
