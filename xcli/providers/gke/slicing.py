"""`cluster create --super-slicing --num-cubes N`: TPU7x dynamic slicing on GKE (pure).

What it changes in a GKE cluster's plan, each from a named source (docs/upstream.md):
- the checks, before any call: TPU7x only, pools of the 4x4x4 sub-block only (GKE: "a sub-block
  ... represents a 16-node group of TPU VMs with a 4x4x4 topology ... a node pool maps directly
  to a sub-block", https://cloud.google.com/kubernetes-engine/docs/concepts/dynamic-slicing;
  XPK accepts super-slicing for tpu7x-4x4x4 alone, src/xpk/core/system_characteristics.py l.593),
  a reservation (dynamic slicing runs only on All Capacity mode reservations; a live run reads
  it and refuses one that is not DENSE and ALL_CAPACITY: providers/reservation_check.py), the
  Rapid channel (GKE's requirements for dynamic slicing), and XPK's `--num-cubes` rules
  (src/xpk/commands/cluster.py l.347-361);
- the cluster: `addonsConfig.sliceControllerConfig.enabled` (container.v1 SliceControllerConfig;
  what `gcloud ... --enable-slice-controller` sets for XPK, src/xpk/commands/cluster.py l.1404,
  and `slice_controller_config { enabled }` for Cluster Toolkit,
  modules/scheduler/gke-cluster/main.tf l.330-332);
- the workload policy: `acceleratorTopologyMode: PROVISION_ONLY` (compute.v1
  ResourcePolicyWorkloadPolicy; XPK src/xpk/core/nodepool.py l.711-719; Cluster Toolkit refuses
  dynamic slicing without it, modules/management/kubectl-apply/variables.tf l.59-60), under a
  name of its own (`-ss`, as XPK's) so a cluster re-created without it never reuses it;
- the Kueue objects (plan/gke/dynamic_slicing.py) and the metadata workloads read.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from xcli.errors import UserError
from xcli.plan.gke import dynamic_slicing as ds
from xcli.plan.gke.kueue_objects import KUEUE_API, TPU_TOPOLOGY_LABEL
from xcli.plan.model import Step
from xcli.plan.steps import K8sApply
from xcli.providers.gke import options as gke_opts
from xcli.spec import ClusterSpec

# GKE's dynamic slicing requirements: a Standard cluster in the Rapid channel, 1.35.2-gke.1842000
# or later for super-slicing (https://cloud.google.com/kubernetes-engine/docs/how-to/
# use-gke-dynamic-slicing, "Requirements").
MIN_VERSION = "1.35.2-gke.1842000"
CHECK_STEP = "k8s-admission-check-slice"
# the in-cluster setup's steps (plan/gke/incluster.py) whose objects dynamic slicing replaces
REPLACED = ("k8s-topology", "k8s-flavor", "k8s-cluster-queue", "k8s-metadata")


def enabled(spec: ClusterSpec) -> bool:
    return gke_opts.of(spec).super_slicing


def resolve(spec: ClusterSpec) -> ClusterSpec:
    """Check the request and return the spec with one slice (node pool) per cube."""
    opts = gke_opts.of(spec)
    if opts.num_cubes is not None and not opts.super_slicing:
        raise UserError(
            "--num-cubes counts the sub-blocks of a --super-slicing cluster",
            hint="add --super-slicing (TPU7x on an All Capacity reservation), or use "
            "--num-slices for slices of a fixed shape",
        )
    if not opts.super_slicing:
        return spec
    accel = spec.accelerator
    if accel.family != ds.FAMILY or accel.topology != ds.CUBE:
        cubes = ds.cubes(accel.topology or "") if accel.family == ds.FAMILY else None
        what = f"{cubes * spec.num_slices}" if cubes else "N"
        raise UserError(
            f"--super-slicing makes node pools of TPU7x 4x4x4 sub-blocks, not {accel.name}"
            + (f" ({accel.topology})" if accel.topology else ""),
            hint=f"pass --tpu-type tpu7x-4x4x4 --num-cubes {what}; workloads then ask for "
            f"the slice they need with --tpu-type tpu7x-<topology>",
        )
    if opts.pathways:
        raise UserError(
            "--super-slicing with --pathways: xcli's Pathways workers need one node pool per "
            "slice, and a super-slicing cluster's slices span sub-block pools",
            hint="drop --pathways (workloads then run as JobSets of any tpu7x-AxBxC shape), or "
            "make a cluster of explicit pools for Pathways",
        )
    if spec.capacity.kind != "reservation":
        raise UserError(
            "--super-slicing needs an All Capacity reservation: GKE's dynamic slicing runs "
            f"only on TPUs reserved in All Capacity mode, not on {spec.capacity.kind} capacity",
            hint="pass --reservation NAME of a TPU Cluster Director reservation in All "
            "Capacity mode; a live run reads it first and refuses any other kind",
        )
    if opts.release_channel and opts.channel != "RAPID":
        raise UserError(
            f"--super-slicing needs the Rapid release channel, not {opts.channel.lower()} "
            f"(GKE's dynamic slicing: {MIN_VERSION} or later, Rapid channel)",
            hint="drop --release-channel (rapid is the default with --super-slicing)",
        )
    if opts.gke_version and _older(opts.gke_version, MIN_VERSION):
        raise UserError(
            f"--super-slicing needs GKE {MIN_VERSION} or later, not {opts.gke_version}",
            hint=f"pass --gke-version {MIN_VERSION} or later, or drop it (the Rapid channel's "
            "default)",
        )
    cubes = opts.num_cubes or spec.num_slices
    if opts.num_cubes is not None and spec.num_slices not in (1, opts.num_cubes):
        raise UserError(
            f"--num-cubes {opts.num_cubes} and --num-slices {spec.num_slices} disagree: with "
            "--super-slicing each slice is one cube",
            hint=f"drop --num-slices, or pass --num-slices {opts.num_cubes}",
        )
    return replace(spec, num_slices=cubes)


def _older(version: str, than: str) -> bool:
    """1.35.1-gke.9 < 1.35.2-gke.1842000: numbers compared left to right; a bare 1.35 is
    taken as that minor's first release."""

    def parts(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", v))

    return parts(version) < parts(than)


def cluster_body(spec: ClusterSpec, body: dict[str, Any]) -> dict[str, Any]:
    if not enabled(spec):
        return body
    cluster = dict(body["cluster"])
    addons = dict(cluster.get("addonsConfig") or {})
    addons["sliceControllerConfig"] = {"enabled": True}
    cluster["addonsConfig"] = addons
    return {**body, "cluster": cluster}


def policy_suffix(spec: ClusterSpec) -> str:
    return "-ss" if enabled(spec) else ""


def policy_fields(spec: ClusterSpec) -> dict[str, str]:
    return {"acceleratorTopologyMode": "PROVISION_ONLY"} if enabled(spec) else {}


def notes(spec: ClusterSpec) -> list[str]:
    if not enabled(spec):
        return []
    return [
        f"super-slicing: {spec.num_slices} node pools of one 4x4x4 sub-block each "
        f"({spec.num_slices * ds.CUBE_CHIPS} chips); GKE's slice controller joins them into "
        "the slice each workload asks for (workload create --tpu-type tpu7x-<topology>), up to "
        f"{spec.num_slices} cubes in all, without re-creating a pool",
        f"super-slicing: GKE {MIN_VERSION} or later in the Rapid channel; the reservation must "
        "be DENSE in ALL_CAPACITY mode (read before anything is created)",
    ]


def setup(spec: ClusterSpec, steps: list[Step]) -> list[Step]:
    """The in-cluster setup with the dynamic-slicing Topology, flavor, AdmissionCheck and
    metadata in place of the node-pool ones."""
    if not enabled(spec):
        return steps
    found = {s.id for s in steps if isinstance(s, K8sApply)}
    missing = sorted(set(REPLACED) - found)
    if missing:  # the in-cluster setup changed shape: say so rather than send it unchanged
        raise RuntimeError(f"dynamic slicing: the in-cluster setup has no step {missing}")
    out: list[Step] = []
    for step in steps:
        if not isinstance(step, K8sApply):
            out.append(step)
            continue
        obj = dict(step.manifest)
        if step.id == "k8s-topology":
            step = replace(
                step, summary=f"apply Kueue Topology {ds.TOPOLOGY}", manifest=ds.topology(KUEUE_API)
            )
            check = ds.admission_check(KUEUE_API)
            out += [step, _check_step(step, check)]
            continue
        if step.id == "k8s-flavor":
            step = replace(step, manifest=ds.flavor(obj, TPU_TOPOLOGY_LABEL))
        elif step.id == "k8s-cluster-queue":
            step = replace(
                step,
                manifest=ds.gated(obj),
                after=(*step.after, CHECK_STEP),
                summary=step.summary + f", gated by AdmissionCheck {ds.ADMISSION_CHECK}",
            )
        elif step.id == "k8s-metadata":
            data = {**obj["data"], "kueue_topology": ds.TOPOLOGY, "dynamic_slicing": ds.SUPER}
            step = replace(step, manifest={**obj, "data": {**data, "cube": ds.CUBE}})
        out.append(step)
    return out


def _check_step(topology: K8sApply, check: dict[str, Any]) -> K8sApply:
    return replace(
        topology,
        id=CHECK_STEP,
        summary=f"apply Kueue AdmissionCheck {ds.ADMISSION_CHECK} (controller "
        f"{ds.SLICE_CONTROLLER}: the slice controller forms each admitted slice)",
        manifest=check,
    )
