"""`xcli workload connect NAME`: reach a headless Pathways workload's proxy from this machine.

The head pod is the JobSet's pod of the replicated job `pathways-head` (its label
`jobset.sigs.k8s.io/replicatedjob-name`, which the JobSet controller puts on every pod it
creates); the proxy's port is the Pathways kind's (xcli/workload/pathways/jobset.py). A local
port is forwarded to it through the Kubernetes API (xcli/gateways/kube/portforward.py), the
use case waits until the proxy accepts a connection, says the JAX_BACKEND_TARGET, and forwards
until the stop event is set (Ctrl-C).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps
    from xcli.app.workload import Target

REPLICATED_JOB = "jobset.sigs.k8s.io/replicatedjob-name"
KIND_LABEL = "xcli/kind"


@dataclass(frozen=True)
class ConnectRequest:
    target: Target
    name: str
    local_port: int  # 0: any free port
    timeout: float  # seconds to wait for the proxy to serve


def backend_target(port: int) -> str:
    return f"grpc://127.0.0.1:{port}"


def check(req: ConnectRequest, deps: Deps) -> None:
    """What the live run checks before it reads anything, and the dry-run too: a provider that
    runs Pathways, a namespace by Kubernetes' rule, a local port that is free."""
    from xcli.app.workload import check_namespace, kind_entry
    from xcli.workload.pathways.connect import reserve

    kind_entry(deps, req.target.provider, "pathways")  # refuses a provider without Pathways
    check_namespace(req.target.namespace)
    reserve(req.local_port).close()


def preview(req: ConnectRequest) -> list[str]:
    """What a live run opens (--dry-run): nothing is read, so the pod is named by pattern."""
    from xcli.workload.pathways.jobset import HEAD, PROXY_PORT

    ns, port = req.target.namespace, req.local_port or PROXY_PORT
    return [
        f"read JobSet {req.name} and its pods in namespace {ns} on cluster {req.target.cluster}",
        f"open GET /api/v1/namespaces/{ns}/pods/{req.name}-{HEAD}-0-0-*/portforward"
        f"?ports={PROXY_PORT} as a WebSocket (subprotocol v4.channel.k8s.io)",
        f"listen on 127.0.0.1:{port} until Ctrl-C; then use JAX_PLATFORMS=proxy "
        f"JAX_BACKEND_TARGET={backend_target(port)}",
    ]


def head_pod(pods: list[dict[str, Any]], req: ConnectRequest) -> str:
    """The running head pod's name; one line and a hint when there is none."""
    from xcli.workload.pathways.jobset import HEAD

    heads = [p for p in pods if (p["metadata"].get("labels") or {}).get(REPLICATED_JOB) == HEAD]
    running = [p for p in heads if (p.get("status") or {}).get("phase") == "Running"]
    if running:
        return str(running[0]["metadata"]["name"])
    where = f"{req.name} --cluster {req.target.cluster}"
    phase = (heads[0].get("status") or {}).get("phase", "Unknown") if heads else None
    raise UserError(
        f"the head pod of workload {req.name} is not running "
        + (f"(it is {phase})" if phase else "(it has no head pod yet)"),
        hint=f"see why: xcli workload status {where}; connect once it runs",
    )


def connect(
    req: ConnectRequest,
    deps: Deps,
    ready: Callable[[str], None],
    stop: threading.Event,
) -> None:
    """Forward 127.0.0.1:`local_port` to the head pod's proxy until `stop` is set."""
    from xcli.app.workload import check_namespace, kind_entry
    from xcli.workload.pathways.connect import reserve

    target = req.target
    kind_entry(deps, target.provider, "pathways")  # refuses a provider without Pathways
    check_namespace(target.namespace)
    listener = reserve(req.local_port)  # before the first request: a port in use comes first
    try:
        _forward(req, deps, ready, stop, listener)
    except BaseException:
        listener.close()
        raise


def _forward(
    req: ConnectRequest,
    deps: Deps,
    ready: Callable[[str], None],
    stop: threading.Event,
    listener: Any,
) -> None:
    from xcli.app.where import ref_for
    from xcli.app.workload_facts import cluster_live
    from xcli.workload.jobset.live import get_jobset, pods_of
    from xcli.workload.pathways.connect import Waiting, forward

    target = req.target
    live = cluster_live(deps)
    ref = ref_for(deps.registry, target.cluster, target.provider, target.where)
    jobset = get_jobset(live, ref, req.name, target.namespace)
    if (jobset["metadata"].get("labels") or {}).get(KIND_LABEL) != "pathways":
        raise UserError(
            f"workload {req.name} is not a Pathways workload: it has no proxy to connect to",
            hint="create one with xcli workload create --pathways --headless",
        )
    api = live.api(ref)
    pod = head_pod(pods_of(api, req.name, target.namespace), req)
    waiting = Waiting(
        req.timeout,
        deps.timing.clock,
        deps.timing.sleep,
        f"its log says when it is ready: xcli workload logs {req.name} "
        f"--cluster {target.cluster} --slice head",
        deps.say,
    )
    forward(
        api,
        target.namespace,
        pod,
        req.local_port,
        waiting,
        lambda port: ready(backend_target(port)),
        stop,
        listener,
    )
