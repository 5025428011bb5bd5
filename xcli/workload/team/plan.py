"""Plans of `xcli team create` and `xcli team delete` (pure).

Both start with a `team_read` step: which of the cluster's ResourceFlavors each quota's type
means, and the cluster's own ClusterQueue with the team's chips moved out of it (create) or
back into it (delete). Those are facts of the cluster, so a dry-run shows them as the read
step's outputs (`${team-read.flavor_0}`), exactly what a live run reads and then applies.

JSON form of `team_read` (besides id, kind, summary, after): "cluster", "team", "purpose"
(create|delete), "quotas" [{type, family, shape, resource, chips}], "force".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.plan.gke.kube_steps import K8sDelete
from xcli.plan.gke.kueue_objects import CLUSTER_QUEUE, COHORT, KUEUE_API
from xcli.plan.model import Plan, Ref, Step
from xcli.plan.steps import K8sApply, Text
from xcli.workload.team import objects
from xcli.workload.team.spec import TeamSpec

READ = "team-read"


@dataclass(frozen=True, kw_only=True)
class TeamRead(Step):
    """Read the cluster's flavors, its ClusterQueue and the team's; work out the new quotas.

    Fails, before anything is written, when the cluster was not set up by xcli, a quota's type
    matches none of its flavors, the cluster has fewer chips left than the team asks for, or
    (delete) workloads are admitted in the team's queue and `force` is not set.
    """

    kind: ClassVar[str] = "team_read"

    cluster: Text
    team: str
    purpose: str  # create or delete
    quotas: tuple[Mapping[str, Any], ...] = ()
    force: bool = False


def _read(spec: TeamSpec, cluster: Text, purpose: str, force: bool = False) -> TeamRead:
    wanted = ", ".join(f"{q.type}={q.chips}" for q in spec.quotas)
    what = (
        f"map {wanted} to the cluster's ResourceFlavors and take those chips from its "
        f"ClusterQueue {CLUSTER_QUEUE}"
        if purpose == "create"
        else f"check no workload is admitted in team {spec.team}'s queue (unless --force) and "
        f"give its chips back to ClusterQueue {CLUSTER_QUEUE}"
    )
    return TeamRead(
        id=READ,
        summary=f"read the cluster: {what}",
        cluster=cluster,
        team=spec.team,
        purpose=purpose,
        quotas=tuple(
            {
                "type": q.type,
                "family": q.family,
                "shape": q.shape,
                "resource": q.resource,
                "chips": q.chips,
            }
            for q in spec.quotas
        ),
        force=force,
    )


def _apply(sid: str, summary: str, after: tuple[str, ...], cluster: Text, obj: Any) -> K8sApply:
    return K8sApply(id=sid, summary=f"apply {summary}", after=after, cluster=cluster, manifest=obj)


def _cluster_queue(cluster: Text, after: tuple[str, ...], summary: str) -> K8sApply:
    """The cluster's own ClusterQueue as the read step worked it out (same field manager and
    the whole object, as `cluster create` applied it, so no field it set is dropped)."""
    return _apply("k8s-cluster-queue", summary, after, cluster, Ref(READ, "cluster_queue"))


def plan_team_create(spec: TeamSpec, cluster: Text) -> Plan:
    chips = ", ".join(f"{q.chips} {q.type}" for q in spec.quotas)
    read = _read(spec, cluster, "create")
    ns_obj = objects.namespace(spec)
    ns = _apply("k8s-namespace", f"Namespace {spec.namespace}", (READ,), cluster, ns_obj)
    own = _cluster_queue(
        cluster,
        (READ,),
        f"ClusterQueue {CLUSTER_QUEUE} in cohort {COHORT}, its quota less {chips}",
    )
    team_q = _apply(
        "k8s-team-queue",
        f"ClusterQueue {objects.queue_name(spec.team)} in cohort {COHORT} ({chips})",
        (own.id,),
        cluster,
        objects.cluster_queue(spec, READ),
    )
    local = objects.local_queue(spec)
    lq = _apply(
        "k8s-local-queue",
        f"LocalQueue {spec.namespace}/{local['metadata']['name']}",
        (ns.id, team_q.id),
        cluster,
        local,
    )
    return Plan(
        title=f"create team {spec.team} on cluster {spec.cluster}",
        steps=(read, ns, own, team_q, lq),
        notes=(
            f"workloads join the team with: xcli workload create --cluster {spec.cluster} "
            f"--namespace {spec.namespace} ...",
        ),
    )


def plan_team_delete(spec: TeamSpec, cluster: Text, force: bool) -> Plan:
    read = _read(spec, cluster, "delete", force)
    ns = K8sDelete(
        id="k8s-delete-namespace",
        summary=f"delete Namespace {spec.namespace} (its workloads and LocalQueue first)",
        after=(READ,),
        cluster=cluster,
        api_version="v1",
        resource="namespaces",
        namespace="",
        name=spec.namespace,
        timeout_seconds=900,
    )
    team_q = K8sDelete(
        id="k8s-delete-team-queue",
        summary=f"delete ClusterQueue {objects.queue_name(spec.team)}",
        after=(ns.id,),
        cluster=cluster,
        api_version=KUEUE_API,
        resource="clusterqueues",
        namespace="",
        name=objects.queue_name(spec.team),
    )
    own = _cluster_queue(
        cluster, (team_q.id,), f"ClusterQueue {CLUSTER_QUEUE} with team {spec.team}'s chips back"
    )
    return Plan(
        title=f"delete team {spec.team} on cluster {spec.cluster}",
        steps=(read, ns, team_q, own),
        notes=("a team that is already gone counts as deleted",),
    )
