"""The create and delete plans of a GKE cluster, from a spec and what already exists (pure).

How the plan learns what exists, without `if dry_run` below the CLI: a live run first reads an
observed-state snapshot (`GkeObserved`: the cluster's status and node pools, and the workload
policies named after the cluster) through the container/compute gateways, then hands it to
these pure functions. The dry-run passes no snapshot; the plan is then made against "nothing
exists yet" and says so in Plan.notes. The same function makes both plans, so a dry-run is
exactly what a live run against an empty project sends.

Re-running create on an existing cluster plans only what is missing: pools that already match
are kept, pools still provisioning are waited for, pools in ERROR (a stockout leaves them so)
are deleted and created again, surplus pools `<cluster>-np-<k>` are removed, and a pool of
another shape is refused unless --force, which replaces it (the CLI asks first, unless --yes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from xcli.errors import UserError
from xcli.plan import compute
from xcli.plan.model import Plan, Step
from xcli.plan.operations import OperationCall
from xcli.plan.steps import Wait
from xcli.providers import reservation
from xcli.providers.gke import (
    accel_network,
    dra_driver,
    gpu_network,
    gpu_network_steps,
    gpu_objects,
    image_levers,
    limits,
    ml_diagnostics,
    nap,
    nat,
    pathways,
    private,
    slicing,
    tensorboard,
)
from xcli.providers.gke import bodies as gke
from xcli.providers.gke import options as gke_opts
from xcli.spec import ClusterSpec

# The seam for the in-cluster setup (JobSet, Kueue, priority classes, metadata ConfigMap):
# called with the spec, the cluster's resource name and the step ids to run after.
SetupBuilder = Callable[[ClusterSpec, str, tuple[str, ...]], Sequence[Step]]

CREATE_CLUSTER = "container.projects.locations.clusters.create"
DELETE_CLUSTER = "container.projects.locations.clusters.delete"
UPDATE_CLUSTER = "container.projects.locations.clusters.update"
CREATE_POOL = "container.projects.locations.clusters.nodePools.create"
DELETE_POOL = "container.projects.locations.clusters.nodePools.delete"
UPDATE_CLUSTER = "container.projects.locations.clusters.update"
INSERT_POLICY = "compute.resourcePolicies.insert"
DELETE_POLICY = "compute.resourcePolicies.delete"
BUSY = ("PROVISIONING", "RECONCILING")


@dataclass(frozen=True)
class ObservedPool:
    name: str
    status: str
    accelerator: str | None  # the xcli-accelerator label, when xcli made the pool
    machine_type: str
    nodes: int  # initialNodeCount, or the autoscaling maximum for flex-start pools
    capacity: str  # on-demand, spot, reservation, flex-start
    policy: str = ""  # placementPolicy.policyName (tpu7x workload policies), "" for none


@dataclass(frozen=True)
class GkeObserved:
    """What exists: cluster_status None means there is no cluster of that name."""

    cluster_status: str | None = None
    locations: tuple[str, ...] = ()
    pools: Mapping[str, ObservedPool] = field(default_factory=dict)
    policies: tuple[str, ...] = ()
    # the GPU network resources xcli made for the cluster (read for a delete only)
    networks: gpu_network_steps.OwnedNetworks = field(
        default_factory=gpu_network_steps.OwnedNetworks
    )
    routers: tuple[str, ...] = ()  # Cloud Routers xcli made for the cluster's NAT (nat.py)
    private: bool | None = None  # the cluster's nodes are private (None: no cluster)
    # addonsConfig.sliceControllerConfig.enabled of an existing cluster (None: no cluster)
    slice_controller: bool | None = None


def cluster_resource(project: str, region: str, name: str) -> str:
    return f"projects/{project}/locations/{region}/clusters/{name}"


def op_call(step_id: str, summary: str, api: str, method: str, url: str, **kw: Any) -> Step:
    """An OperationCall whose poll line names the operations URL of the same API."""
    container = url.startswith(gke.CONTAINER)
    base = url.split("/clusters")[0] if container else compute.operation_scope(url)
    # the operation's name is this step's own output, printed as a reference like any other
    poll = f"GET {base}/operations/${{{step_id}.operation}}"
    return OperationCall(
        id=step_id,
        summary=summary,
        api=api,
        method=method,
        url=url,
        poll=poll,
        **kw,
    )


def _cluster_steps(spec: ClusterSpec, seen: GkeObserved, notes: list[str]) -> list[Step]:
    url = gke.cluster_url(spec.project, spec.region)
    status = seen.cluster_status
    if status is None:
        summary = f"create cluster {spec.name} in {spec.region}, nodes in {spec.zone}"
        return [
            op_call(
                "cluster",
                summary,
                CREATE_CLUSTER,
                "POST",
                url,
                body=nap.with_autoscaling(
                    spec, gpu_network.with_cluster_network(spec, private.cluster_body(spec))
                ),
            )
        ]
    if seen.locations and spec.zone not in seen.locations:
        raise UserError(
            f"cluster {spec.name} already exists with another configuration: "
            f"its nodes are in {', '.join(seen.locations)}, not {spec.zone}",
            hint=f"pass --zone {seen.locations[0]}, or choose another --cluster name",
        )
    if status in ("STOPPING", "ERROR"):
        raise UserError(
            f"cluster {spec.name} is in state {status}",
            hint="delete it (xcli cluster delete) and create it again, or choose another name",
        )
    if status in BUSY:
        get = gke.cluster_url(spec.project, spec.region, spec.name)
        return [
            Wait(
                id="cluster",
                summary=f"wait for cluster {spec.name} ({status.lower()}) to be running",
                api="container.projects.locations.clusters.get",
                url=get,
                until="status RUNNING",
                timeout_seconds=3600,
            )
        ]
    if slicing.enabled(spec) and seen.slice_controller is False:
        return [_slice_controller_on(spec)]
    if nap.enabled(spec):  # the limits asked for now replace the cluster's (XPK: clusters update)
        return [_nap_update(spec)]
    notes.append(f"cluster {spec.name} exists ({status}); kept as it is")
    return []


def _nap_update(spec: ClusterSpec) -> Step:
    """clusters.update with desiredClusterAutoscaling: node auto-provisioning on an existing
    cluster, or its new limits (XPK runs `gcloud container clusters update
    --enable-autoprovisioning --autoprovisioning-config-file`, src/xpk/core/nap.py)."""
    url = gke.cluster_url(spec.project, spec.region, spec.name)
    scopes = list(gke.SCOPES)
    return op_call(
        "cluster",
        f"set node auto-provisioning limits on cluster {spec.name}",
        UPDATE_CLUSTER,
        "PUT",
        url,
        body={"update": {"desiredClusterAutoscaling": nap.autoscaling(spec, scopes)}},
    )


def _slice_controller_on(spec: ClusterSpec) -> Step:
    """--super-slicing on a cluster made without it: turn the add-on on (GKE's dynamic slicing
    docs: `gcloud container clusters update --enable-slice-controller`; container.v1
    ClusterUpdate.desiredAddonsConfig)."""
    url = gke.cluster_url(spec.project, spec.region, spec.name)
    return op_call(
        "cluster",
        f"turn on the slice controller add-on of cluster {spec.name} (--super-slicing)",
        UPDATE_CLUSTER,
        "PUT",
        url,
        body={"update": {"desiredAddonsConfig": {"sliceControllerConfig": {"enabled": True}}}},
    )


def _mismatch(spec: ClusterSpec, pool: ObservedPool) -> str:
    want = spec.num_nodes if spec.accelerator.kind == "gpu" else spec.accelerator.vms_per_slice
    diffs = []
    if (
        pool.accelerator != spec.accelerator.name
        or pool.machine_type != spec.accelerator.machine_type
    ):
        diffs.append(f"{pool.accelerator or pool.machine_type}, not {spec.accelerator.name}")
    if pool.nodes != want:
        diffs.append(f"{pool.nodes} nodes, not {want}")
    if pool.capacity != spec.capacity.kind:
        diffs.append(f"{pool.capacity} capacity, not {spec.capacity.kind}")
    policy = gke.policy_name(spec)
    if spec.accelerator.placement == "workload-policy" and pool.policy not in ("", policy):
        # e.g. a pool made without --super-slicing: its slices are not PROVISION_ONLY cubes
        diffs.append(f"workload policy {pool.policy}, not {policy}")
    return "; ".join(diffs)


def _create_pool(spec: ClusterSpec, index: int, after: tuple[str, ...]) -> Step:
    url = gke.cluster_url(spec.project, spec.region, spec.name) + "/nodePools"
    name = gke.pool_name(spec.name, index)
    what = spec.accelerator.name
    if spec.accelerator.kind == "gpu":
        what = f"{spec.num_nodes} x {what}"
    return op_call(
        f"pool-{index}",
        f"create node pool {name} ({what}, {spec.capacity.kind})",
        CREATE_POOL,
        "POST",
        url,
        body=accel_network.with_profile(
            spec,
            gpu_network.with_pool_network(
                spec,
                reservation.pool_body(
                    spec, index, image_levers.apply(spec, gke.pool_body(spec, index))
                ),
                gke.policy_name(spec),
            ),
        ),
        after=after,
        lane=gke.POOL_LANE,
    )


def _delete_pool(spec: ClusterSpec, name: str, step_id: str, why: str, destructive: bool) -> Step:
    url = gke.cluster_url(spec.project, spec.region, spec.name) + f"/nodePools/{name}"
    return op_call(
        step_id,
        f"delete node pool {name} ({why})",
        DELETE_POOL,
        "DELETE",
        url,
        accept=("NOT_FOUND",),
        lane=gke.POOL_LANE,
        destructive=destructive,
    )


def _pool_steps(
    spec: ClusterSpec, seen: GkeObserved, after: tuple[str, ...], notes: list[str]
) -> list[Step]:
    if nap.enabled(spec):  # GKE creates the accelerator pools (providers/gke/nap.py)
        mine = sorted(n for n in seen.pools if n.startswith(f"{spec.name}-np-"))
        if mine:
            notes.append(
                f"node auto-provisioning: the pools {', '.join(mine)} are kept as they are; "
                "delete them with --force to leave the capacity to auto-provisioning"
            )
        return []
    force = spec.force
    if force and not seen.pools:  # issue 37: no flag is dropped without a word
        notes.append(f"--force: cluster {spec.name} has no node pool yet, so none is replaced")
    steps: list[Step] = []
    for index in range(gke.pool_count(spec)):
        name = gke.pool_name(spec.name, index)
        pool = seen.pools.get(name)
        if pool is None:
            steps.append(_create_pool(spec, index, after))
            continue
        diff = _mismatch(spec, pool)
        if diff and not force:
            raise UserError(
                f"node pool {name} already exists with another configuration: {diff}",
                hint="pass --force to replace it (asks first unless --yes), "
                "or choose another --cluster name",
            )
        if diff or pool.status == "ERROR":
            why = f"replace: {diff}" if diff else "in ERROR state, created again"
            steps.append(_delete_pool(spec, name, f"remove-pool-{index}", why, bool(diff)))
            steps.append(_create_pool(spec, index, (*after, f"remove-pool-{index}")))
        elif pool.status in BUSY:
            steps.append(_wait_pool(spec, name, index, after, pool.status))
        else:
            notes.append(f"node pool {name} exists ({pool.status}); kept as it is")
    steps += _surplus(spec, seen, force, notes)
    return steps


def _wait_pool(
    spec: ClusterSpec, name: str, index: int, after: tuple[str, ...], status: str
) -> Step:
    url = gke.cluster_url(spec.project, spec.region, spec.name) + f"/nodePools/{name}"
    return Wait(
        id=f"pool-{index}",
        summary=f"wait for node pool {name} ({status.lower()}) to be running",
        api="container.projects.locations.clusters.nodePools.get",
        url=url,
        until="status RUNNING",
        timeout_seconds=3600,
        after=after,
        lane=gke.POOL_LANE,
    )


def _surplus(spec: ClusterSpec, seen: GkeObserved, force: bool, notes: list[str]) -> list[Step]:
    wanted = {gke.pool_name(spec.name, i) for i in range(gke.pool_count(spec))}
    prefix = f"{spec.name}-np-"
    steps: list[Step] = []
    for name in sorted(seen.pools):
        if name in wanted or not name.startswith(prefix) or not name[len(prefix) :].isdigit():
            continue
        pool = seen.pools[name]
        if pool.accelerator != spec.accelerator.name and not force:
            notes.append(
                f"node pool {name} ({pool.accelerator or pool.machine_type}) is not "
                "part of this shape; left alone (pass --force to remove it)"
            )
            continue
        why = f"--num-slices {spec.num_slices} no longer includes it"
        steps.append(_delete_pool(spec, name, f"remove-{name}", why, True))
    return steps


def _policy_steps(spec: ClusterSpec, seen: GkeObserved) -> list[Step]:
    accel = spec.accelerator
    if nap.enabled(spec) or not (accel.multi_host and accel.placement == "workload-policy"):
        return []
    if gke.policy_name(spec) in seen.policies:
        return []
    return [
        op_call(
            "policy",
            f"create workload policy {gke.policy_name(spec)} ({accel.topology})",
            INSERT_POLICY,
            "POST",
            compute.policy_url(spec.project, spec.region),
            body=gke.policy_body(spec),
            accept=("ALREADY_EXISTS",),
        )
    ]


def _creates(step: Step) -> bool:
    return isinstance(step, OperationCall) and step.api == CREATE_POOL


def plan_create(
    spec: ClusterSpec,
    observed: GkeObserved | None = None,
    setup: SetupBuilder | None = None,
) -> Plan:
    """The create plan; `setup` adds the in-cluster steps once the cluster answers."""
    spec = slicing.resolve(spec)  # --super-slicing: one node pool per --num-cubes cube
    gke.check_gke_spec(spec)
    settings = private.settings(spec)
    image_levers.check(spec)
    pathways.check(spec)
    limits.check(spec)  # GKE's node cap and the default subnet's size (issue 32)
    tensorboard.check(spec)
    ml_diagnostics.check(spec)
    nap.check(spec)
    notes: list[str] = image_levers.notes(spec) + dra_driver.notes(spec) + limits.notes(spec)
    notes += nap.notes(spec) + slicing.notes(spec)
    notes += [] if nap.enabled(spec) else accel_network.notes(spec)  # a note on pools made here
    notes += ml_diagnostics.notes(spec)
    sized = gke.system_pool_note(spec)
    notes += [sized] if sized else []
    closed = private.note(settings, gke_opts.of(spec).private_endpoint)
    notes += [closed] if closed else []
    if observed is None:
        observed = GkeObserved()
        notes.append(
            "dry-run: planned as if nothing exists yet; a live run reads the cluster first "
            "and creates only what is missing"
        )
    gpu_network.check(spec)
    private.check_existing(spec.name, settings, observed.private)
    net = gpu_network_steps.create_steps(spec)  # GPUDirect VPCs: before the cluster
    vpc_ids = tuple(n.id for n in net if n.id != "policy")
    cluster = [replace(s, after=vpc_ids) for s in _cluster_steps(spec, observed, notes)]
    steps = _policy_steps(spec, observed) + net + nat.nat_steps(spec, settings) + cluster
    after = tuple(s.id for s in steps)
    steps += _pool_steps(spec, observed, after, notes)
    steps += pathways.pool_steps(spec, tuple(s.id for s in cluster), observed.pools)
    steps += tensorboard.steps(spec)  # independent of the cluster; the metadata waits for it
    steps += ml_diagnostics.steps(spec)  # the nodes' roles: independent of the cluster
    # the reservation pre-flight reads come first; nothing is created before they pass
    created = tuple(int(s.id[5:]) for s in steps if s.id.startswith("pool-") and _creates(s))
    dense = slicing.enabled(spec)  # dynamic slicing: an All Capacity reservation, read live
    pre = reservation.check_step(spec, created, all_capacity=dense) + pathways.read_steps(spec)
    steps = pre + [replace(s, after=(*(p.id for p in pre), *s.after)) for s in steps]
    if setup is not None:
        cluster_ids = tuple(s.id for s in steps if s.id == "cluster")
        resource = cluster_resource(spec.project, spec.region, spec.name)
        objects = gpu_objects.object_steps(spec, resource, cluster_ids)
        steps += gpu_objects.with_objects(setup(spec, resource, cluster_ids), objects)
    count = f"{spec.num_nodes} x " if spec.accelerator.kind == "gpu" else ""
    slices = f" x{spec.num_slices}" if spec.accelerator.kind != "gpu" else ""
    if gke.pool_count(spec) == 0:
        notes.insert(
            0,
            f"--num-slices 0: no {spec.accelerator.name} node pool is made, only the cluster, "
            "its system pool and the in-cluster setup (as XPK's empty clusters); run this "
            "command again with --num-slices N to add the pools",
        )
    title = (
        f"create GKE cluster {spec.name} ({count}{spec.accelerator.name}{slices}, "
        f"{spec.capacity.kind}{', auto-provisioned' if nap.enabled(spec) else ''})"
    )
    limit = gke_opts.of(spec).parallelism
    if gke_opts.of(spec).pool_parallelism:  # the lane limit is not a step: say it (issue 37)
        notes.append(f"node pools are created at most {limit} at a time (--pool-parallelism)")
    return Plan(
        title,
        tuple(steps),
        tuple(notes),
        max_parallel=max(8, limit + 2),
        lane_limits={gke.POOL_LANE: limit},
    )
