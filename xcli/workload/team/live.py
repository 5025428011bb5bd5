"""`xcli team list`: each team's quota, usage, borrowing and queue, from ClusterQueue status.

Kueue writes per flavor and resource `status.flavorsUsage[].resources[].{total, borrowed}`,
and per queue `pendingWorkloads` and `admittedWorkloads`
(https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ClusterQueueStatus).
The cluster's own ClusterQueue, which `default` uses, is listed as the team `default`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from xcli.gateways.backoff import Sleep
from xcli.gateways.kube.api import KubeApi
from xcli.plan.contract import Handler
from xcli.plan.gke.kueue_objects import CLUSTER_QUEUE, KUEUE_API
from xcli.workload.team.objects import TEAM_LABEL

HEADERS = ("TEAM", "NAMESPACE", "FLAVOR", "QUOTA", "USED", "BORROWED", "PENDING", "ADMITTED")


def team_rows(api: KubeApi) -> list[dict[str, Any]]:
    """One row per team and flavor, the cluster's own queue first, then teams by name."""
    rows: list[dict[str, Any]] = []
    queues = api.list(KUEUE_API, "ClusterQueue")
    mine = [q for q in queues if q["metadata"]["name"] == CLUSTER_QUEUE]
    teams = sorted(
        (q for q in queues if TEAM_LABEL in (q["metadata"].get("labels") or {})),
        key=lambda q: q["metadata"]["labels"][TEAM_LABEL],
    )
    for queue in [*mine, *teams]:
        team = (queue["metadata"].get("labels") or {}).get(TEAM_LABEL, "default")
        rows.extend(_rows(queue, team))
    return rows


def _rows(queue: dict[str, Any], team: str) -> list[dict[str, Any]]:
    status = queue.get("status") or {}
    usage = {
        (flavor["name"], res["name"]): res
        for flavor in status.get("flavorsUsage") or []
        for res in flavor.get("resources") or []
    }
    rows = []
    for group in (queue.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                if res["name"] in ("cpu", "memory"):
                    continue
                used = usage.get((flavor["name"], res["name"])) or {}
                rows.append(
                    {
                        "team": team,
                        "namespace": team if team != "default" else "default",
                        "cluster_queue": queue["metadata"]["name"],
                        "flavor": flavor["name"],
                        "resource": res["name"],
                        "quota": int(res.get("nominalQuota") or 0),
                        "borrowing_limit": res.get("borrowingLimit"),
                        "lending_limit": res.get("lendingLimit"),
                        "used": int(used.get("total") or 0),
                        "borrowed": int(used.get("borrowed") or 0),
                        "pending_workloads": int(status.get("pendingWorkloads") or 0),
                        "admitted_workloads": int(status.get("admittedWorkloads") or 0),
                    }
                )
    return rows


def cells(row: dict[str, Any]) -> list[str]:
    return [
        row["team"],
        row["namespace"],
        row["flavor"],
        str(row["quota"]),
        str(row["used"]),
        str(row["borrowed"]),
        str(row["pending_workloads"]),
        str(row["admitted_workloads"]),
    ]


def handlers(api: KubeApi, sleep: Sleep, clock: Callable[[], float]) -> Mapping[str, Handler]:
    """Live handlers of the team plans on the cluster whose API is `api`: the Kubernetes step
    kinds (server-side apply, foreground delete then wait until gone) and `team_read`."""
    from xcli.gateways.kube.handlers import KubeHandlers
    from xcli.workload.team.read import handler

    kube = KubeHandlers(lambda _cluster: api, sleep=sleep, clock=clock).handlers()
    return {**kube, "team_read": handler(lambda _cluster: api)}
