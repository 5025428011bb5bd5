"""`xcli cluster inspect` (XPK's `inspector`): what is read for a debug bundle, and how it is
redacted and summed up. Pure: the reads are steps of a plan (the dry-run lists them), and the
live handlers (inspect_live.py) run them.

What is read, all through the cluster's Kubernetes API:
- xcli's metadata ConfigMap and every node (the pool is GKE's `cloud.google.com/gke-nodepool`
  label; Ready from the node's conditions);
- the JobSet and Kueue controllers: their Deployments, pods and the last log lines of their
  `manager` container (the container name in kubernetes-sigs/jobset and kubernetes-sigs/kueue,
  config/components/manager/manager.yaml);
- Kueue's ClusterQueues, LocalQueues and Workloads, the JobSets, and the events, everywhere;
- with `--workload W`: its JobSet, the Kueue Workloads and the pods of its namespace
  (`jobset.sigs.k8s.io/jobset-name=W`).
Secrets are never read. Before anything is written, environment values whose name says
secret, the last-applied annotation (a copy of the spec) and token-looking text are redacted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from xcli.plan.gke.inspect_steps import Bundle, K8sLogs, K8sRead
from xcli.plan.model import Plan, Step
from xcli.plan.steps import Text
from xcli.workload.jobset.manifest import API_VERSION as JOBSET_API
from xcli.workload.jobset.report import admission
from xcli.workload.jobset.view import JOBSET_NAME, explain, jobset_state, kueue_workload_for

KUEUE_API = "kueue.x-k8s.io/v1beta2"
POOL_LABEL = "cloud.google.com/gke-nodepool"
CONTROLLERS = {"jobset": "jobset-system", "kueue": "kueue-system"}
REDACTED = "<redacted>"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|PRIVATE_?KEY|AUTH", re.I)
SECRET_TEXT = (
    re.compile(r"(?i)(bearer\s+)[\w.~+/=-]+"),
    re.compile(r"()ya29\.[\w.-]+"),  # a Google OAuth access token
    re.compile(r"(?i)((?:token|secret|password|api[_-]?key)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"),
)
REDACT = (
    "env values whose name has TOKEN, SECRET, PASSW, CREDENTIAL, API_KEY, PRIVATE_KEY or AUTH",
    f"the {LAST_APPLIED} annotation",
    "text after 'Bearer ', Google access tokens (ya29.), and token=/secret=/password=/api_key=",
)


def plan_inspect(
    cluster: Text,
    cluster_name: str,
    archive: str,
    *,
    workload: str | None = None,
    namespace: str = "default",
    tail_lines: int = 100,
) -> Plan:
    """Every read, independent of the others, then the bundle after them all."""

    def read(file: str, api: str, kind: str, ns: str | None = None, **more: Any) -> K8sRead:
        return K8sRead(
            id=file.replace("/", "-").removesuffix(".json"),
            summary=f"read {kind}" + (f" {more['name']}" if more.get("name") else "s"),
            cluster=cluster,
            api_version=api,
            resource_kind=kind,
            namespace=ns,
            file=file,
            **more,
        )

    steps: list[Step] = [
        read("cluster/metadata.json", "v1", "ConfigMap", "default", name="xcli-cluster-metadata"),
        read("cluster/nodes.json", "v1", "Node"),
    ]
    for component, ns in CONTROLLERS.items():
        deployment = f"{component}-controller-manager"
        steps += [
            read(f"controllers/{component}.json", "apps/v1", "Deployment", ns, name=deployment),
            read(f"controllers/{component}-pods.json", "v1", "Pod", ns),
            K8sLogs(
                id=f"controllers-{component}-log",
                summary=f"read the last {tail_lines} log lines of the {component} controller",
                cluster=cluster,
                namespace=ns,
                container="manager",
                tail_lines=tail_lines,
                file=f"controllers/{component}.log",
            ),
        ]
    steps += [
        read("kueue/clusterqueues.json", KUEUE_API, "ClusterQueue"),
        read("kueue/localqueues.json", KUEUE_API, "LocalQueue", "*"),
        read("workloads/kueue-workloads.json", KUEUE_API, "Workload", "*"),
        read("workloads/jobsets.json", JOBSET_API, "JobSet", "*"),
        read("events.json", "v1", "Event", "*"),
    ]
    if workload:
        steps += [
            read(
                f"workload/{workload}/jobset.json", JOBSET_API, "JobSet", namespace, name=workload
            ),
            read(
                f"workload/{workload}/pods.json",
                "v1",
                "Pod",
                namespace,
                labels={JOBSET_NAME: workload},
            ),
        ]
    reads = tuple(s.id for s in steps)
    steps.append(
        Bundle(
            id="bundle",
            summary=f"write the redacted answers to {archive}",
            after=reads,
            archive=archive,
            files=reads,
            redact=REDACT,
        )
    )
    what = f"cluster {cluster_name}" + (f", workload {workload}" if workload else "")
    return Plan(title=f"inspect {what}", steps=tuple(steps), notes=("reads only",))


def redact(value: Any) -> Any:
    """`value` with secrets replaced by REDACTED (see REDACT)."""
    if isinstance(value, str):
        for pattern in SECRET_TEXT:
            value = pattern.sub(lambda m: m.group(1) + REDACTED, value)
        return value
    if isinstance(value, list):
        return [redact(v) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {k: redact(v) for k, v in value.items() if k != LAST_APPLIED}
    name = value.get("name")
    if "value" in value and isinstance(name, str) and SECRET_NAME.search(name):
        out["value"] = REDACTED
    return out


def _ready(node: Mapping[str, Any]) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def summarize(answers: Mapping[str, Any], workload: str | None = None) -> dict[str, Any]:
    """What the bundle says in a few lines: nodes per pool, controllers, workloads by state."""
    pools: dict[str, Counter[str]] = {}
    for node in answers.get("cluster-nodes") or []:
        pool = ((node.get("metadata") or {}).get("labels") or {}).get(POOL_LABEL, "(no pool)")
        pools.setdefault(pool, Counter())["ready" if _ready(node) else "not ready"] += 1
    controllers = {}
    for component in CONTROLLERS:
        deployment = answers.get(f"controllers-{component}") or {}
        status = deployment.get("status") or {}
        want = (deployment.get("spec") or {}).get("replicas", 1)
        controllers[component] = (
            f"{status.get('readyReplicas', 0)}/{want} ready" if deployment else "not installed"
        )
    states = Counter(jobset_state(js) for js in answers.get("workloads-jobsets") or [])
    events = answers.get("events") or []
    out: dict[str, Any] = {
        "nodes": {p: dict(sorted(c.items())) for p, c in sorted(pools.items())},
        "controllers": controllers,
        "workloads": dict(sorted(states.items())),
        "warnings": sum(1 for e in events if e.get("type") == "Warning"),
    }
    if workload:
        out["workload"] = _workload(answers, workload)
    return out


def workload_kueue(answers: Mapping[str, Any], workload: str) -> Mapping[str, Any] | None:
    """The Kueue Workload of the JobSet `workload`, from the list of every Workload read."""
    jobset = answers.get(f"workload-{workload}-jobset") or {}
    namespace = (jobset.get("metadata") or {}).get("namespace")
    found = [
        wl
        for wl in answers.get("workloads-kueue-workloads") or []
        if (wl.get("metadata") or {}).get("namespace") == namespace
    ]
    return kueue_workload_for(workload, found)


def _workload(answers: Mapping[str, Any], workload: str) -> dict[str, Any]:
    jobset = answers.get(f"workload-{workload}-jobset")
    if not jobset:
        return {"name": workload, "state": "not found"}
    kueue = workload_kueue(answers, workload)
    pods = answers.get(f"workload-{workload}-pods") or []
    events = answers.get("events") or []
    return {
        "name": workload,
        "state": jobset_state(jobset),
        "kueue": admission(kueue)["state"],
        "pods": len(pods),
        "why": explain(jobset, kueue, pods, events),
    }
