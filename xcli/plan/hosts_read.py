"""What a dry-run of `xcli workload profile|stacks` prints in place of the hosts it cannot read.

A live run finds the hosts first (a GKE JobSet's running pods through the Kubernetes API; a
queued resource's workers through the Cloud TPU API) and plans for them. A dry-run reads
nothing and needs no credentials (docs/dry-run.md), so its plan starts with the read the live
run makes, and the capture or dump after it holds what the answer fills in as refs
(`${pods.pod}`, `${workers.s0/w1}`): what is known (the command, the port, the session, the
--hosts choice) is printed as it will be sent.

GKE: a `read_first` step (plan/read_first.py, the form `workload delete` and `storage detach`
dry-runs use for what they read first) of the JobSet's pods. Queued resources: a `hosts_read`
step with the Cloud TPU API's requests, those of
`providers/queued_resource/provider.py:workers` (queuedResources.get, then nodes.get per node:
https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.nodes/get).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from xcli.plan.model import Plan, Ref, Step
from xcli.plan.read_first import ReadFirst

JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"  # xcli.workload.jobset.live.JOBSET_NAME
TPU_API = "https://tpu.googleapis.com/v2"


@dataclass(frozen=True, kw_only=True)
class HostsRead(Step):
    """The reads a live run makes before it plans, to find a workload's hosts."""

    kind: ClassVar[str] = "hosts_read"

    cluster: str
    workload: str
    requests: tuple[Mapping[str, str], ...]
    keeps: str  # which answers become hosts, and how they are labelled
    outputs: Mapping[str, str] = field(default_factory=dict)  # name -> what it holds


def pods_read(
    cluster_path: str, workload: str, namespace: str, outputs: Mapping[str, str]
) -> ReadFirst:
    """GKE: the JobSet's pods, as `workload delete` and `storage detach` show what they read
    first (plan/read_first.py); `xcli.workload.jobset.live.pods_of` is the live read. The
    cluster is named by its resource name (projects/P/locations/R/clusters/C), as the
    Kubernetes steps name it: the live run reaches it through that cluster's clusters.get."""
    return ReadFirst(
        id="pods",
        summary=f"find the running pods of JobSet {workload} (read by the live run first: "
        "pods in phase Running with a pod IP, labelled sS/wW by their "
        "jobset.sigs.k8s.io/job-index and batch.kubernetes.io/job-completion-index)",
        cluster=cluster_path,
        api_version="v1",
        object_kind="Pod",
        namespace=namespace,
        labels={JOBSET_NAME: workload},
        outputs=outputs,
    )


def tpu_workers_read(
    project: str, zone: str, name: str, workload: str, outputs: Mapping[str, str]
) -> HostsRead:
    """A queued resource: its nodes (queuedResources.get), then each node's workers."""
    parent = f"{TPU_API}/projects/{project}/locations/{zone}"
    return HostsRead(
        id="workers",
        summary=f"find the addresses of the workers of {name} (read by the live run first)",
        cluster=name,
        workload=workload,
        requests=(
            {"method": "GET", "url": f"{parent}/queuedResources/{name}"},
            {
                "method": "GET",
                "url": f"{parent}/nodes/${{each node}}",
                "for": "each node of the queued resource's tpu.nodeSpec",
            },
        ),
        keeps="each node's networkEndpoints in order, labelled sS/wW (S the node, W the "
        "endpoint); the address is the external IP, else the internal one; the login is the "
        "user xcli registered for its key",
        outputs=outputs,
    )


def after_read(plan: Plan, read: HostsRead, note: str) -> Plan:
    """`plan` with `read` first and each of its steps after it (a dry-run on a cloud)."""
    steps = tuple(dataclasses.replace(s, after=(*s.after, read.id)) for s in plan.steps)
    return dataclasses.replace(plan, steps=(read, *steps), notes=(note, *plan.notes))


def worker_ref(label: str) -> str:
    """A worker's address as the `workers` step fills it in: `${workers.s0/w1}`."""
    return str(Ref("workers", label))


WORKER_USER = str(Ref("workers", "user"))
