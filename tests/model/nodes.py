"""The nodes of a cluster plan: what GKE puts on the nodes of each pool the plan creates.

The facts (which label, which taint, when) are data with a source per row, in node_facts.json.
This module only reads a plan (the `-o json` form of `xcli cluster create --dry-run`) and
applies them to each node-pool request body: the cluster body's own `nodePools` (the system
pool) and every `nodePools.create`. The body's `config.labels` and `config.taints` are on the
nodes too, so a plan that labels its pools by hand is seen as such.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FACTS: dict[str, Any] = json.loads((Path(__file__).parent / "node_facts.json").read_text())
POOL_CREATE = "container.projects.locations.clusters.nodePools.create"
CLUSTER_CREATE = "container.projects.locations.clusters.create"
POLICY_INSERT = "compute.resourcePolicies.insert"
# The node-pool API spells taint effects as enums; Kubernetes as words.
EFFECTS = {
    "NO_SCHEDULE": "NoSchedule",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
    "NO_EXECUTE": "NoExecute",
}


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str


@dataclass
class NodePool:
    """One pool's nodes: their labels, taints and the extended resources each node offers."""

    name: str
    machine_type: str
    labels: dict[str, str] = field(default_factory=dict)
    taints: list[Taint] = field(default_factory=list)
    allocatable: dict[str, int] = field(default_factory=dict)


def _conditions(
    pool: dict[str, Any], machine: str, tpu: bool, provision_only: frozenset[str]
) -> dict[str, bool]:
    config = pool.get("config", {})
    reserved = config.get("reservationAffinity", {}).get("consumeReservationType")
    rdma = FACTS["rdma_machine_prefixes"]["prefixes"]
    return {
        "always": True,
        "gpu": bool(config.get("accelerators")),
        "tpu": tpu,
        "spot": bool(config.get("spot")),
        "flex_start": bool(config.get("flexStart")),
        "queued_provisioning": bool(pool.get("queuedProvisioning", {}).get("enabled")),
        "arm64": _arch(machine) == "arm64",
        # RDMA GPU machines from a reservation: Compute Engine's physical topology labels
        "rdma_reservation": machine.startswith(tuple(rdma)) and reserved == "SPECIFIC_RESERVATION",
        # TPU7x sub-block pools of dynamic slicing (a PROVISION_ONLY workload policy)
        "provision_only": tpu
        and pool.get("placementPolicy", {}).get("policyName") in provision_only,
    }


def _arch(machine: str) -> str:
    prefix = machine.split("-", 1)[0]
    return "arm64" if prefix in FACTS["arm64_machine_prefixes"]["prefixes"] else "amd64"


def _tpu_topology(pool: dict[str, Any], machine: str, policies: dict[str, str]) -> str | None:
    placement = pool.get("placementPolicy", {})
    if placement.get("tpuTopology"):
        return str(placement["tpuTopology"])
    if placement.get("policyName") in policies:
        return policies[placement["policyName"]]
    single: dict[str, str] = FACTS["tpu_machines"]["single_host_topology"]
    return single.get(machine)


def _values(pool: dict[str, Any], machine: str, policies: dict[str, str]) -> dict[str, str]:
    config = pool.get("config", {})
    accelerators = config.get("accelerators") or [{}]
    prefix = machine.split("-", 1)[0]
    return {
        "pool": pool["name"],
        "arch": _arch(machine),
        "machineType": machine,
        "family": prefix,
        "gpu_type": str(accelerators[0].get("acceleratorType", "")),
        "tpu_accelerator": FACTS["tpu_machines"]["accelerator"].get(prefix, ""),
        "tpu_topology": _tpu_topology(pool, machine, policies) or "",
    }


def _chips(machine: str) -> int:
    """TPU chips per VM from the machine type's `-Nt` suffix (ct6e-standard-4t: 4)."""
    suffix = machine.rsplit("-", 1)[-1]
    return int(suffix[:-1]) if suffix.endswith("t") and suffix[:-1].isdigit() else 0


def pool_nodes(
    pool: dict[str, Any],
    policies: dict[str, str] | None = None,
    provision_only: frozenset[str] = frozenset(),
) -> NodePool:
    """The nodes of one node-pool body (`nodePool` of a create request, or a cluster's pool);
    `policies`: workload policy -> topology; `provision_only`: the PROVISION_ONLY ones."""
    config = pool.get("config", {})
    machine = str(config.get("machineType", "e2-medium"))
    tpu = machine.split("-", 1)[0] in FACTS["tpu_machines"]["accelerator"]
    when = _conditions(pool, machine, tpu, provision_only)
    values = _values(pool, machine, policies or {})
    nodes = NodePool(pool["name"], machine)
    for row in FACTS["labels"]:
        if when[row["when"]]:
            nodes.labels[row["key"]] = row["value"].format(**values)
    for row in FACTS["taints"]:
        if when[row["when"]]:
            nodes.taints.append(Taint(row["key"], row["value"], row["effect"]))
    nodes.labels.update({str(k): str(v) for k, v in (config.get("labels") or {}).items()})
    for taint in config.get("taints") or []:
        effect = EFFECTS.get(taint.get("effect", ""), taint.get("effect", ""))
        nodes.taints.append(Taint(taint["key"], str(taint.get("value", "")), effect))
    if when["gpu"]:
        count = sum(int(a.get("acceleratorCount", 0)) for a in config["accelerators"])
        nodes.allocatable["nvidia.com/gpu"] = count
    if tpu:
        nodes.allocatable["google.com/tpu"] = _chips(machine)
    return nodes


def plan_pools(plan: list[dict[str, Any]]) -> list[NodePool]:
    """Every pool a cluster plan creates, the cluster's own pools first."""
    policies, provision_only = {}, set()
    for step in plan:
        if step.get("api") == POLICY_INSERT:
            body = step["request"]["body"]
            topology = body.get("workloadPolicy", {}).get("acceleratorTopology")
            if topology:
                policies[body["name"]] = topology
            if body.get("workloadPolicy", {}).get("acceleratorTopologyMode") == "PROVISION_ONLY":
                provision_only.add(body["name"])
    pools, modes = [], frozenset(provision_only)
    for step in plan:
        if step.get("api") == CLUSTER_CREATE:
            for pool in step["request"]["body"]["cluster"].get("nodePools", []):
                pools.append(pool_nodes(pool, policies, modes))
        elif step.get("api") == POOL_CREATE:
            pools.append(pool_nodes(step["request"]["body"]["nodePool"], policies, modes))
    return pools


# Node auto-provisioning (node_facts.json "nap"): the pool GKE makes for a pending pod.
NAP_KEYS = tuple(row["key"] for row in FACTS["nap"]["labels_from_pod"])
TPU_LABEL, TOPOLOGY_LABEL = (
    "cloud.google.com/gke-tpu-accelerator",
    "cloud.google.com/gke-tpu-topology",
)
GPU_LABEL, SPOT_LABEL = "cloud.google.com/gke-accelerator", "cloud.google.com/gke-spot"


def nap_limits(cluster_body: dict[str, Any] | None) -> dict[str, int]:
    """resourceType -> maximum of an auto-provisioning cluster's body ({} without NAP)."""
    scaling = (cluster_body or {}).get("autoscaling", {})
    if not scaling.get("enableNodeAutoprovisioning"):
        return {}
    return {r["resourceType"]: int(r["maximum"]) for r in scaling.get("resourceLimits", [])}


def _nap_shape(value: str, topology: str | None, gpus: int) -> Any:
    """The catalogue shape NAP's pool would have (its machine type), or None."""
    from xcli.catalog import all_names, lookup

    for name in all_names():
        accel = lookup(name)
        if accel.gke_accelerator != value:
            continue
        if accel.kind == "tpu" and (topology is None or accel.topology == topology):
            return accel
        if accel.kind == "gpu" and (not gpus or accel.chips_per_vm == gpus):
            return accel
    return None


RESERVATION_NAME = "cloud.google.com/reservation-name"
RESERVATION_PROJECT = "cloud.google.com/reservation-project"


def known_reservations(metadata: dict[str, str]) -> set[tuple[str, str]]:
    """(project, name) of the reservations a cluster's metadata ConfigMap names: the one it was
    created with (`reservation`: R, or projects/P/reservations/R; `project` otherwise)."""
    found = set()
    for value in filter(None, metadata.get("reservation", "").split(",")):
        parts = value.split("/")
        if len(parts) >= 4 and parts[0] == "projects" and parts[2] == "reservations":
            found.add((parts[1], parts[3]))
        else:
            found.add((metadata.get("project", ""), value))
    return found


def nap_pool(
    selector: dict[str, str],
    asked: dict[str, str],
    limits: dict[str, int],
    index: int,
    reservations: tuple[str, set[tuple[str, str]]] = ("", set()),
) -> NodePool | None:
    """The pool NAP makes for a pod (or a flavor) selecting `selector`, None if it makes none:
    no accelerator named, one the cluster's resourceLimits do not list, or a reservation that
    is not known to exist (`reservations`: the cluster's project and the (project, name) pairs
    of its metadata's reservations; GKE cannot make a pool from a reservation that is not
    there, so the pod stays pending)."""
    value = selector.get(TPU_LABEL) or selector.get(GPU_LABEL)
    if not value or value not in limits:
        return None
    if RESERVATION_NAME in selector:
        project, known = reservations
        wanted = (selector.get(RESERVATION_PROJECT, project), selector[RESERVATION_NAME])
        if wanted not in known:
            return None
    gpus = int(float(asked.get("nvidia.com/gpu", "0")))
    accel = _nap_shape(value, selector.get(TOPOLOGY_LABEL), gpus)
    if accel is None:
        return None
    config: dict[str, Any] = {"machineType": accel.machine_type}
    if selector.get(SPOT_LABEL) == "true":
        config["spot"] = True
    if accel.kind == "gpu":
        config["accelerators"] = [
            {"acceleratorCount": str(accel.chips_per_vm), "acceleratorType": value}
        ]
    # the reservation labels GKE gives the pool it makes from a known reservation (above)
    config["labels"] = {k: v for k, v in selector.items() if k in NAP_KEYS and "reservation" in k}
    body: dict[str, Any] = {"name": f"nap-{index}", "config": config}
    if accel.kind == "tpu" and accel.multi_host:
        body["placementPolicy"] = {"type": "COMPACT", "tpuTopology": accel.topology}
    return pool_nodes(body)
