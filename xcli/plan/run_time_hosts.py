"""The GKE steps of `workload profile` and `workload stacks` as a dry-run plans them: after the
`read_first` step of the JobSet's pods (xcli/plan/hosts_read.py:pods_read), with the pods it
reads as refs to its outputs.

Everything else is what the live run sends: the capture's trace arguments but its two
host-made values (`service_addr`, `override_hostnames`), the exec's argv, the exec path with
the pod's name, its container and those two values as refs (URL-encoded like the rest once
filled in: the live path is this one with each ref replaced by its value, quoted).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import quote

from xcli.plan.hosts_read import pods_read
from xcli.plan.model import Plan, Ref
from xcli.plan.profile import (
    FROM_VERDICT,
    TRACE_SCRIPT,
    HostChoice,
    ProfileCapture,
    ProfileRequestShape,
    open_command,
    pod_exec_path,
    trace_args,
)
from xcli.plan.stacks import PodStacks, pod_dump_command

HOSTS = Ref("pods", "hosts")
ENDPOINTS = Ref("pods", "endpoints")
NAMES = Ref("pods", "names")
POD = Ref("pods", "pod")
CONTAINER = Ref("pods", "container")
EACH_POD, EACH_CONTAINER = "{pod}", "{container}"


def _unquote_refs(path: str, tokens: tuple[str, ...]) -> str:
    """The path with each token as written, not percent-encoded (they are filled in)."""
    for token in tokens:
        path = path.replace(quote(token, safe=""), token)
    return path


@dataclass(frozen=True, kw_only=True)
class ProfileCaptureAtRunTime(ProfileCapture):
    """kube-exec capture whose hosts and pod the `pods` step reads (`hosts` stays empty)."""

    kind: ClassVar[str] = "profile_capture"

    chosen: HostChoice
    port: int

    def details(self) -> dict[str, Any]:
        trace = trace_args(self, [])
        trace["service_addr"] = str(ENDPOINTS)
        trace["options"]["override_hostnames"] = str(NAMES)
        arg = json.dumps(trace, sort_keys=True, separators=(",", ":"))
        command = ("python3", "-c", TRACE_SCRIPT, arg)
        assert self.namespace is not None
        path = pod_exec_path(self.namespace, str(POD), str(CONTAINER), command)
        refs = (str(POD), str(CONTAINER), str(ENDPOINTS), str(NAMES))
        out: dict[str, Any] = {
            "cluster": self.cluster,
            "workload": self.workload,
            "transport": self.transport,
            "hosts": str(HOSTS),
            "hosts_chosen": _chosen(self.chosen),
            "profiler_port": self.port,
            "session_dir": self.session_dir,
            "trace": trace,
            "exec": {
                "pod": str(POD),
                "container": str(CONTAINER),
                "path": _unquote_refs(path, refs),
                "command": list(command),
            },
        }
        if self.chosen.kind == "stragglers":
            out["hosts_from"] = FROM_VERDICT
        return out


def _chosen(choice: HostChoice) -> Any:
    if choice.kind == "list":
        return list(choice.labels)  # each checked against the running pods at run time
    if choice.kind == "stragglers":
        return "stragglers: the verdict's hosts among every running pod"
    return "every running pod"


def plan_profile_pods(
    shape: ProfileRequestShape,
    cluster_path: str,
    namespace: str,
    choice: HostChoice,
    port: int,
) -> Plan:
    """The dry-run's plan of a GKE capture: read the pods, then trace the chosen ones."""
    read = pods_read(
        cluster_path,
        shape.workload,
        namespace,
        {
            "hosts": "every running pod: its label sS/wW, name, IP and first container",
            "endpoints": f"POD_IP:{port} of each chosen host, comma-separated",
            "names": "sS-wW of each chosen host, comma-separated (each host's file name)",
            "pod": "the first running pod (it runs the capture: pods reach every pod's IP)",
            "container": "that pod's first container",
        },
    )
    capture = ProfileCaptureAtRunTime(
        id="profile",
        summary=f"trace the chosen pods of {shape.workload} for {shape.duration_ms} ms into "
        f"{shape.log_dir} (session {shape.session}), from the first running pod",
        after=(read.id,),
        cluster=shape.cluster,
        workload=shape.workload,
        transport="kube-exec",
        hosts=(),
        log_dir=shape.log_dir,
        session=shape.session,
        duration_ms=shape.duration_ms,
        namespace=namespace,
        hosts_from="stragglers" if choice.kind == "stragglers" else None,
        chosen=choice,
        port=port,
    )
    notes = (
        "dry-run: the pods are read when the capture runs; the refs are what that read fills in",
        "the profiler port has no authentication: keep it inside the VPC (docs/profile.md)",
        f"open it with: {open_command(shape.log_dir)}",
    )
    title = f"profile {shape.workload}"
    return Plan(title=title, steps=(read, capture), notes=notes, max_parallel=1)


@dataclass(frozen=True, kw_only=True)
class PodStacksAtRunTime(PodStacks):
    """One pods/exec per pod the `pods` step reads (`pods` stays empty)."""

    kind: ClassVar[str] = "pod_exec"

    def details(self) -> dict[str, Any]:
        path = pod_exec_path(self.namespace, EACH_POD, EACH_CONTAINER, self.command)
        return {
            "cluster": self.cluster,
            "streams_at_once": self.window,
            "command": list(self.command),
            "pods": str(HOSTS),
            "path": _unquote_refs(path, (EACH_POD, EACH_CONTAINER)),
            "path_for_each": f"every pod of {HOSTS}: {EACH_POD} its name, {EACH_CONTAINER} its "
            "first container",
        }


def plan_pod_stacks_at_run_time(
    cluster_path: str, cluster: str, workload: str, namespace: str, window: int = 64
) -> Plan:
    outputs: Mapping[str, str] = {
        "hosts": "every running pod: its label sS/wW, name and first container"
    }
    read = pods_read(cluster_path, workload, namespace, outputs)
    step = PodStacksAtRunTime(
        id="stacks",
        summary=f"dump the Python stacks of every running pod of {workload} (py-spy, "
        f"through pods/exec, {window} at once)",
        after=(read.id,),
        cluster=cluster,
        namespace=namespace,
        pods=(),
        command=pod_dump_command(),
        window=window,
    )
    note = "dry-run: the pods are read when the dump runs; the refs are what that read fills in"
    return Plan(title=f"stacks {workload}", steps=(read, step), notes=(note,), max_parallel=1)
