"""The cluster model checks. Each returns one line per failure, naming the object and the field.

(a) pods_fit: each pod's nodeSelector, required node affinity and tolerations (with what Kueue
    injects from the flavor it admits the pod to) are satisfied by the nodes of some pool.
(b) flavors_fit: each ResourceFlavor's nodeLabels and nodeTaints are on the nodes of some pool.
(b') references_resolve: every Kueue object another one names (a queue's flavors and admission
    checks, a check's parameters, a flavor's topology, a LocalQueue's ClusterQueue) is applied.
(c) queues_cover: each resource a queued pod requests, DRA device classes included through
    Kueue's deviceClassMappings, is covered by a flavor of its ClusterQueue.
(d) kinds_installed: every kind an applied object uses is built in or installed by the plans.
(e) ports_served: every port a container's script connects to over ssh is the one its image
    serves (cluster_facts.json ssh_ports).
(f) flavors_admit (tests/model/admission.py): Kueue gives every queued pod set a flavor (TAS,
    flavor order, quota per resource).
(g) pool_rules, (h) node_limits (tests/model/limits.py): node-pool bodies GKE refuses
    (placement x queued provisioning x machine family), GKE's node cap and the subnet's size;
    (h') nap_covers: a workload on a node auto-provisioning cluster fits its chip limit (the
    pools NAP makes for it are in the cluster: tests/model/cluster.py _nap_pools).
(j) levels_on_nodes (tests/model/levels.py): a flavor's Topology levels are labels its nodes
    carry.
(k) slice_shapes (tests/model/slicing.py): on a slice-controller cluster, each pod's
    gke-tpu-slice-topology annotation is whole 4x4x4 cubes, as many VMs as the Job's pods, and
    the cubes asked fit the cluster's sub-block pools.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tests.model.addresses import pod_addresses
from tests.model.admission import flavors_admit
from tests.model.cluster import FACTS, Cluster, kind_of
from tests.model.levels import levels_on_nodes
from tests.model.limits import nap_covers, node_limits, pool_rules
from tests.model.scheduling import misfit, requests
from tests.model.slicing import slice_shapes

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def pod_templates(obj: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, pod spec) for each pod an object makes."""
    name = f"{obj.get('kind')} {obj.get('metadata', {}).get('name')}"
    spec = obj.get("spec", {})
    if obj.get("kind") == "JobSet":
        for job in spec.get("replicatedJobs", []):
            pod = job["template"]["spec"]["template"]["spec"]
            yield f"{name} replicatedJobs[{job['name']}] pod", pod
    elif obj.get("kind") in ("Job", "DaemonSet", "Deployment", "StatefulSet"):
        yield f"{name} pod", spec["template"]["spec"]
    elif obj.get("kind") == "Pod":
        yield f"{name}", spec


def _cluster_queue(cluster: Cluster, obj: dict[str, Any]) -> dict[str, Any] | None:
    meta = obj.get("metadata", {})
    local = cluster.named(
        "LocalQueue", meta["labels"][QUEUE_LABEL], meta.get("namespace", "default")
    )
    return cluster.named("ClusterQueue", local["spec"]["clusterQueue"]) if local else None


def _is_ref(name: str) -> bool:
    """A value only a live run knows (`${step.output}`), e.g. the flavors `team create` reads."""
    return name.startswith("${")


def _flavors(cluster: Cluster, queue: dict[str, Any]) -> list[dict[str, Any]]:
    """The queue's flavors; a flavor named by a live-run value may be any the cluster has."""
    names = [f["name"] for g in queue["spec"].get("resourceGroups", []) for f in g["flavors"]]
    if any(_is_ref(n) for n in names):
        return cluster.objects("ResourceFlavor")
    return [f for n in names if (f := cluster.named("ResourceFlavor", n)) is not None]


def _fits(cluster: Cluster, where: str, pod: dict[str, Any], flavor: dict[str, Any]) -> list[str]:
    """Empty if some pool takes the pod; else the first misfit of the closest pool. A flavor's
    nodeLabels are added to the pod's nodeSelector as Kueue does on admission (a key both set
    to different values fits no node)."""
    fspec = flavor.get("spec", {})
    origin = f" (from ResourceFlavor {flavor['metadata']['name']} spec.nodeLabels)"
    selector = [(k, v, "") for k, v in pod.get("nodeSelector", {}).items()]
    selector += [(k, v, origin) for k, v in fspec.get("nodeLabels", {}).items()]
    tolerations = list(pod.get("tolerations", [])) + list(fspec.get("tolerations", []))
    misses = [(p.name, misfit(pod, p, selector, tolerations)) for p in cluster.pools]
    if any(m is None for _, m in misses):
        return []
    if not misses:
        return [f"{where}: the cluster plan creates no node pool"]
    order = [f"nodeSelector {k}={v}{o}" for k, v, o in selector]
    pool, miss = max(misses, key=lambda m: order.index(m[1]) if m[1] in order else len(order))
    return [f"{where} spec.{miss}: no node of any pool satisfies it (closest: {pool})"]


def pods_fit(cluster: Cluster, objects: list[dict[str, Any]]) -> list[str]:
    """(a) for every pod template; a queued pod fits if it fits with one of its queue's flavors."""
    lines = []
    for obj in objects:
        for where, pod in pod_templates(obj):
            queued = QUEUE_LABEL in obj.get("metadata", {}).get("labels", {})
            queue = _cluster_queue(cluster, obj) if queued else None
            flavors = _flavors(cluster, queue) if queue else [{"metadata": {"name": ""}}]
            if queued and not flavors:
                lines.append(
                    f"{where} metadata.labels {QUEUE_LABEL}: its queue has no "
                    "ResourceFlavor in the plans"
                )
                continue
            tries = [_fits(cluster, where, pod, f) for f in flavors]
            if all(tries):
                lines += tries[0]
    return lines


def flavors_fit(cluster: Cluster) -> list[str]:
    """(b) each ResourceFlavor selects nodes some pool has, with the taints it names."""
    lines = []
    for flavor in cluster.objects("ResourceFlavor"):
        spec, name = flavor.get("spec", {}), flavor["metadata"]["name"]
        wanted = [(f"spec.nodeLabels {k}={v}", k, v) for k, v in spec.get("nodeLabels", {}).items()]
        taints = [(f"spec.nodeTaints {t['key']}", t) for t in spec.get("nodeTaints", [])]
        order = [w for w, _, _ in wanted] + [w for w, _ in taints]
        misses = []
        for pool in cluster.pools:
            have = {(n.key, n.value, n.effect) for n in pool.taints}
            miss = next((w for w, k, v in wanted if pool.labels.get(k) != v), None) or next(
                (w for w, t in taints if (t["key"], t.get("value", ""), t["effect"]) not in have),
                None,
            )
            if miss is None:
                break
            misses.append((order.index(miss), pool.name, miss))
        else:
            _, pool_name, miss = max(misses, key=lambda m: m[0]) if misses else (0, "-", "")
            lines.append(
                f"ResourceFlavor {name} {miss}: on no node of any pool (closest: {pool_name})"
            )
    return lines


def _claim_classes(
    cluster: Cluster, obj: dict[str, Any], pod: dict[str, Any]
) -> list[tuple[str, str | None]]:
    """(claim name, DeviceClass or None when nothing makes the claim's template)."""
    templates: dict[str, str] = {}
    for applied in cluster.objects("ResourceClaimTemplate"):
        devices = applied["spec"]["spec"]["devices"]["requests"]
        for req in devices:
            cls = req.get("deviceClassName") or req.get("exactly", {}).get("deviceClassName")
            templates[applied["metadata"]["name"]] = cls
    for row in FACTS["generated_claim_templates"]:
        for made in cluster.applied:
            if kind_of(made.obj) == row["from_kind"]:
                value: Any = made.obj
                for part in row["name_at"]:
                    value = value.get(part, {})
                templates[str(value)] = row["device_class"]
    return [
        (c["name"], templates.get(c.get("resourceClaimTemplateName", "")))
        for c in pod.get("resourceClaims", [])
    ]


def queues_cover(cluster: Cluster, objects: list[dict[str, Any]]) -> list[str]:
    """(c) every requested resource is a covered resource of the pod's ClusterQueue."""
    lines = []
    for obj in objects:
        if QUEUE_LABEL not in obj.get("metadata", {}).get("labels", {}):
            continue
        queue = _cluster_queue(cluster, obj)
        for where, pod in pod_templates(obj):
            if queue is None:
                label = obj["metadata"]["labels"][QUEUE_LABEL]
                lines.append(
                    f"{where} metadata.labels {QUEUE_LABEL}={label}: no LocalQueue "
                    "leading to a ClusterQueue in the cluster plan"
                )
                break
            covered = {r for g in queue["spec"]["resourceGroups"] for r in g["coveredResources"]}
            qname = f"ClusterQueue {queue['metadata']['name']}"
            for name in requests(pod):
                if name not in covered:
                    lines.append(f"{where} resources {name}: not covered by {qname}")
            for claim, device_class in _claim_classes(cluster, obj, pod):
                field = f"{where} spec.resourceClaims[{claim}]"
                if device_class is None:
                    lines.append(f"{field}: nothing in the plans makes its ResourceClaimTemplate")
                    continue
                if device_class not in cluster.device_classes:
                    lines.append(
                        f"{field}: DeviceClass {device_class} is installed by nothing in the plans"
                    )
                if device_class not in cluster.dra_mappings:
                    lines.append(
                        f"{field}: DeviceClass {device_class} is not in Kueue's "
                        "resources.deviceClassMappings (Kueue refuses the workload)"
                    )
                elif cluster.dra_mappings[device_class] not in covered:
                    lines.append(
                        f"{field}: resource {cluster.dra_mappings[device_class]} "
                        f"(DeviceClass {device_class}) not covered by {qname}"
                    )
    return lines


def kinds_installed(cluster: Cluster, objects: list[dict[str, Any]]) -> list[str]:
    """(d) each applied kind is built into GKE or installed by the plans."""
    lines = [
        f"k8s_install {u}: no sourced list of the kinds it installs"
        for u in cluster.unknown_installs
    ]
    for obj in objects:
        if kind_of(obj) not in cluster.kinds:
            name = obj.get("metadata", {}).get("name")
            lines.append(
                f"{obj.get('kind')} {name} apiVersion {obj.get('apiVersion')}: kind "
                "installed by nothing in the cluster plan nor built into GKE"
            )
    return lines


SSH_PORT = re.compile(r"\bssh\b[^\n|;&\"]*?(?:-p\s*(\d+)|-oPort=(\d+))")
SSH_ANY = re.compile(r"\bssh\s")


def ports_served(objects: list[dict[str, Any]]) -> list[str]:
    """(e) a script that sshes to its peers uses the port its image's sshd serves."""
    images = FACTS["ssh_ports"]["images"]
    lines = []
    for obj in objects:
        for where, pod in pod_templates(obj):
            for c in pod.get("initContainers", []) + pod.get("containers", []):
                script = "\n".join(c.get("command", []) + c.get("args", []))
                if not SSH_ANY.search(script):
                    continue
                used = {int(a or b) for a, b in SSH_PORT.findall(script)} or {22}
                repo = c.get("image", "").rsplit(":", 1)[0].split("@")[0]
                field = f"{where} containers[{c['name']}].command ssh -p {min(used)}"
                if repo not in images:
                    lines.append(f"{field}: no sourced sshd port for image {repo}")
                elif used != {images[repo]["port"]}:
                    lines.append(f"{field}: image {repo} serves sshd on {images[repo]['port']}")
    return lines


def _named_refs(obj: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(field, kind, name) of each object a Kueue object names."""
    spec, kind = obj.get("spec", {}), obj.get("kind")
    if kind == "ClusterQueue":
        for n, group in enumerate(spec.get("resourceGroups", [])):
            for flavor in group.get("flavors", []):
                yield f"spec.resourceGroups[{n}].flavors", "ResourceFlavor", flavor["name"]
        checks = spec.get("admissionChecksStrategy", {}).get("admissionChecks", [])
        for check in checks:
            yield "spec.admissionChecksStrategy", "AdmissionCheck", check["name"]
        for name in spec.get("admissionChecks", []):
            yield "spec.admissionChecks", "AdmissionCheck", name
    elif kind == "AdmissionCheck" and spec.get("parameters"):
        yield "spec.parameters", spec["parameters"]["kind"], spec["parameters"]["name"]
    elif kind == "ResourceFlavor" and spec.get("topologyName"):
        yield "spec.topologyName", "Topology", spec["topologyName"]
    elif kind == "LocalQueue":
        yield "spec.clusterQueue", "ClusterQueue", spec["clusterQueue"]


def references_resolve(cluster: Cluster) -> list[str]:
    """(b') the Kueue objects the plans apply name only objects the plans apply."""
    lines = []
    for applied in cluster.applied:
        obj = applied.obj
        for field, kind, name in _named_refs(obj):
            if not _is_ref(name) and cluster.named(kind, name) is None:
                lines.append(
                    f"{obj['kind']} {obj['metadata']['name']} {field}: no {kind} "
                    f"{name} in the plans"
                )
    return lines


def check_all(cluster: Cluster, objects: list[dict[str, Any]]) -> list[str]:
    """Every check over the objects a plan applies, against the cluster they run on."""
    return (
        pods_fit(cluster, objects)
        + flavors_fit(cluster)
        + references_resolve(cluster)
        + queues_cover(cluster, objects)
        + flavors_admit(cluster, objects)
        + kinds_installed(cluster, objects)
        + ports_served(objects)
        + pod_addresses(cluster.pod_range, cluster.addresses)
        + pool_rules(cluster.pool_bodies)
        + node_limits(cluster.body, cluster.addresses)
        + nap_covers(cluster.body, objects, cluster.pool_bodies)
        + levels_on_nodes(cluster)
        + slice_shapes(cluster, objects)
    )
