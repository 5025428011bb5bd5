"""`xcli cluster preload-image`: pull an image onto every accelerator node ahead of a workload.

For clusters without a secondary boot disk: a DaemonSet on every TPU and GPU node whose init
container is the image itself, running a no-op (`/bin/sh -c true`), so the kubelet pulls the
image; the pod then only holds a pause container. When every selected node runs it ready, every
node has the image in its cache; the DaemonSet is then deleted (`--keep` leaves it, so nodes
added later pull too). XPK's `cluster cacheimage` does the same with a `sleep inf` container
that keeps the image running (https://github.com/AI-Hypercomputer/xpk, templates/
cluster_preheat.yaml.j2). Pure.
"""

from __future__ import annotations

import hashlib
from typing import Any

from xcli.plan.gke.daemonset_steps import K8sRollout
from xcli.plan.gke.kube_steps import K8sDelete
from xcli.plan.model import Plan, Step
from xcli.plan.steps import K8sApply

NAMESPACE = "default"
LABEL = "xcli/preload"
# The pause image Kubernetes itself uses as every pod's sandbox: tiny, does nothing.
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
# Node labels that GKE puts on accelerator nodes (the catalogue's gke_label values): a node
# with either one gets the DaemonSet (two terms of nodeSelectorTerms are ORed).
ACCELERATOR_LABELS = ("cloud.google.com/gke-tpu-accelerator", "cloud.google.com/gke-accelerator")


def daemonset_name(image: str) -> str:
    """One DaemonSet per image, so preloading two images at once does not collide."""
    return "xcli-preload-" + hashlib.sha256(image.encode()).hexdigest()[:10]


def daemonset(image: str) -> dict[str, Any]:
    name = daemonset_name(image)
    labels = {LABEL: name, "app.kubernetes.io/managed-by": "xcli"}
    terms = [{"matchExpressions": [{"key": k, "operator": "Exists"}]} for k in ACCELERATOR_LABELS]
    small = {"cpu": "10m", "memory": "16Mi"}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "labels": labels,
            "annotations": {"xcli/image": image},
        },
        "spec": {
            "selector": {"matchLabels": {LABEL: name}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "affinity": {
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": terms
                            }
                        }
                    },
                    # accelerator pools are tainted (google.com/tpu, nvidia.com/gpu, spot...)
                    "tolerations": [{"operator": "Exists"}],
                    "initContainers": [
                        {
                            "name": "pull",
                            "image": image,
                            "command": ["/bin/sh", "-c", "true"],
                            "resources": {"requests": small, "limits": small},
                        }
                    ],
                    "containers": [
                        {
                            "name": "pause",
                            "image": PAUSE_IMAGE,
                            "resources": {"requests": small, "limits": small},
                        }
                    ],
                    "terminationGracePeriodSeconds": 0,
                },
            },
        },
    }


def plan_preload(image: str, cluster: str, where: str, timeout: int, keep: bool) -> Plan:
    """apply the DaemonSet -> wait until it is ready on every node -> delete it (unless keep).

    `where` names the cluster's resource for the Kubernetes steps; `cluster` its name.
    """
    manifest = daemonset(image)
    name = manifest["metadata"]["name"]
    steps: list[Step] = [
        K8sApply(
            id="daemonset",
            summary=f"apply DaemonSet {name} pulling {image} on every accelerator node",
            cluster=where,
            manifest=manifest,
        ),
        K8sRollout(
            id="pulled",
            summary=f"wait until every accelerator node has {image}",
            after=("daemonset",),
            cluster=where,
            namespace=NAMESPACE,
            name=name,
            timeout_seconds=timeout,
        ),
    ]
    if not keep:
        steps.append(
            K8sDelete(
                id="cleanup",
                summary=f"delete DaemonSet {name} (the image stays cached)",
                after=("pulled",),
                cluster=where,
                api_version="apps/v1",
                resource="daemonsets",
                namespace=NAMESPACE,
                name=name,
            )
        )
    notes = [
        "the image needs /bin/sh (the init container runs `/bin/sh -c true` once pulled)",
        "with --keep the DaemonSet stays, so nodes added later pull the image too"
        if keep
        else "the DaemonSet is deleted once every node has the image; kubelet image garbage "
        "collection may evict it later from a node short of disk",
    ]
    return Plan(f"preload {image} on cluster {cluster}", tuple(steps), tuple(notes), max_parallel=1)
