"""The JobSet of a Pathways workload (jobset.x-k8s.io/v1alpha2), as a dict. Pure.

Field by field it is XPK's `pathways_workload_create.yaml.j2` (xpk@367c838; the sources are
listed in spec.py): a `pathways-head` job (proxy and resource manager, plus the user's program
unless headless) on the CPU pool `cpu-np`, and a `worker` job per slice running the Pathways
server on the TPU hosts. Where xcli differs, the reason is in DIFFERENCES below, and
tests/workload/pathways/test_jobset.py holds the two together.
"""

from __future__ import annotations

from typing import Any

from xcli.plan.gke import pathways_pool as pool
from xcli.workload.pathways.spec import PathwaysSpec

API_VERSION = "jobset.x-k8s.io/v1alpha2"
HEAD = "pathways-head"
WORKER = "worker"
USER_CONTAINER = "main"  # PJ's default mainContainerName (XPK names it after --docker-name)
PROXY_PORT = 29000
RM_PORTS = (29001, 29002)
WORKER_PORTS = (29005, 29006, 8471, 8080)
EXCLUSIVE = "alpha.jobset.sigs.k8s.io/exclusive-topology"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
WORKLOAD_LABEL = "xcli/workload"
MANAGED_BY = "app.kubernetes.io/managed-by"
# The head pod's limits, known for Pathways (XPK core/docker_resources.py; template)
PROXY_RESOURCES = {"cpu": "16", "memory": "100G"}
RM_RESOURCES = {"cpu": "8", "memory": "32G"}
USER_RESOURCES = {"cpu": "24", "memory": "100G"}

COORDINATOR = "metadata.labels['jobset.sigs.k8s.io/coordinator']"
_LABEL = "metadata.labels['{}']"
_ANNOTATION = "metadata.annotations['{}']"

# Where xcli's JobSet is not XPK's, and why.
DIFFERENCES = {
    "images": "pinned to --pathways-version (default jax-0.9.0, pathways-utils' pin), never "
    "`latest`: a latest server with an older client JAX is a version skew nothing checks",
    "gcs_scratch_location": "the user's bucket (--pathways-gcs-location, or one the plan "
    "creates in the project), not XPK's Google-owned gs://cloud-pathways-staging/tmp",
    "queue label": "xcli's LocalQueue xcli-queue, not XPK's multislice-queue",
    "workload label": "xcli/workload (xcli's label on every object), not xpk.google.com/workload",
    "user container": "named main (PJ's default), not privileged: it runs on the CPU pool and "
    "opens no TPU device; its command runs under /bin/sh -c without XPK's bash wrapper",
    "requests": "every head container states requests equal to its limits, so Kueue counts "
    "exactly what the CPU flavor's quota holds",
    "coordinator": "jobIndex 0 and podIndex 0 written out (JobSet's defaults; XPK omits them)",
    "spot": "workers on a Spot cluster tolerate and select cloud.google.com/gke-spot, as "
    "xcli's other JobSets do",
    "labels on pods": "xcli/workload on every pod (XPK puts its label on worker pods only)",
}


def _field(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


def _ports(*numbers: int) -> list[dict[str, Any]]:
    return [{"containerPort": n, "protocol": "TCP"} for n in numbers]


def _resources(values: dict[str, str]) -> dict[str, Any]:
    return {"requests": dict(values), "limits": dict(values)}


def build_jobset(spec: PathwaysSpec) -> dict[str, Any]:
    """The whole JobSet, ready for server-side apply."""
    labels = {MANAGED_BY: "xcli", WORKLOAD_LABEL: spec.name, QUEUE_LABEL: spec.local_queue}
    labels["xcli/kind"] = "pathways"
    labels["xcli/accelerator"] = spec.accelerator.name
    body: dict[str, Any] = {
        "coordinator": {"replicatedJob": HEAD, "jobIndex": 0, "podIndex": 0},
        "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
        "failurePolicy": {"restartStrategy": "Recreate"},
        "startupPolicy": {"startupPolicyOrder": "InOrder"},
        "suspend": False,
        "replicatedJobs": [head_job(spec), worker_job(spec)],
    }
    if not spec.headless:  # batch: the JobSet ends when the user's program does
        body["successPolicy"] = {"operator": "All", "targetReplicatedJobs": [HEAD]}
    return {
        "apiVersion": API_VERSION,
        "kind": "JobSet",
        "metadata": {"name": spec.name, "namespace": spec.namespace, "labels": labels},
        "spec": body,
    }


def _scratch(spec: PathwaysSpec) -> str:
    return f"--gcs_scratch_location={spec.gcs_location}"


def proxy(spec: PathwaysSpec) -> dict[str, Any]:
    args = [
        f"--server_port={PROXY_PORT}",
        f"--resource_manager_address=$(PATHWAYS_HEAD):{RM_PORTS[0]}",
    ]
    args.append(_scratch(spec))
    if spec.elastic_slices > 0:
        args.append(f"--num_elastic_slices={spec.elastic_slices}")
    return {
        "name": "pathways-proxy",
        "image": spec.proxy_image,
        "imagePullPolicy": "Always",
        "args": args,
        "env": [_field("PATHWAYS_HEAD", COORDINATOR)],
        "ports": _ports(PROXY_PORT),
        "resources": _resources(PROXY_RESOURCES),
    }


def resource_manager(spec: PathwaysSpec) -> dict[str, Any]:
    return {
        "name": "pathways-rm",
        "image": spec.server_image,
        "imagePullPolicy": "Always",
        "args": [
            f"--server_port={RM_PORTS[0]}",
            _scratch(spec),
            "--node_type=resource_manager",
            f"--instance_count={spec.num_slices}",
            f"--instance_type={spec.instance_type}",
        ],
        "env": [
            _field(
                "REPLICATED_JOB_NAME", _ANNOTATION.format("jobset.sigs.k8s.io/replicatedjob-name")
            ),
            _field("JOBSET_NAME", _ANNOTATION.format("jobset.sigs.k8s.io/jobset-name")),
            _field("HOST_ADDRESS", COORDINATOR),
            {"name": "TPU_SKIP_MDS_QUERY", "value": "true"},
        ],
        "ports": _ports(*RM_PORTS),
        "resources": _resources(RM_RESOURCES),
    }


def user_container(spec: PathwaysSpec) -> dict[str, Any]:
    env = [
        _field("PATHWAYS_HEAD", COORDINATOR),
        {"name": "JAX_PLATFORMS", "value": "proxy"},
        {"name": "XCLOUD_ENVIRONMENT", "value": "GCP"},
        {"name": "JAX_BACKEND_TARGET", "value": f"grpc://$(PATHWAYS_HEAD):{PROXY_PORT}"},
    ]
    env += [{"name": k, "value": v} for k, v in spec.env]
    return {
        "name": USER_CONTAINER,
        "image": str(spec.image),
        "imagePullPolicy": "Always",
        "command": ["/bin/sh", "-c", str(spec.command)],
        "env": env,
        "resources": _resources(USER_RESOURCES),
        "volumeMounts": [{"name": "shared-tmp", "mountPath": "/tmp"}],
    }


def head_job(spec: PathwaysSpec) -> dict[str, Any]:
    sidecars = [proxy(spec), resource_manager(spec)]
    pod: dict[str, Any] = {
        "hostNetwork": True,
        "dnsPolicy": "ClusterFirstWithHostNet",
        "nodeSelector": {pool.NODEPOOL_LABEL: pool.POOL},
        "restartPolicy": "Never",
        "volumes": [
            {"name": "shared-tmp", "hostPath": {"path": "/tmp", "type": "DirectoryOrCreate"}}
        ],
    }
    if spec.headless:
        pod["containers"] = sidecars
    else:
        # native sidecars: they start first, and stop when the user's program ends
        pod["initContainers"] = [{**c, "restartPolicy": "Always"} for c in sidecars]
        pod["containers"] = [user_container(spec)]
    return {
        "name": HEAD,
        "replicas": 1,
        "template": {
            "metadata": {"annotations": {EXCLUSIVE: "kubernetes.io/hostname"}},
            "spec": {
                "backoffLimit": 0,
                "completionMode": "Indexed",
                "completions": 1,
                "parallelism": 1,
                "template": {"metadata": {"labels": {WORKLOAD_LABEL: spec.name}}, "spec": pod},
            },
        },
    }


def worker_backoff(spec: PathwaysSpec) -> int:
    """XPK: max_slice_restarts x VMs per slice when elastic, else 4 x VMs per slice."""
    per_slice = spec.accelerator.vms_per_slice
    return (spec.max_slice_restarts if spec.elastic_slices > 0 else 4) * per_slice


def worker(spec: PathwaysSpec) -> dict[str, Any]:
    job = "jobset.sigs.k8s.io/{}"
    return {
        "name": "pathways-worker",
        "image": spec.server_image,
        "imagePullPolicy": "Always",
        "args": [
            f"--server_port={WORKER_PORTS[0]}",
            f"--resource_manager_address=$(PATHWAYS_HEAD):{RM_PORTS[0]}",
            _scratch(spec),
        ],
        "env": [
            {"name": "TPU_MIN_LOG_LEVEL", "value": "0"},
            {"name": "TF_CPP_MIN_LOG_LEVEL", "value": "0"},
            {"name": "XCLOUD_ENVIRONMENT", "value": "GCP"},
            {"name": "MEGASCALE_GRPC_ENABLE_XOR_TRACER", "value": "false"},
            _field("MEGASCALE_NUM_SLICES", _LABEL.format(job.format("replicatedjob-replicas"))),
            _field("JOBSET_NAME", _ANNOTATION.format(job.format("jobset-name"))),
            _field("REPLICATED_JOB_NAME", _ANNOTATION.format(job.format("replicatedjob-name"))),
            _field("MEGASCALE_SLICE_ID", _LABEL.format(job.format("job-index"))),
            _field("PATHWAYS_HEAD", COORDINATOR),
            _field("MEGASCALE_COORDINATOR_ADDRESS", COORDINATOR),
        ],
        "ports": _ports(*WORKER_PORTS),
        "resources": _resources(
            {spec.accelerator.resource_name: str(spec.accelerator.chips_per_vm)}
        ),
        "volumeMounts": [{"name": "shared-tmp", "mountPath": "/tmp"}],
    }


def worker_job(spec: PathwaysSpec) -> dict[str, Any]:
    accel = spec.accelerator
    selector = {accel.gke_label: accel.gke_accelerator}
    selector["cloud.google.com/gke-tpu-topology"] = str(accel.topology)
    tolerations: list[dict[str, Any]] = [{"key": accel.resource_name, "operator": "Exists"}]
    if spec.capacity_kind == "spot":
        selector["cloud.google.com/gke-spot"] = "true"
        tolerations.append(
            {
                "key": "cloud.google.com/gke-spot",
                "operator": "Equal",
                "value": "true",
                "effect": "NoSchedule",
            }
        )
    per_slice = accel.vms_per_slice
    pod = {
        "hostNetwork": True,
        "dnsPolicy": "ClusterFirstWithHostNet",
        "terminationGracePeriodSeconds": spec.termination_grace_period,
        "priorityClassName": spec.priority,
        "restartPolicy": "OnFailure",
        "nodeSelector": selector,
        "tolerations": tolerations,
        "containers": [worker(spec)],
        "volumes": [
            {"name": "shared-tmp", "hostPath": {"path": "/tmp", "type": "DirectoryOrCreate"}}
        ],
    }
    return {
        "name": WORKER,
        "replicas": spec.num_slices,
        "template": {
            # one slice per node pool
            "metadata": {"annotations": {EXCLUSIVE: pool.NODEPOOL_LABEL}},
            "spec": {
                "backoffLimit": worker_backoff(spec),
                "completionMode": "Indexed",
                "completions": per_slice,
                "parallelism": per_slice,
                "template": {"metadata": {"labels": {WORKLOAD_LABEL: spec.name}}, "spec": pod},
            },
        },
    }
