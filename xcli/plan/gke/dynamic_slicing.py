"""Dynamic slicing (TPU7x super-slicing): the names and Kueue objects both halves share (pure).

A cluster made with `cluster create --super-slicing` has node pools of 4x4x4 sub-blocks (16 VMs
each, made with a PROVISION_ONLY workload policy) and GKE's slice controller, which joins
sub-blocks into a slice of the shape a workload asks for when Kueue admits it. What each half
does, and where it comes from:

- The cluster (providers/gke/slicing.py): the Kueue Topology `xcli-super-slice` with the levels
  block, 4x4x4 partition, host; the ResourceFlavor selects only the accelerator (no topology
  label: the pools are cubes, the slices are not) and names that Topology; the AdmissionCheck
  whose controller is the slice controller (`accelerator.gke.io/slice`) gates every admission
  of the ClusterQueue. XPK's recipe golden (AI-Hypercomputer/xpk@367c838
  recipes/Cluster_create_super-slicing.md; src/xpk/templates/kueue_super_slicing_topology.yaml.j2)
  and Cluster Toolkit's (cluster-toolkit@1047080 modules/management/kubectl-apply/kueue/
  kueue-configuration-dynamic-slicing.yaml.tftpl) agree on each of these fields;
  tests/data/upstream/ holds both (tests/data/SOURCES.md), and
  tests/model/test_upstream_slicing.py compares them with the goldens field by field.
- The workload (workload/jobset/slicing.py): the pods carry the annotation
  `cloud.google.com/gke-tpu-slice-topology: <topology>` that tells the slice controller which
  slice to form, select only the accelerator label, and the JobSet has no exclusive-topology
  annotation (a slice spans node pools): XPK's recipe golden
  recipes/Workload_create_super-slicing.md.
"""

from __future__ import annotations

from typing import Any

CUBE = "4x4x4"  # a TPU7x sub-block: 16 VMs, 64 chips (GKE's dynamic slicing concepts page)
CUBE_CHIPS = 64
CUBE_VMS = 16
FAMILY = "tpu7x"
MAX_CUBES = 144  # XPK's _SUPER_SLICING_MAX_CUBES (src/xpk/core/scheduling.py l.37)
SUPER = "super"  # the metadata ConfigMap's `dynamic_slicing` value
TOPOLOGY = "xcli-super-slice"
TOPOLOGY_LEVELS = (
    "cloud.google.com/gce-topology-block",
    "cloud.google.com/gke-tpu-partition-4x4x4-id",
    "kubernetes.io/hostname",
)
ADMISSION_CHECK = "xcli-slice"
SLICE_CONTROLLER = "accelerator.gke.io/slice"
SLICE_TOPOLOGY_ANNOTATION = "cloud.google.com/gke-tpu-slice-topology"
# XPK refuses longer super-slicing workload names (src/xpk/commands/workload.py l.106, 559-572):
# the slice controller names a Slice after the workload, and a Slice name has at most 49
# characters (GKE's Slice custom resource reference) with the pod-set suffixes on top.
WORKLOAD_NAME_LIMIT = 28


def topology(api: str) -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": "Topology",
        "metadata": {"name": TOPOLOGY},
        "spec": {"levels": [{"nodeLabel": label} for label in TOPOLOGY_LEVELS]},
    }


def admission_check(api: str) -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": "AdmissionCheck",
        "metadata": {"name": ADMISSION_CHECK},
        "spec": {"controllerName": SLICE_CONTROLLER},
    }


def flavor(obj: dict[str, Any], topology_label: str) -> dict[str, Any]:
    """The accelerator's ResourceFlavor without the topology label, naming the Topology."""
    spec = dict(obj["spec"])
    spec["nodeLabels"] = {k: v for k, v in spec["nodeLabels"].items() if k != topology_label}
    spec["topologyName"] = TOPOLOGY
    return {**obj, "spec": spec}


def gated(obj: dict[str, Any]) -> dict[str, Any]:
    """The ClusterQueue with the slice controller's AdmissionCheck on every admission."""
    spec = dict(obj["spec"])
    spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": ADMISSION_CHECK}]}
    return {**obj, "spec": spec}


def cubes(topology: str) -> int | None:
    """Sub-blocks a tpu7x slice of `topology` is made of; None when sub-blocks cannot form it
    (XPK's rule: 4i x 4j x 4k with i <= j <= k, src/xpk/core/scheduling.py l.232-252)."""
    try:
        dims = [int(d) for d in topology.split("x")]
    except ValueError:
        return None
    if len(dims) != 3 or any(d < 4 or d % 4 for d in dims) or dims != sorted(dims):
        return None
    return (dims[0] // 4) * (dims[1] // 4) * (dims[2] // 4)
