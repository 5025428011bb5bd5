"""The cluster's own ClusterQueue keeps the teams' chips out (pure: the step and the sum).

Teams (`xcli team create`, workload/team/) move chips out of the cluster's ClusterQueue
`xcli-cluster-queue` into their own ClusterQueues in the cohort `xcli`: a cohort's capacity is
the sum of its queues' nominal quotas, so the cluster's queue keeps only what no team holds.
Re-running the setup (`xcli cluster create` again, `xcli cluster adapt`) must not give those
chips back to it. So the setup reads the cohort first (`k8s_cohort_read`, after Kueue's CRDs
exist): the chip quota of the cluster's queue is then `${k8s-cohort-read.chips}`, the cluster's
chips less those of every team queue for the cluster's flavor. A dry-run shows the read step and
that reference; the live run applies the number the read found (gateways/kube/cohort_read.py).

JSON form of `k8s_cohort_read` (besides id, kind, summary, after): "cluster", "cohort",
"team_label", "flavor", "resource", "chips".
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.errors import UserError
from xcli.plan.model import Ref, Step
from xcli.plan.steps import Text

READ = "k8s-cohort-read"
TEAM_LABEL = "xcli/team"  # on every object of a team (workload/team/objects.py)


@dataclass(frozen=True, kw_only=True)
class CohortRead(Step):
    """List the team ClusterQueues of `cohort`; output `chips`: `chips` less their nominal
    quotas of (`flavor`, `resource`), and `teams`: {team: chips}. Fails, before the queue is
    applied, when the teams hold more chips than the cluster has."""

    kind: ClassVar[str] = "k8s_cohort_read"

    cluster: Text
    cohort: str
    team_label: str
    flavor: str
    resource: str
    chips: int


def chips_ref() -> Ref:
    return Ref(READ, "chips")


def team_chips(queues: Iterable[Mapping[str, Any]], step: CohortRead) -> dict[str, int]:
    """{team: nominal chips of the step's flavor and resource} of the cohort's team queues."""
    held: dict[str, int] = {}
    for queue in queues:
        meta, spec = queue.get("metadata") or {}, queue.get("spec") or {}
        team = (meta.get("labels") or {}).get(step.team_label)
        if not team or spec.get("cohortName") != step.cohort:
            continue
        for group in spec.get("resourceGroups") or []:
            for flavor in group.get("flavors") or []:
                if flavor.get("name") != step.flavor:
                    continue
                for res in flavor.get("resources") or []:
                    if res.get("name") == step.resource:
                        held[team] = held.get(team, 0) + int(res.get("nominalQuota") or 0)
    return held


def chips_left(queues: Iterable[Mapping[str, Any]], step: CohortRead) -> dict[str, Any]:
    """The read step's outputs, from the cohort's ClusterQueues as listed."""
    held = team_chips(queues, step)
    left = step.chips - sum(held.values())
    if left < 0:
        teams = ", ".join(f"{team} {chips}" for team, chips in sorted(held.items()))
        raise UserError(
            f"the teams hold {sum(held.values())} {step.resource} chips of {step.flavor} "
            f"({teams}), more than the cluster's {step.chips}",
            hint="lower a team's quota (`xcli team create` again with --quota) or delete a "
            "team (`xcli team delete`), then run this command again",
        )
    return {"chips": left, "teams": dict(sorted(held.items()))}


def cohort_read(
    cluster: Text, after: tuple[str, ...], flavor: str, resource: str, chips: int, cohort: str
) -> CohortRead:
    return CohortRead(
        id=READ,
        summary=f"read the team ClusterQueues of cohort {cohort}: the cluster's queue keeps "
        f"the chips of {flavor} no team holds",
        after=after,
        cluster=cluster,
        cohort=cohort,
        team_label=TEAM_LABEL,
        flavor=flavor,
        resource=resource,
        chips=chips,
    )


def carved(queue: Mapping[str, Any], resource: str, flavor_name: str) -> dict[str, Any]:
    """The cluster's ClusterQueue with its `resource` quota in the accelerator's flavor replaced
    by the read's `chips` (other flavors, such as Pathways' CPU one, hold none)."""
    out = copy.deepcopy(dict(queue))
    for group in out["spec"]["resourceGroups"]:
        for flavor in group["flavors"]:
            if flavor["name"] != flavor_name:
                continue
            for res in flavor["resources"]:
                if res["name"] == resource:
                    res["nominalQuota"] = chips_ref()
    return out
