"""The live handler of the `team_read` step: what a team's plan needs from the cluster.

It reads the metadata ConfigMap (the cluster was set up by xcli; its version), the cluster's
ResourceFlavors, its own ClusterQueue and the team's, and answers:
- `flavor_<i>`: the flavor the i-th quota means (a family matches the flavor of that family,
  a shape the flavor of that name);
- `cluster_queue`: the cluster's ClusterQueue in the cohort, with the team's chips taken out
  (create; re-running with another quota first gives the old one back) or given back (delete).
Every refusal happens here, before the plan writes anything.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable, Mapping
from typing import Any

from xcli.errors import ConfigError, UserError
from xcli.gateways.kube.api import KubeApi
from xcli.plan.contract import Handler, StepContext
from xcli.plan.gke.incluster import METADATA_CONFIGMAP
from xcli.plan.gke.kueue_objects import CLUSTER_QUEUE, COHORT, KUEUE_API, NAMESPACE
from xcli.plan.gke.versions import version_note
from xcli.workload.team.objects import queue_name
from xcli.workload.team.plan import TeamRead

Obj = dict[str, Any]
# What the API server adds to an object: not part of what xcli applies.
# Finalizers belong to Kueue (it holds a queue while workloads use it): not xcli's to apply.
SERVER_FIELDS = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
    "finalizers",
)


def handler(api_for: Callable[[str], KubeApi]) -> Handler:
    def team_read(step: TeamRead, ctx: StepContext) -> Mapping[str, Any]:
        api = api_for(str(step.cluster))
        config = api.get("v1", "ConfigMap", METADATA_CONFIGMAP, NAMESPACE)
        if config is None:
            raise ConfigError(
                f"the cluster was not set up by xcli: it has no ConfigMap "
                f"{NAMESPACE}/{METADATA_CONFIGMAP}",
                hint="run `xcli cluster create` with its shape first (on an existing cluster it "
                "adds only the in-cluster setup)",
            )
        data = config.get("data") or {}
        note = version_note(data, str(data.get("cluster", "")))
        if note:
            ctx.report(note)
        own = api.get(KUEUE_API, "ClusterQueue", CLUSTER_QUEUE)
        if own is None:
            raise ConfigError(
                f"the cluster has no ClusterQueue {CLUSTER_QUEUE}",
                hint="run `xcli cluster create` with its shape again: it restores the setup",
            )
        team = api.get(KUEUE_API, "ClusterQueue", queue_name(step.team))
        if step.purpose == "delete":
            return {"cluster_queue": _deleting(step, own, team)}
        flavors = _flavors(api)
        chosen = [_match(q, flavors) for q in step.quotas]
        if len(set(chosen)) != len(chosen):
            raise UserError(
                "two quotas name the same flavor of the cluster: " + ", ".join(chosen),
                hint="give each accelerator of the cluster one quota",
            )
        queue = _without_server_fields(own)
        if team is not None:
            _give(queue, _quotas_of(team), +1)  # re-run: the old quota first goes back
        pairs = zip(chosen, step.quotas, strict=True)
        taken = {(f, q["resource"]): int(q["chips"]) for f, q in pairs}
        _give(queue, taken, -1)
        out: dict[str, Any] = {f"flavor_{i}": f for i, f in enumerate(chosen)}
        out["cluster_queue"] = queue
        return out

    return team_read


def _deleting(step: TeamRead, own: Obj, team: Obj | None) -> Obj:
    queue = _without_server_fields(own)
    if team is None:
        return queue
    admitted = int((team.get("status") or {}).get("admittedWorkloads") or 0)
    if admitted and not step.force:
        raise UserError(
            f"team {step.team} has {admitted} workload(s) admitted and running",
            hint=f"wait for them (xcli workload list --namespace {step.team} ...), or pass "
            "--force to stop them with the team",
        )
    _give(queue, _quotas_of(team), +1)
    return queue


def _without_server_fields(obj: Obj) -> Obj:
    out = copy.deepcopy({k: v for k, v in obj.items() if k != "status"})
    meta = out.setdefault("metadata", {})
    for key in SERVER_FIELDS:
        meta.pop(key, None)
    out.setdefault("spec", {})["cohortName"] = COHORT
    return out


def _flavors(api: KubeApi) -> dict[str, Obj]:
    return {f["metadata"]["name"]: f for f in api.list(KUEUE_API, "ResourceFlavor")}


def _family(flavor: str) -> str:
    from xcli.catalog import lookup

    try:
        return lookup(flavor).family
    except UserError:
        return ""


def _match(quota: Mapping[str, Any], flavors: Mapping[str, Obj]) -> str:
    """The cluster's flavor a quota's type means (xcli names flavors after the shape)."""
    if quota["shape"]:
        found = [name for name in flavors if name == quota["shape"]]
    else:
        found = [name for name in flavors if _family(name) == quota["family"]]
    if len(found) == 1:
        return found[0]
    known = sorted(name for name in flavors if _family(name))
    if not found:
        close = difflib.get_close_matches(quota["type"], known, n=2, cutoff=0.3)
        guess = f"did you mean {' or '.join(close)}? " if close else ""
        raise UserError(
            f"--quota {quota['type']}: the cluster has no {quota['type']} accelerators "
            f"(its flavors: {', '.join(known) or 'none'})",
            hint=guess + "name one of the cluster's accelerator types",
        )
    raise UserError(
        f"--quota {quota['type']} matches several flavors of the cluster: {', '.join(found)}",
        hint="name the shape instead of the family, e.g. --quota " + f"{found[0]}={quota['chips']}",
    )


def _quotas_of(queue: Obj) -> dict[tuple[str, str], int]:
    """(flavor, resource) -> nominal chips, for the chip resources of a ClusterQueue."""
    found: dict[tuple[str, str], int] = {}
    for group in (queue.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                if res["name"] not in ("cpu", "memory"):
                    found[(flavor["name"], res["name"])] = int(res.get("nominalQuota") or 0)
    return found


def _give(queue: Obj, chips: Mapping[tuple[str, str], int], sign: int) -> None:
    """Add (sign +1) or take (-1) chips to/from the cluster queue's nominal quotas."""
    entries = {
        (flavor["name"], res["name"]): res
        for group in queue["spec"].get("resourceGroups") or []
        for flavor in group.get("flavors") or []
        for res in flavor.get("resources") or []
    }
    for (flavor, resource), count in chips.items():
        entry = entries.get((flavor, resource))
        if entry is None:
            if sign > 0:
                continue  # the cluster queue no longer has that flavor: nothing to give back
            raise ConfigError(
                f"ClusterQueue {CLUSTER_QUEUE} has no quota of {resource} in flavor {flavor}",
                hint="run `xcli cluster create` with the cluster's shape again to restore it",
            )
        left = int(entry.get("nominalQuota") or 0) + sign * count
        if left < 0:
            raise UserError(
                f"the cluster has {entry.get('nominalQuota', 0)} {resource} chips of {flavor} "
                f"not given to a team; the team asks for {count}",
                hint="ask for fewer chips, or lower another team's quota first (`xcli team list`)",
            )
        entry["nominalQuota"] = left
