"""The NVIDIA DRA driver on A4X (GB200) clusters (pure): the objects `cluster create` applies,
the DRA APIs the cluster body turns on, and the cluster version it needs.

A4X workloads reach the NVLink domain of their rack through a ComputeDomain
(resource.nvidia.com/v1beta1) and the IMEX channel its ResourceClaimTemplate hands every pod
(plan/gke/dra.py). Both exist only once the driver runs (container-engine-accelerators 992db812
gpudirect-rdma/nccl-test-imex-a4x.yaml). Cluster Toolkit installs it for A4X
(examples/gke-a4x/gke-a4x.yaml l.268-269) with Helm; xcli applies the same chart, rendered
offline once into manifests/nvidia-dra-driver-gpu-v25.3.0.yaml (its header says how), one
server-side apply per object, so the dry-run shows every object a live run applies.

Versions, decided from what each part reads:
- The chart installs its DeviceClasses as resource.k8s.io/v1beta1 (templates/
  deviceclass-compute-domain-*.yaml l.3 at v25.3.0). Kubernetes serves no beta API unless it is
  turned on (since 1.24; GKE "Use Kubernetes beta APIs"), at every version, 1.34 and later
  included: so the cluster body turns on the four resource.k8s.io/v1beta1 APIs Cluster Toolkit
  turns on (gke-a4x.yaml l.161-165, on its 1.35 clusters, l.56) whatever the version.
- Kueue v0.19.2 reads the pods' claims as resource.k8s.io/v1, GA in Kubernetes 1.34 (plan/gke/dra.py
  MIN_KUBERNETES): below 1.34 no A4X workload is ever admitted, so `--gke-version` below 1.34 is
  refused before any call. Without `--gke-version` the cluster gets its release channel's
  default, which the plan cannot know: it says so in a note.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from xcli.errors import UserError
from xcli.plan.gke.dra import MIN_KUBERNETES, needs_compute_domain
from xcli.plan.gke.kube_steps import K8sWait
from xcli.plan.model import Step
from xcli.plan.steps import K8sApply, Text
from xcli.providers.gke import options as gke_opts
from xcli.spec import ClusterSpec

VERSION = "v25.3.0"
MANIFEST = f"nvidia-dra-driver-gpu-{VERSION}.yaml"
NAMESPACE = "nvidia-dra-driver-gpu"
CRD = "computedomains.resource.nvidia.com"
CONTROLLER = f"{NAMESPACE}/nvidia-dra-driver-gpu-controller"
# container.v1 Cluster.enableK8sBetaApis.enabledApis, as Cluster Toolkit's gke-a4x.yaml l.162-165
BETA_APIS = (
    "resource.k8s.io/v1beta1/deviceclasses",
    "resource.k8s.io/v1beta1/resourceclaims",
    "resource.k8s.io/v1beta1/resourceclaimtemplates",
    "resource.k8s.io/v1beta1/resourceslices",
)
_WORKLOADS = ("Deployment", "DaemonSet")
_MINOR = re.compile(r"^(\d+)\.(\d+)(?:$|[.-])")


def needed(spec: ClusterSpec) -> bool:
    return spec.accelerator.kind == "gpu" and needs_compute_domain(spec.accelerator)


def cluster_minor(spec: ClusterSpec) -> tuple[int, int] | None:
    """(major, minor) of `--gke-version` ("1.35", "1.34.1-gke.1829001"); None when the version
    is the release channel's default ("", "-") or an alias xcli cannot place ("latest" is
    always new enough)."""
    found = _MINOR.match(str(gke_opts.of(spec).gke_version or "").strip())
    return (int(found.group(1)), int(found.group(2))) if found else None


def check(spec: ClusterSpec) -> None:
    """Refuse, before any call, an A4X cluster version whose Kueue can never admit a workload."""
    minor = cluster_minor(spec)
    if not needed(spec) or minor is None or minor >= MIN_KUBERNETES:
        return
    need = ".".join(map(str, MIN_KUBERNETES))
    raise UserError(
        f"{spec.accelerator.name} workloads need Kubernetes {need} or later: Kueue accounts "
        f"their ComputeDomain channels only through the resource.k8s.io/v1 API, and "
        f"--gke-version {gke_opts.of(spec).gke_version} is older",
        hint=f"pass --gke-version {need} or later, or leave it out for the channel's default",
    )


def notes(spec: ClusterSpec) -> list[str]:
    if not needed(spec):
        return []
    say = (
        f"NVIDIA DRA driver {VERSION} (ComputeDomain) installed, with the "
        "resource.k8s.io/v1beta1 APIs its DeviceClasses use turned on"
    )
    if cluster_minor(spec) is None and str(gke_opts.of(spec).gke_version or "") != "latest":
        need = ".".join(map(str, MIN_KUBERNETES))
        say += (
            f"; the cluster gets its release channel's default version, which must be {need} "
            f"or later for Kueue to admit {spec.accelerator.name} workloads "
            f"(--gke-version {need} or later makes sure)"
        )
    return [say]


def with_beta_apis(spec: ClusterSpec, body: dict[str, Any]) -> dict[str, Any]:
    """The cluster body with the DRA beta APIs on (container.v1 Cluster.enableK8sBetaApis)."""
    if not needed(spec):
        return body
    cluster = {**body["cluster"], "enableK8sBetaApis": {"enabledApis": list(BETA_APIS)}}
    return {**body, "cluster": cluster}


def _namespace_objects() -> list[dict[str, Any]]:
    """Cluster Toolkit's examples/gke-a4x/nvidia-dra-driver.yaml (l.14-33): the namespace, and
    the ResourceQuota without which GKE admits no system-node-critical pod outside kube-system
    (the driver's controller and kubelet plugin use that priority class)."""
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": f"{NAMESPACE}-quota", "namespace": NAMESPACE},
        "spec": {
            "hard": {"pods": 100},
            "scopeSelector": {
                "matchExpressions": [
                    {
                        "operator": "In",
                        "scopeName": "PriorityClass",
                        "values": ["system-node-critical", "system-cluster-critical"],
                    }
                ]
            },
        },
    }
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}, quota]


@cache
def _chart_text() -> str:
    from importlib import resources  # A4X plans only: other plans skip its imports

    folder = resources.files("xcli.providers.gke").joinpath("manifests")
    return folder.joinpath(MANIFEST).read_text("utf-8")


def objects() -> list[dict[str, Any]]:
    """Every object, in apply order: the namespace and its quota, then the chart's objects as
    rendered (the CRD first)."""
    import yaml

    rendered = [doc for doc in yaml.safe_load_all(_chart_text()) if doc]
    return [*_namespace_objects(), *rendered]


def steps(spec: ClusterSpec, cluster: Text, after: tuple[str, ...]) -> list[Step]:
    """One server-side apply per object: the namespace first, the controller and kubelet plugin
    after everything the chart renders before them (Helm's install order: their service
    account, roles and quota), then a wait until the ComputeDomain CRD is served and the
    controller is available."""
    if not needed(spec):
        return []
    applies: list[K8sApply] = []
    first: tuple[str, ...] = ()
    for obj in objects():
        kind, meta = obj["kind"], obj["metadata"]
        where = f"{meta['namespace']}/" if "namespace" in meta else ""
        deps = after if not applies else first
        if kind in _WORKLOADS:
            deps = tuple(s.id for s in applies if s.manifest["kind"] not in _WORKLOADS)
        applies.append(
            K8sApply(
                id=f"k8s-dra-{kind.lower()}-{meta['name']}",
                summary=f"apply NVIDIA DRA driver {VERSION}: {kind} {where}{meta['name']}",
                after=deps,
                cluster=cluster,
                manifest=obj,
            )
        )
        first = first or (applies[0].id,)
    wait = K8sWait(
        id="k8s-wait-dra-driver",
        summary="wait for the NVIDIA DRA driver's ComputeDomain CRD and controller",
        after=tuple(s.id for s in applies),
        cluster=cluster,
        crds=(CRD,),
        deployments=(CONTROLLER,),
        timeout_seconds=900,
    )
    return [*applies, wait]
