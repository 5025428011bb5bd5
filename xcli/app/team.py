"""`xcli team create | list | delete`: teams sharing a cluster through Kueue queues.

A team is a namespace with a LocalQueue, and a ClusterQueue in the cluster's cohort holding its
quota of chips (xcli/workload/team/). The cluster is reached through its provider's
ClusterAccess; a provider without Kubernetes clusters has no teams.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Location
    from xcli.plan.cluster import ClusterRef
    from xcli.providers.base import ClusterAccess


@dataclass(frozen=True)
class CreateRequest:
    cluster: str
    team: str
    quota: str  # TYPE=CHIPS[,...], as given
    borrowing_limit: str | None
    lending_limit: str | None
    weight: str
    where: Location


@dataclass(frozen=True)
class ListRequest:
    cluster: str
    where: Location


@dataclass(frozen=True)
class DeleteRequest:
    cluster: str
    team: str
    force: bool  # even while its workloads run
    where: Location


def create(req: CreateRequest, deps: Deps) -> None:
    """Create a team, or apply its new quota (the plan reads the cluster's queues first)."""
    from xcli.workload.jobset.plan import gke_cluster_path
    from xcli.workload.team.plan import plan_team_create
    from xcli.workload.team.spec import TeamSpec, check_team, check_weight, parse_quotas

    spec = TeamSpec(
        cluster=req.cluster,
        team=check_team(req.team),
        quotas=parse_quotas(req.quota, req.borrowing_limit, req.lending_limit),
        weight=check_weight(req.weight),
    )
    ref, access = _where(req.cluster, req.where, deps)
    plan = plan_team_create(spec, gke_cluster_path(ref.project, ref.zone, req.cluster))
    deps.run_plan(plan, lambda: _handlers(access, ref, deps))


def list_teams(req: ListRequest, deps: Deps) -> list[dict[str, Any]]:
    """One row per team and flavor (workload/team/live.py:team_rows), the cluster's own queue
    first; none when the cluster was not set up by xcli."""
    from xcli.workload.team.live import team_rows

    ref, access = _where(req.cluster, req.where, deps)
    return team_rows(access.kube_api(ref))


def delete(req: DeleteRequest, deps: Deps) -> None:
    """Delete a team: its namespace and queues; its chips go back to the cluster's queue."""
    from xcli.workload.jobset.plan import gke_cluster_path
    from xcli.workload.team.plan import plan_team_delete
    from xcli.workload.team.spec import TeamSpec, check_team

    spec = TeamSpec(cluster=req.cluster, team=check_team(req.team), quotas=())
    deps.require_answerable(f"deleting team {req.team} on cluster {req.cluster}")
    ref, access = _where(req.cluster, req.where, deps)
    deps.confirm(
        f"Delete team {req.team} (namespace {req.team} and its workloads) on {req.cluster}?"
    )
    plan = plan_team_delete(spec, gke_cluster_path(ref.project, ref.zone, req.cluster), req.force)
    deps.run_plan(plan, lambda: _handlers(access, ref, deps))


def _where(cluster: str, where: Location, deps: Deps) -> tuple[ClusterRef, ClusterAccess]:
    """The cluster (one with Kubernetes: teams are Kueue queues) and how to reach it."""
    from xcli.app.where import CLUSTER_NAME_LIMIT, ref_for
    from xcli.cluster_index import provider_for
    from xcli.spec import check_name

    check_name(cluster, "cluster", CLUSTER_NAME_LIMIT)
    # a cluster this machine has no record of: the first provider with Kubernetes clusters
    provider = provider_for(cluster, None, deps.registry.default(kubernetes=True))
    access = deps.registry.cluster_access(provider, deps.registry.get(provider))
    if access is None:
        raise UserError(
            f"cluster {cluster} is a {provider} cluster: teams are Kueue queues on GKE clusters",
            hint="create a GKE cluster (xcli cluster create --provider gke ...) to share it",
        )
    return ref_for(deps.registry, cluster, provider, where), access


def _handlers(access: ClusterAccess, ref: ClusterRef, deps: Deps) -> Mapping[str, Any]:
    from xcli.workload.team.live import handlers

    return handlers(access.kube_api(ref), deps.timing.sleep, deps.timing.clock)
