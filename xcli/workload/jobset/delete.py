"""`xcli workload delete`: one K8sDelete step per workload (foreground: its Jobs and pods go
first), independent of each other so several are deleted at once. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from xcli.plan.gke.kube_steps import K8sDelete
from xcli.plan.model import Plan, Ref, Step
from xcli.plan.read_first import ReadFirst
from xcli.plan.steps import Text
from xcli.workload.jobset.manifest import API_VERSION, MANAGED_BY

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


def plan_selected_delete(
    selection: str, cluster: Text, cluster_name: str, namespace: str = "default"
) -> Plan:
    """A dry-run's `workload delete` without a name: it reads nothing, so the plan says what
    the live run reads (xcli's JobSets in the namespace), which it keeps (`selection`, in
    words), that it asks, and the one delete it then sends per kept JobSet."""
    kept = "every one" if selection == "workloads" else f"the {selection}"
    read = ReadFirst(
        id="select",
        summary=f"list xcli's JobSets in namespace {namespace} of cluster {cluster_name} and "
        f"keep {kept} (a live run reads this first, then names them and asks)",
        cluster=cluster_name,
        api_version=API_VERSION,
        object_kind="JobSet",
        namespace=namespace,
        labels={MANAGED_BY: "xcli"},
        outputs={"each": f"the name of each of the {selection}, oldest first"},
    )
    delete = K8sDelete(
        id="delete-each",
        summary="delete each JobSet kept (its Jobs and pods first) and wait until it is gone",
        after=("select",),
        cluster=cluster,
        api_version=API_VERSION,
        resource="jobsets",
        namespace=namespace,
        name=Ref("select", "each"),
    )
    return Plan(
        title=f"delete the {selection} on cluster {cluster_name}",
        steps=(read, delete),
        notes=(
            "a dry-run reads no cluster: the JobSets are listed and named by the live run, "
            "which asks before it deletes them (up to 8 at once)",
            "a workload that is already gone counts as deleted",
        ),
        max_parallel=DELETE_PARALLEL,
    )
