"""`xcli workload delete`: one K8sDelete step per workload (foreground: its Jobs and pods go
first), independent of each other so several are deleted at once. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from xcli.plan.gke.kube_steps import K8sDelete
from xcli.plan.model import Plan, Step
from xcli.plan.steps import Text
from xcli.workload.jobset.manifest import API_VERSION

DELETE_PARALLEL = 8


def plan_workload_delete(
    names: Sequence[str], cluster: Text, cluster_name: str, namespace: str = "default"
) -> Plan:
    steps: list[Step] = [
        K8sDelete(
            id=f"delete-{name}",
            summary=f"delete JobSet {name} (its Jobs and pods first) and wait until it is gone",
            cluster=cluster,
            api_version=API_VERSION,
            resource="jobsets",
            namespace=namespace,
            name=name,
        )
        for name in names
    ]
    noun = names[0] if len(names) == 1 else f"{len(names)} workloads"
    return Plan(
        title=f"delete {noun} on cluster {cluster_name}",
        steps=tuple(steps),
        notes=("a workload that is already gone counts as deleted",),
        max_parallel=DELETE_PARALLEL,
    )
