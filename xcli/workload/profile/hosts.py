"""The hosts of a running workload, labelled `sS/wW` as every xcli command labels workers.

VM-style clusters: the record on this machine (run.json's targets) says which workers it runs
on, and its state that it still runs. GKE: the JobSet's running pods, labelled by the JobSet's
job index (the slice) and the Job's completion index (the worker), with their pod IPs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.gateways.kube.api import KubeApi

JOB_INDEX = "jobset.sigs.k8s.io/job-index"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
RUNNING = ("starting", "running")


def vm_labels(cluster: str, provider: str, name: str) -> set[str]:
    """The `sS/wW` labels of the workers a running VM workload runs on."""
    from xcli.vm_runs import effective_state, find

    folder, state = find(cluster, name)
    now = effective_state(state)
    if now not in RUNNING:
        raise UserError(
            f"workload {name} is {now}: there is no running program to look at",
            hint=f"xcli workload status {name} --cluster {cluster} --provider {provider}",
        )
    try:
        targets = json.loads((folder / "run.json").read_text())["targets"]
    except (OSError, ValueError, KeyError, TypeError):
        raise UserError(
            f"the record of workload {name} does not say which workers it runs on",
            hint="it was written by another xcli version; run it again with this one",
        ) from None
    labels = set()
    for t in targets:
        found = re.fullmatch(r"(?:s(\d+)/)?w(\d+)", str(t.get("label", "")))
        if found:
            labels.add(f"s{found.group(1) or 0}/w{found.group(2)}")
    return labels


@dataclass(frozen=True)
class PodHost:
    label: str
    pod: str
    ip: str
    container: str | None


def pod_hosts(api: KubeApi, name: str, namespace: str) -> list[PodHost]:
    """The workload's running pods in (slice, worker) order; one line and a hint if none."""
    from xcli.workload.jobset.live import pods_of

    hosts: list[tuple[int, int, PodHost]] = []
    for pod in pods_of(api, name, namespace):
        meta, status = pod.get("metadata") or {}, pod.get("status") or {}
        labels: dict[str, Any] = meta.get("labels") or {}
        if status.get("phase") != "Running" or not status.get("podIP"):
            continue
        try:
            s, w = int(labels.get(JOB_INDEX, 0)), int(labels.get(COMPLETION_INDEX, 0))
        except ValueError:
            continue
        containers = (pod.get("spec") or {}).get("containers") or [{}]
        host = PodHost(
            f"s{s}/w{w}", str(meta["name"]), str(status["podIP"]), containers[0].get("name")
        )
        hosts.append((s, w, host))
    if not hosts:
        raise UserError(
            f"workload {name} has no running pod",
            hint=f"see why: xcli workload status {name}",
        )
    return [h for _, _, h in sorted(hosts, key=lambda x: (x[0], x[1]))]
