"""The live handler of `k8s_cohort_read` (plan/gke/cohort_read.py): list the cluster's
ClusterQueues and work out the chips its own queue keeps once the teams' are taken out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from xcli.gateways.kube.api import KubeApi
from xcli.plan.contract import Handler, StepContext
from xcli.plan.gke.cohort_read import CohortRead, chips_left
from xcli.plan.gke.kueue_objects import KUEUE_API


def handler(api_for: Callable[[str], KubeApi]) -> Handler:
    def cohort_read(step: CohortRead, ctx: StepContext) -> Mapping[str, Any]:
        queues = api_for(str(step.cluster)).list(KUEUE_API, "ClusterQueue")
        out = chips_left(queues, step)
        if out["teams"]:
            held = ", ".join(f"{team} {chips}" for team, chips in out["teams"].items())
            ctx.report(f"teams hold {held} chips; the cluster's queue keeps {out['chips']}")
        return out

    return cohort_read
