"""`cluster create --ray-version V` (XPK's `cluster create-ray`): the RayCluster on a GKE cluster.

XPK's create-ray is `cluster create` with GKE's Ray Operator add-on turned on (`--addons
RayOperator`: GKE installs and runs KubeRay itself) and then one RayCluster, `raycluster` in the
namespace `ray`: a head of `rayproject/ray:V` and one worker group of `--num-slices` replicas of
one TPU slice each (AI-Hypercomputer/xpk@367c838 src/xpk/core/ray.py, src/xpk/commands/
cluster.py l.938-948 and l.1373-1374; its dry-run: recipes/Cluster_create_RayCluster.md).
The add-on's field is AddonsConfig.rayOperatorConfig (container.v1), set in
providers/gke/bodies.py. The RayCluster follows KubeRay's `ray.io/v1` CRD (ray-project/kuberay
v1.7.0 ray-operator/config/crd/bases/ray.io_rayclusters.yaml).

Pure: the steps wait for the add-on's CRD to be Established and apply the two objects.
Where xcli differs from XPK (docs/upstream.md): XPK first deletes every RayCluster in `ray`
(`kubectl delete rayclusters -n ray --all`); a server-side apply of the one object needs no
delete, and a re-run keeps a running Ray head. XPK sizes the pods' cpu and memory at 50% (head)
and 90% (worker) of a node's allocatable, read with kubectl at run time (its dry-run prints
fractions of made-up `1000m`/`1000Mi`); xcli requests the slice's chips only, which already keeps
one worker on each TPU VM, and leaves cpu and memory to the node.
"""

from __future__ import annotations

import re
from typing import Any

from xcli.errors import UserError
from xcli.plan.gke.kube_steps import K8sWait
from xcli.plan.model import Step
from xcli.plan.steps import K8sApply, Text
from xcli.spec import ClusterSpec

NAMESPACE = "ray"
NAME = "raycluster"
API = "ray.io/v1"
CRD = "rayclusters.ray.io"
IMAGE = "rayproject/ray:{0}"
# XPK's ports of the head (src/xpk/core/ray.py l.24-28): GCS server, dashboard, client, and
# the port MaxText's multislice Ray trainer uses
PORTS = (("gcs-server", 6379), ("dashboard", 8265), ("client", 10001), ("multislice", 8081))
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def check_version(value: str) -> str:
    """The Ray version as XPK takes it (`2.39.0`): it names the image tag, so no `v` prefix."""
    if not _VERSION.match(value):
        raise UserError(
            f"--ray-version {value!r} is not a Ray release",
            hint="give it as MAJOR.MINOR.PATCH, e.g. --ray-version 2.39.0 (the tag of "
            "rayproject/ray)",
        )
    return value


def ray_cluster(spec: ClusterSpec, version: str) -> dict[str, Any]:
    """XPK's RayCluster for `spec`: one worker group, a replica per slice, a host per VM."""
    acc = spec.accelerator
    chips = {acc.resource_name: acc.chips_per_vm}
    worker = {
        "name": "ray-worker",
        "image": IMAGE.format(version),
        "resources": {"limits": dict(chips), "requests": dict(chips)},
    }
    head = {
        "name": "ray-head",
        "image": IMAGE.format(version),
        "ports": [{"containerPort": port, "name": name} for name, port in PORTS],
    }
    return {
        "apiVersion": API,
        "kind": "RayCluster",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": {
            "rayVersion": version,
            "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [head]}}},
            "workerGroupSpecs": [
                {
                    "groupName": "workergroup0",
                    "replicas": spec.num_slices,
                    "minReplicas": spec.num_slices,
                    "maxReplicas": spec.num_slices,
                    "numOfHosts": acc.vms_per_slice,
                    "rayStartParams": {"block": "true"},
                    "template": {
                        "spec": {
                            "containers": [worker],
                            "nodeSelector": {
                                acc.gke_label: acc.gke_accelerator,
                                "cloud.google.com/gke-tpu-topology": str(acc.topology),
                            },
                        }
                    },
                }
            ],
        },
    }


def ray_steps(spec: ClusterSpec, version: str, cluster: Text, after: tuple[str, ...]) -> list[Step]:
    """Wait for the add-on's RayCluster CRD, then the namespace and the RayCluster."""
    if spec.accelerator.kind != "tpu":
        raise UserError(
            f"--ray-version: XPK's RayCluster is a TPU worker group; {spec.accelerator.name} "
            "is not a TPU shape",
            hint="pass a TPU shape with --tpu-type (e.g. v5litepod-8), or leave out --ray-version",
        )
    wait = K8sWait(
        id="ray-wait-crd",
        summary=f"wait for GKE's Ray Operator add-on to serve {CRD}",
        after=after,
        cluster=cluster,
        crds=(CRD,),
        deployments=(),
        timeout_seconds=900,
    )
    namespace = K8sApply(
        id="ray-namespace",
        summary=f"apply Namespace {NAMESPACE}",
        after=after,
        cluster=cluster,
        manifest={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
    )
    raycluster = K8sApply(
        id="ray-cluster",
        summary=f"apply RayCluster {NAMESPACE}/{NAME} (Ray {version}, "
        f"{spec.num_slices} x {spec.accelerator.name})",
        after=(wait.id, namespace.id),
        cluster=cluster,
        manifest=ray_cluster(spec, version),
    )
    return [wait, namespace, raycluster]
