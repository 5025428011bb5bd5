"""(f) flavors_admit: Kueue's flavor assignment, pod set by pod set, as Kueue v0.19.2 does it.

Each queued object's pod sets (a JobSet's replicatedJobs, a Job) are given a flavor per
resource group of their ClusterQueue, the group's flavors tried in order; a flavor is taken
when all of these hold, else the next one is tried, and a pod set no flavor takes is never
admitted (its workload stays suspended). Sources, kubernetes-sigs/kueue at v0.19.2 (8eab6877):
- TAS: `pkg/scheduler/flavorassigner/tas_flavorassigner.go` `checkPodSetAndFlavorMatchForTAS`:
  a pod set that asks for no topology skips a flavor with a `topologyName` ("Flavor %q supports
  only TopologyAwareScheduling"), unless every flavor of the ClusterQueue has one (TAS implied,
  `isTASOnly` in `pkg/cache/scheduler/clusterqueue.go`); a pod set that asks for one skips a
  flavor without a topology when it requests a resource the group covers ("does not support
  TopologyAwareScheduling"), and a flavor whose Topology lacks the level it asks for ("does not
  contain the requested level"). Asking for a topology means one of the annotations of
  `pkg/controller/jobframework/tas.go` (required, preferred, unconstrained, slice-required).
- Order and labels: `pkg/scheduler/flavorassigner/flavorassigner.go` tries the group's flavors
  in order; a flavor whose nodeLabels contradict the pod's nodeSelector or required node
  affinity, or whose nodeTaints the pod does not tolerate, is skipped.
- Quota: every resource the pod set requests (per-pod requests times its pods) must fit the
  flavor's nominalQuota for that resource, plus what the other ClusterQueues of its cohort
  lend (their nominalQuota of the same flavor; no lending or borrowing limits are set by xcli).
  A quota only a live run knows (`${step.output}`) is taken as large enough.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tests.model.cluster import Cluster
from tests.model.nodes import Taint
from tests.model.scheduling import expression, quantity, requests, tolerates

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
TAS_ANNOTATIONS = (
    "kueue.x-k8s.io/podset-required-topology",
    "kueue.x-k8s.io/podset-preferred-topology",
    "kueue.x-k8s.io/podset-unconstrained-topology",
    "kueue.x-k8s.io/podset-slice-required-topology",
)


def pod_sets(obj: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], int]]:
    """(name, pod template, pod count) of each Kueue pod set of a queued object."""
    spec = obj.get("spec", {})
    if obj.get("kind") == "JobSet":
        for rjob in spec.get("replicatedJobs", []):
            job = rjob["template"]["spec"]
            per_job = int(job.get("parallelism", job.get("completions", 1)))
            yield rjob["name"], job["template"], int(rjob.get("replicas", 1)) * per_job
    elif obj.get("kind") == "Job":
        yield "main", spec["template"], int(spec.get("parallelism", 1))


def _asked_level(template: dict[str, Any]) -> str | None:
    annotations = template.get("metadata", {}).get("annotations", {})
    return next((annotations[a] for a in TAS_ANNOTATIONS if a in annotations), None)


def _is_ref(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("${")


def _levels(cluster: Cluster, flavor: dict[str, Any]) -> set[str]:
    topology = cluster.named("Topology", flavor["spec"].get("topologyName", ""))
    return {lv["nodeLabel"] for lv in (topology or {}).get("spec", {}).get("levels", [])}


def _label_miss(pod: dict[str, Any], flavor: dict[str, Any], keys: set[str]) -> str | None:
    """Kueue matches the pod's nodeSelector and required node affinity, restricted to the label
    keys the group's flavors name, against the flavor's nodeLabels (a key the flavor lacks
    matches nothing); the flavor's nodeTaints must be tolerated."""
    spec = flavor.get("spec", {})
    labels = spec.get("nodeLabels", {})
    for key, value in pod.get("nodeSelector", {}).items():
        if key in keys and labels.get(key) != value:
            return f"nodeLabels do not give the pod's nodeSelector {key}={value}"
    required = pod.get("affinity", {}).get("nodeAffinity", {})
    terms = required.get("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = terms.get("nodeSelectorTerms", [])
    if terms and not any(
        all(expression(e, labels) for e in t.get("matchExpressions", []) if e["key"] in keys)
        for t in terms
    ):
        return "nodeLabels do not meet the pod's required node affinity"
    for taint in spec.get("nodeTaints", []):
        bad = Taint(taint["key"], taint.get("value", ""), taint["effect"])
        if not tolerates(pod.get("tolerations", []), bad):
            return f"nodeTaints {taint['key']} not tolerated"
    return None


def _tas_miss(
    cluster: Cluster,
    template: dict[str, Any],
    flavor: dict[str, Any],
    tas_only: bool,
    covered: set[str],
) -> str | None:
    name, level = flavor["metadata"]["name"], _asked_level(template)
    has_topology = bool(flavor.get("spec", {}).get("topologyName"))
    if level is None:
        if has_topology and not tas_only:
            return f'Flavor "{name}" supports only TopologyAwareScheduling'
        return None
    if not has_topology:
        asked = set(requests(template["spec"]))
        return (
            f'Flavor "{name}" does not support TopologyAwareScheduling' if asked & covered else None
        )
    if level not in _levels(cluster, flavor):
        return f'Flavor "{name}" does not contain the requested level {level}'
    return None


def _lent(cluster: Cluster, queue: dict[str, Any], flavor: str, resource: str) -> float | None:
    """Nominal quota of `flavor`/`resource` in the queue and its cohort; None if unbounded."""
    cohort = queue["spec"].get("cohortName") or queue["spec"].get("cohort")
    queues = [queue] + [
        q
        for q in cluster.objects("ClusterQueue")
        if cohort
        and q is not queue
        and (q["spec"].get("cohortName") or q["spec"].get("cohort")) == cohort
    ]
    total = 0.0
    for q in queues:
        for group in q["spec"].get("resourceGroups", []):
            for f in group["flavors"]:
                if f["name"] != flavor and not _is_ref(f["name"]):
                    continue
                for r in f.get("resources", []):
                    if r["name"] == resource:
                        if _is_ref(r["nominalQuota"]):
                            if r["nominalQuota"] not in cluster.reads:
                                return None
                            total += cluster.reads[r["nominalQuota"]]
                            continue
                        total += quantity(str(r["nominalQuota"]))
    return total


def _quota_miss(
    cluster: Cluster, queue: dict[str, Any], flavor: str, asked: dict[str, float]
) -> str | None:
    for resource, amount in asked.items():
        have = _lent(cluster, queue, flavor, resource)
        if have is not None and amount > have:
            return f"{resource} {amount:g} over quota {have:g}"
    return None


def _admit(
    cluster: Cluster, queue: dict[str, Any], template: dict[str, Any], count: int
) -> list[str]:
    """Empty when every resource group gives the pod set a flavor; else why each was skipped."""
    flavors = {f["metadata"]["name"]: f for f in cluster.objects("ResourceFlavor")}
    groups = queue["spec"].get("resourceGroups", [])
    names = [f["name"] for g in groups for f in g["flavors"]]
    if any(_is_ref(n) for n in names):
        return []  # a team queue's flavors are read live; pods_fit tries every flavor then
    tas_only = all(flavors.get(n, {}).get("spec", {}).get("topologyName") for n in names)
    asked_all = {r: quantity(v) * count for r, v in requests(template["spec"]).items()}
    for group in groups:
        covered = set(group["coveredResources"])
        keys = {
            k
            for e in group["flavors"]
            for k in flavors.get(e["name"], {}).get("spec", {}).get("nodeLabels", {})
        }
        asked = {r: v for r, v in asked_all.items() if r in covered}
        if not asked:
            continue
        reasons = []
        for entry in group["flavors"]:
            flavor = flavors.get(entry["name"])
            if flavor is None:
                reasons.append(f"{entry['name']}: not applied")
                continue
            miss = (
                _tas_miss(cluster, template, flavor, tas_only, covered)
                or _label_miss(template["spec"], flavor, keys)
                or _quota_miss(cluster, queue, entry["name"], asked)
            )
            if miss is None:
                break
            reasons.append(f"{entry['name']}: {miss}")
        else:
            return reasons
    return []


def flavors_admit(cluster: Cluster, objects: list[dict[str, Any]]) -> list[str]:
    """(f) one line per queued pod set that no flavor of its ClusterQueue admits."""
    lines = []
    for obj in objects:
        meta = obj.get("metadata", {})
        label = meta.get("labels", {}).get(QUEUE_LABEL)
        if label is None:
            continue
        local = cluster.named("LocalQueue", label, meta.get("namespace", "default"))
        queue = cluster.named("ClusterQueue", local["spec"]["clusterQueue"]) if local else None
        if queue is None:
            continue  # queues_cover names it
        for name, template, count in pod_sets(obj):
            reasons = _admit(cluster, queue, template, count)
            if reasons:
                lines.append(
                    f"{obj['kind']} {meta.get('name')} replicatedJobs[{name}]: no flavor of "
                    f"ClusterQueue {queue['metadata']['name']} admits its {count} pods "
                    f"({'; '.join(reasons)})"
                )
    return lines
