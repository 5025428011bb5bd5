"""The JobSet (jobset.x-k8s.io/v1alpha2) for a workload, right for its hardware. Pure.

Facts behind each field: the JobSet v0.12.0 API and controller
(https://github.com/kubernetes-sigs/jobset/tree/v0.12.0; its CRD is in tests/data/jobset/) and
GKE's multislice guide (https://cloud.google.com/kubernetes-engine/docs/how-to/tpu-multislice).
TPU: one replicated job `slice` with one Job per slice (replicas = slices), each Job Indexed with
one pod per TPU VM. GPU: one replicated job `workers`, one Job, one pod per node.
"""

from __future__ import annotations

from typing import Any

from xcli.catalog.store import cpu_request
from xcli.workload.jobset import slicing
from xcli.workload.jobset.gpu_network import decorate_pod, pod_annotations
from xcli.workload.scheduling import apply_scheduling
from xcli.workload.spec import (
    GPU_REPLICATED_JOB,
    TPU_REPLICATED_JOB,
    ClusterMeta,
    WorkloadSpec,
)

API_VERSION = "jobset.x-k8s.io/v1alpha2"
CONTAINER = "main"

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
EXCLUSIVE_TOPOLOGY = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
MANAGED_BY = "app.kubernetes.io/managed-by"
WORKLOAD_LABEL = "xcli/workload"

# Ports (containerPorts are informational under hostNetwork, but document what is used):
# 8471 TPU runtime slice builder, 8080 megascale (multislice DCN coordinator),
# 8431 TPU runtime metrics; 6002 JAX coordinator and 29500 torch rendezvous on GPUs.
MEGASCALE_PORT = 8080
PROFILER_PORT = 9999  # the JAX docs' and ML Diagnostics' port (xcli.goodput)
TPU_PORTS = (("tpu-slice", 8471), ("megascale", MEGASCALE_PORT), ("tpu-metrics", 8431))
JAX_PORT = 6002
TORCH_PORT = 29500

# Exit codes that mean "restart me" rather than "my code is wrong": 42 (the conventional
# restart-request code XPK-run jobs use) and 128+N (killed by signal N: SIGTERM on preemption or
# maintenance, SIGKILL on node loss). 127 (command not found) is deliberately a user error.
RETRYABLE_EXIT_CODES = (42, *range(128, 256))

# Downward-API fields JobSet and the Job controller put on every pod
# (https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/controllers/jobset_controller.go).
_ANNOTATION = "metadata.annotations['{}']"
JOB_INDEX = _ANNOTATION.format("jobset.sigs.k8s.io/job-index")
REPLICAS = _ANNOTATION.format("jobset.sigs.k8s.io/replicatedjob-replicas")
JOBSET_NAME = _ANNOTATION.format("jobset.sigs.k8s.io/jobset-name")
RJOB_NAME = _ANNOTATION.format("jobset.sigs.k8s.io/replicatedjob-name")
COMPLETION_INDEX = _ANNOTATION.format("batch.kubernetes.io/job-completion-index")


def coordinator_host(spec: WorkloadSpec) -> str:
    """Pod 0 of Job 0, through the JobSet's headless service (subdomain = JobSet name)."""
    rjob = TPU_REPLICATED_JOB if spec.accelerator.kind == "tpu" else GPU_REPLICATED_JOB
    return f"{spec.name}-{rjob}-0-0.{spec.name}"


def retryable_exit_codes(spec: WorkloadSpec) -> list[int]:
    return sorted({*RETRYABLE_EXIT_CODES, *spec.restart_on_exit_codes})


def build_jobset(spec: WorkloadSpec, meta: ClusterMeta) -> dict[str, Any]:
    """The whole JobSet object as a dict, ready for server-side apply."""
    tpu = spec.accelerator.kind == "tpu"
    rjob = TPU_REPLICATED_JOB if tpu else GPU_REPLICATED_JOB
    labels = {
        MANAGED_BY: "xcli",
        WORKLOAD_LABEL: spec.name,
        QUEUE_LABEL: meta.local_queue,
        "xcli/accelerator": spec.accelerator.name,
        "xcli/priority": spec.priority,
    }
    metadata: dict[str, Any] = {"name": spec.name, "namespace": spec.namespace, "labels": labels}
    if tpu:
        # One Job per node pool, so each slice lands on a node pool of its own.
        metadata["annotations"] = {EXCLUSIVE_TOPOLOGY: NODE_POOL_LABEL}
    jobset: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "JobSet",
        "metadata": metadata,
        "spec": {
            "ttlSecondsAfterFinished": spec.ttl_after_finished,
            "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
            "successPolicy": {"operator": "All"},
            "failurePolicy": failure_policy(spec),
            "replicatedJobs": [
                {
                    "name": rjob,
                    "replicas": spec.num_slices if tpu else 1,
                    "template": _job(spec, meta, {WORKLOAD_LABEL: spec.name}),
                }
            ],
        },
    }
    apply_scheduling(jobset, spec, meta)  # --scheduler and Kueue TAS (workload/scheduling.py)
    slicing.apply(jobset, spec, meta)  # a --super-slicing cluster's slices (slicing.py)
    return jobset


# The Job controller's message when a pod-condition rule of podFailurePolicy fails the Job:
# "Pod %s/%s has condition %v matching %v rule at index %d" (kubernetes/kubernetes
# pkg/controller/job/pod_failure_policy.go, matchPodFailurePolicy; docs/upstream.md). JobSet
# matches it unanchored with Go's regexp (RE2); this pattern is read alike by RE2 and Python's
# re. Pod and namespace names are DNS names (no spaces), so an exit-code message
# ("Container main for pod ... failed with exit code ...") can never match it.
DISRUPTION_RULE_INDEX = 0
DISRUPTION_MESSAGE = (
    "^Pod [^ /]+/[^ ]+ has condition DisruptionTarget matching FailJob rule at index "
    f"{DISRUPTION_RULE_INDEX}$"
)
DISRUPTION_RULE = "Disruption"
USER_ERROR_RULE = "FailOnUserError"
# The pods' view of JobSet's global restart count (restarts of both kinds): the label and
# annotation JobSet puts on every Job and pod (jobset v0.12.0 jobset_controller.go l.1023-1026).
RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"
ATTEMPT_ENV = "XCLI_RESTART_ATTEMPT"


def failure_policy(spec: WorkloadSpec) -> dict[str, Any]:
    """Disruptions restart outside the budget; crashes restart inside it; user errors fail.

    Both podFailurePolicy FailJob rules (below) end their Job with reason PodFailurePolicy, told
    apart by the Job controller's message: the DisruptionTarget rule (index 0) restarts the
    JobSet without counting (RestartJobSetAndIgnoreMaxRestarts, restarts+1 only), the exit-code
    rule fails it. Every other pod failure exceeds backoffLimit 0 (reason BackoffLimitExceeded),
    matches no rule, and takes JobSet's default RestartJobSet: counted against maxRestarts.
    Rules are tried in order, so the disruption rule comes first (jobset v0.12.0
    pkg/controllers/failure_policy.go findFirstFailedPolicyRuleAndJob).
    """
    return {
        "maxRestarts": spec.max_restarts,
        "restartStrategy": "Recreate",
        "rules": [
            {
                "name": DISRUPTION_RULE,
                "action": "RestartJobSetAndIgnoreMaxRestarts",
                "onJobFailureReasons": ["PodFailurePolicy"],
                "onJobFailureMessagePatterns": [DISRUPTION_MESSAGE],
            },
            {
                "name": USER_ERROR_RULE,
                "action": "FailJobSet",
                "onJobFailureReasons": ["PodFailurePolicy"],
            },
        ],
    }


def pod_failure_policy(spec: WorkloadSpec) -> dict[str, Any]:
    """Rules are tried in order; the first match decides (Kubernetes Job podFailurePolicy)."""
    return {
        "rules": [
            # Preemption, eviction, node shutdown: infrastructure, whatever the exit code was.
            # FailJob (not Count) so the Job's message names the rule, and the JobSet rule above
            # restarts without spending the budget.
            {
                "action": "FailJob",
                "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
            },
            # Any other exit code outside the retryable set is the program's own failure.
            {
                "action": "FailJob",
                "onExitCodes": {
                    "containerName": CONTAINER,
                    "operator": "NotIn",
                    "values": retryable_exit_codes(spec),
                },
            },
        ]
    }


def bound_exit_code(spec: WorkloadSpec) -> int:
    """The exit code the attempt guard uses: the lowest one the exit-code rule fails on."""
    retryable = set(retryable_exit_codes(spec))
    return next(c for c in range(1, 128) if c not in retryable)


def container_command(spec: WorkloadSpec) -> list[str]:
    """The user's command behind a guard that bounds the free restarts.

    A node-pressure eviction is a DisruptionTarget too (reason TerminationByKubelet, which a
    pod-condition rule cannot see), so a program that exhausts its node's memory would restart
    for free for ever. JobSet cannot bound its IgnoreMaxRestarts action, and xcli runs no
    controller in the cluster; the pod itself can: JobSet stamps every pod with the attempt
    number (restarts of both kinds), and once it passes --max-restarts + --max-disruptions
    the guard exits with a code the exit-code rule fails on, so the JobSet fails with a
    message saying why. A memory limit was the other choice; it was not taken because the
    limit would have to be guessed per machine type (the TPU host's memory is the program's),
    and a wrong guess kills programs that fit.
    """
    bound = spec.max_restarts + spec.max_disruptions
    guard = (
        f'if [ "${{{ATTEMPT_ENV}:-0}}" -gt {bound} ]; then echo "xcli: restart attempt '
        f"${ATTEMPT_ENV} is past --max-restarts {spec.max_restarts} + --max-disruptions "
        f'{spec.max_disruptions}: the disruptions keep coming (node memory pressure?)" >&2; '
        f"exit {bound_exit_code(spec)}; fi\n"
    )
    return ["/bin/sh", "-c", guard + spec.command]


def _job(spec: WorkloadSpec, meta: ClusterMeta, labels: dict[str, str]) -> dict[str, Any]:
    per_slice = spec.workers_per_slice
    return {
        "spec": {
            "parallelism": per_slice,
            "completions": per_slice,
            "completionMode": "Indexed",
            "backoffLimit": 0,
            "podFailurePolicy": pod_failure_policy(spec),
            "template": {
                "metadata": _pod_metadata(spec, labels),
                "spec": _pod(spec, meta),
            },
        }
    }


def _pod_metadata(spec: WorkloadSpec, labels: dict[str, str]) -> dict[str, Any]:
    annotations = pod_annotations(spec.accelerator)  # GPUDirect interfaces (gpu_network.py)
    return {"labels": labels, **({"annotations": annotations} if annotations else {})}


def _pod(spec: WorkloadSpec, meta: ClusterMeta) -> dict[str, Any]:
    accel = spec.accelerator
    tpu = accel.kind == "tpu"
    selector = {accel.gke_label: accel.gke_accelerator}
    if tpu and accel.topology:
        selector[TOPOLOGY_LABEL] = accel.topology
    selector.update(capacity_selectors(meta))
    # a CPU shape's nodes carry no accelerator taint
    tolerations = (
        [] if accel.kind == "cpu" else [{"key": accel.resource_name, "operator": "Exists"}]
    )
    # Harmless where the node pool has no such taint; needed where it does (auto-provisioned
    # spot pools, queued-provisioning pools).
    if meta.capacity.kind == "spot":
        tolerations.append(
            {
                "key": "cloud.google.com/gke-spot",
                "operator": "Equal",
                "value": "true",
                "effect": "NoSchedule",
            }
        )
    if meta.capacity.kind == "flex-start":
        tolerations.append(
            {"key": "cloud.google.com/gke-queued", "operator": "Exists", "effect": "NoSchedule"}
        )
    quantity = str(cpu_request(accel) if accel.kind == "cpu" else accel.chips_per_vm)
    container: dict[str, Any] = {
        "name": CONTAINER,
        "image": spec.image,
        "command": container_command(spec),
        "env": environment(spec),
        "ports": [{"containerPort": p, "name": n} for n, p in _ports(spec)],
        "resources": {
            "requests": {accel.resource_name: quantity},
            "limits": {accel.resource_name: quantity},
        },
    }
    if tpu:
        container["securityContext"] = {"privileged": True}
    pod = {
        "restartPolicy": "Never",
        "hostNetwork": True,
        # Without it a host-network pod uses the node's resolv.conf and the JobSet's
        # headless-service names (the coordinator) do not resolve.
        "dnsPolicy": "ClusterFirstWithHostNet",
        "priorityClassName": spec.priority,
        "terminationGracePeriodSeconds": spec.termination_grace_period,
        "nodeSelector": selector,
        "tolerations": tolerations,
        "containers": [container],
    }
    # /dev/shm everywhere; GPUDirect interfaces, daemon, environment and volumes by family
    decorate_pod(pod, accel, spec.name, spec.env)
    return pod


def capacity_selectors(meta: ClusterMeta) -> dict[str, str]:
    """Node labels that keep pods on the capacity the cluster was built with, where GKE sets
    them on the nodes of the pools xcli makes.

    No selector for a reservation: XPK selects cloud.google.com/reservation-name only under
    node auto-provisioning (AI-Hypercomputer/xpk@367c838 src/xpk/core/capacity.py l.181-182,
    used only from core/nap.py), and GKE's autoscaler puts that label on the pools it
    auto-provisions (GoogleCloudPlatform/cluster-autoscaler@7d25050
    pkg/autoprovisioning/injection.go l.2941, l.3010); no source shows GKE setting it on a
    pool created with a SPECIFIC_RESERVATION affinity, where selecting it could leave every
    pod unschedulable. The accelerator labels already keep pods on the cluster's own pools.

    On a node auto-provisioning cluster the pods ask GKE for the reservation, as GKE's
    autoscaler reads it from pending pods (GoogleCloudPlatform/cluster-autoscaler@1c2a686
    pkg/cloudprovider/gke/labels/system_labels.go: ReservationNameLabel,
    ReservationProjectLabel, ReservationAffinityLabel) and XPK's NAP workloads select
    (src/xpk/core/capacity.py l.185-188); the affinity "specific" is GKE's documented value for
    consuming a named reservation from a pod.
    """
    capacity = meta.capacity
    if capacity.kind == "reservation" and meta.autoprovisioned and capacity.reservation:
        return reservation_selectors(str(capacity.reservation))
    if capacity.kind == "spot":
        return {"cloud.google.com/gke-spot": "true"}
    if capacity.kind == "flex-start":
        # the label GKE puts on flex-start nodes, GPU and TPU (xcli/plan/gke/kueue_objects.py
        # FLEX_START_LABEL); gke-queued is only a taint, tolerated above
        return {"cloud.google.com/gke-flex-start": "true"}
    return {}


RESERVATION_NAME = "cloud.google.com/reservation-name"
RESERVATION_PROJECT = "cloud.google.com/reservation-project"
RESERVATION_AFFINITY = "cloud.google.com/reservation-affinity"


def reservation_selectors(reservation: str) -> dict[str, str]:
    """NAME, or projects/P/reservations/NAME (a shared reservation): the pod's selectors."""
    parts = reservation.split("/")
    out = {RESERVATION_NAME: parts[-1] if len(parts) == 4 else reservation}
    if len(parts) == 4:
        out[RESERVATION_PROJECT] = parts[1]
    out[RESERVATION_AFFINITY] = "specific"
    return out


def _ports(spec: WorkloadSpec) -> tuple[tuple[str, int], ...]:
    if spec.accelerator.kind == "tpu":
        return TPU_PORTS
    return (("jax-coord", JAX_PORT), ("torch-rdzv", TORCH_PORT))


def _field(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


def environment(spec: WorkloadSpec) -> list[dict[str, Any]]:
    """The worker environment contract, then the user's variables.

    TPU: GKE's TPU webhook injects TPU_WORKER_ID and TPU_WORKER_HOSTNAMES for Indexed Jobs with
    a subdomain; whether it injects MEGASCALE_* is not documented, so for multislice
    they are set here from the JobSet's own pod annotations (the jobset issue #787 recipe).
    GPU: the JAX and torch process-group variables, the coordinator being pod 0.
    """
    coordinator = coordinator_host(spec)
    env: list[dict[str, Any]] = []
    if spec.accelerator.kind == "tpu":
        if spec.num_slices > 1:
            env += [
                {"name": "MEGASCALE_COORDINATOR_ADDRESS", "value": coordinator},
                _field("MEGASCALE_NUM_SLICES", REPLICAS),
                _field("MEGASCALE_SLICE_ID", JOB_INDEX),
                {"name": "MEGASCALE_PORT", "value": str(MEGASCALE_PORT)},
            ]
    else:
        nodes = str(spec.num_nodes)
        env += [
            _field("JOBSET_NAME", JOBSET_NAME),
            _field("REPLICATED_JOB_NAME", RJOB_NAME),
            _field("NODE_RANK", COMPLETION_INDEX),
            {"name": "NNODES", "value": nodes},
            {"name": "MASTER_ADDR", "value": coordinator},
            {"name": "MASTER_PORT", "value": str(TORCH_PORT)},
            {"name": "JAX_COORDINATOR_ADDRESS", "value": f"{coordinator}:{JAX_PORT}"},
            {"name": "JAX_NUM_PROCESSES", "value": nodes},
            _field("JAX_PROCESS_ID", COMPLETION_INDEX),
        ]
    # the program's profiler server (xcli.goodput.profiler_port, `xcli workload profile`);
    # a --env of the same name is the user's choice
    if "XCLI_PROFILER_PORT" not in dict(spec.env):
        env.append({"name": "XCLI_PROFILER_PORT", "value": str(PROFILER_PORT)})
    env.append(_field(ATTEMPT_ENV, _ANNOTATION.format(RESTART_ATTEMPT)))
    env += [{"name": k, "value": v} for k, v in spec.env]
    return env
