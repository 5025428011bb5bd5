"""A team's Kubernetes objects (pure): its Namespace, its ClusterQueue in the cohort, and the
LocalQueue its workloads name. Kueue v0.19.2, `kueue.x-k8s.io/v1beta2` like every other Kueue
object xcli writes (plan/gke/kueue_objects.py); the fields are those of
https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/ and the CRDs in tests/data/kueue/.

Quota. A cohort's capacity is the sum of its ClusterQueues' nominal quotas, so a team's chips
are moved out of the cluster's own ClusterQueue (the one `default` uses) into the team's: the
cohort never promises more chips than the node pools have. What a queue does not use, the
others borrow (`borrowingLimit`/`lendingLimit` bound it), and an owner takes its quota back.

Preemption (https://kueue.sigs.k8s.io/docs/concepts/preemption/):
- withinClusterQueue LowerPriority: inside a team, a higher --priority preempts a lower one;
- reclaimWithinCohort Any: a queue below its nominal quota reclaims it from queues borrowing,
  and (under fair sharing) a queue may borrow by preempting other queues' *borrowed* workloads
  whenever the fair-sharing strategies allow it, whatever their priority.
`fairSharing.weight` orders queues competing for unused chips: the cluster's setup switches
Kueue's fair sharing on in its Configuration (plan/gke/kueue_config.py,
https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/).
No `borrowWithinCohort`: Kueue ignores it under fair sharing (kueue v0.19.2
site/content/en/docs/concepts/preemption.md l.121-124, "but not borrowWithinCohort";
pkg/scheduler/flavorassigner/flavorassigner.go l.1382-1384 lets a borrowing queue preempt under
fair sharing through reclaimWithinCohort alone), so a priority ceiling there would promise what
Kueue does not do. Workloads within their own queue's nominal quota are never taken by another
queue (pkg/scheduler/preemption/preemption.go l.639-645: only borrowing queues are searched).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xcli.catalog import all_names, lookup
from xcli.plan.gke import cohort_read
from xcli.plan.gke.dra import CHANNEL_RESOURCE, needs_compute_domain
from xcli.plan.gke.kueue_objects import (
    COHORT,
    CPU_PER_VM,
    KUEUE_API,
    LOCAL_QUEUE,
    MANAGED_BY,
    MEMORY_TIB_PER_VM,
)
from xcli.plan.model import Ref
from xcli.workload.team.spec import Quota, TeamSpec

TEAM_LABEL = cohort_read.TEAM_LABEL  # one name for the setup and the teams
NAMESPACE_LABEL = "kubernetes.io/metadata.name"  # set by the API server on every Namespace


def queue_name(team: str) -> str:
    return f"xcli-team-{team}"


def labels(team: str) -> dict[str, str]:
    return {**MANAGED_BY, TEAM_LABEL: team}


def namespace(spec: TeamSpec) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": spec.namespace, "labels": labels(spec.team)},
    }


def covered(quotas: Sequence[Quota]) -> list[str]:
    """Chip resources first (in quota order), then cpu and memory: one resource group; on A4X
    also the ComputeDomain channel every pod claims (plan/gke/dra.py), or Kueue would never admit
    an A4X workload of the team."""
    chips = list(dict.fromkeys(q.resource for q in quotas))
    channels = [CHANNEL_RESOURCE] if any(_channels(q) for q in quotas) else []
    return [*chips, "cpu", "memory", *channels]


def _channels(quota: Quota) -> int:
    """The channels a quota's chips hold on A4X (one per node-sized pod), else 0."""
    accel = lookup(quota.shape or all_names(quota.family)[0])
    return quota.chips // accel.chips_per_vm if needs_compute_domain(accel) else 0


def flavor_quota(quota: Quota, flavor: Any, resources: Sequence[str]) -> dict[str, Any]:
    """One flavor of the team's queue: every covered resource (Kueue requires as many as the
    group covers); cpu and memory sized per chip so that they never bind before chips do."""
    out: list[dict[str, Any]] = []
    for name in resources:
        if name == quota.resource:
            entry: dict[str, Any] = {"name": name, "nominalQuota": quota.chips}
            if quota.borrowing_limit is not None:
                entry["borrowingLimit"] = quota.borrowing_limit
            if quota.lending_limit is not None:
                entry["lendingLimit"] = quota.lending_limit
        elif name == "cpu":
            entry = {"name": name, "nominalQuota": quota.chips * CPU_PER_VM}
        elif name == "memory":
            entry = {"name": name, "nominalQuota": f"{quota.chips * MEMORY_TIB_PER_VM}Ti"}
        elif name == CHANNEL_RESOURCE:
            entry = {"name": name, "nominalQuota": _channels(quota)}
        else:
            entry = {"name": name, "nominalQuota": 0}
        out.append(entry)
    return {"name": flavor, "resources": out}


def flavor_ref(read_step: str, index: int) -> Ref:
    """The cluster's ResourceFlavor for the index-th quota, known once the read step ran."""
    return Ref(read_step, f"flavor_{index}")


def cluster_queue(spec: TeamSpec, read_step: str) -> dict[str, Any]:
    resources = covered(spec.quotas)
    flavors = [
        flavor_quota(q, flavor_ref(read_step, i), resources) for i, q in enumerate(spec.quotas)
    ]
    return {
        "apiVersion": KUEUE_API,
        "kind": "ClusterQueue",
        "metadata": {"name": queue_name(spec.team), "labels": labels(spec.team)},
        "spec": {
            "cohortName": COHORT,
            "namespaceSelector": {"matchLabels": {NAMESPACE_LABEL: spec.namespace}},
            "queueingStrategy": "BestEffortFIFO",
            "resourceGroups": [{"coveredResources": resources, "flavors": flavors}],
            "preemption": {
                "withinClusterQueue": "LowerPriority",
                "reclaimWithinCohort": "Any",
            },
            "fairSharing": {"weight": spec.weight},
        },
    }


def local_queue(spec: TeamSpec) -> dict[str, Any]:
    """Named like the cluster's own LocalQueue, so a JobSet's queue label is the same in every
    namespace and the namespace alone picks the team."""
    return {
        "apiVersion": KUEUE_API,
        "kind": "LocalQueue",
        "metadata": {"name": LOCAL_QUEUE, "namespace": spec.namespace, "labels": labels(spec.team)},
        "spec": {"clusterQueue": queue_name(spec.team)},
    }
