"""What `xcli cluster describe` reads inside a cluster: its metadata, Kueue quota and usage."""

from __future__ import annotations

from typing import Any

from xcli.gateways.kube.api import KubeApi
from xcli.plan.gke.incluster import METADATA_CONFIGMAP
from xcli.plan.gke.kueue_objects import CLUSTER_QUEUE, KUEUE_API, NAMESPACE
from xcli.plan.gke.versions import version_note


def cluster_status(api: KubeApi) -> dict[str, Any]:
    """The metadata ConfigMap's data, and the ClusterQueue's quota and usage per resource.

    `setup_complete` is False when the ConfigMap is missing: it is written last, so a cluster
    whose in-cluster setup was interrupted shows as such (running create again finishes it).
    """
    config = api.get("v1", "ConfigMap", METADATA_CONFIGMAP, NAMESPACE)
    queue = api.get(KUEUE_API, "ClusterQueue", CLUSTER_QUEUE)
    data = dict((config or {}).get("data") or {})
    found: dict[str, Any] = {
        "setup_complete": config is not None,
        "metadata": data,
        "queue": _queue(queue) if queue else None,
    }
    note = version_note(data, str(data.get("cluster", ""))) if config is not None else ""
    if note:  # set up by an xcli this one cannot fully use (plan/gke/versions.py)
        found["setup_warning"] = note
    return found


def _queue(queue: dict[str, Any]) -> dict[str, Any]:
    status = queue.get("status") or {}
    resources: dict[str, dict[str, str]] = {}
    for group in (queue.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                resources[res["name"]] = {"quota": str(res.get("nominalQuota", "0")), "used": "0"}
    for flavor in status.get("flavorsUsage") or []:
        for res in flavor.get("resources") or []:
            if res["name"] in resources:
                resources[res["name"]]["used"] = str(res.get("total", "0"))
    active = any(
        c.get("type") == "Active" and c.get("status") == "True"
        for c in status.get("conditions") or []
    )
    return {
        "name": queue["metadata"]["name"],
        "active": active,
        "pending_workloads": int(status.get("pendingWorkloads") or 0),
        "admitted_workloads": int(status.get("admittedWorkloads") or 0),
        "resources": resources,
    }
