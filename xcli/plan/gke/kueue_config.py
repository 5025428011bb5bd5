"""What xcli changes in Kueue's own Configuration (pure): fair sharing, switched on, and on A4X
the ComputeDomain channel's DeviceClass mapped to a resource the ClusterQueue covers
(`resources.deviceClassMappings`, plan/gke/dra.py).

Kueue reads its Configuration (`config.kueue.x-k8s.io/v1beta2`, kind Configuration) from the
key `controller_manager_config.yaml` of the ConfigMap `kueue-system/kueue-manager-config` in
its release manifest, once, when the controller starts
(https://kueue.sigs.k8s.io/docs/installation/#install-a-custom-configured-released-version).
Fair sharing is on when the Configuration has a `fairSharing` block; only then do the teams'
`fairSharing.weight` values order the queues that compete for unused chips
(https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/, preemption strategies from
https://kueue.sigs.k8s.io/docs/concepts/preemption/#fair-sharing).

The patch travels in the K8sInstall step (`config_patch`), so the dry-run shows it. The live
handler (gateways/kube/release_config.py) merges `merge` into the Configuration document and writes
the SHA-256 of the resulting ConfigMap data into the controller's pod template annotation
`annotation`: when the configuration changes on an existing install, the Deployment rolls its
pods and the new controller reads it; when nothing changed, the apply changes nothing.
"""

from __future__ import annotations

from typing import Any

from xcli.catalog import Accelerator
from xcli.plan.gke.dra import device_class_mappings

CONFIG_API = "config.kueue.x-k8s.io/v1beta2"
CONFIGMAP = "kueue-system/kueue-manager-config"
CONFIG_KEY = "controller_manager_config.yaml"
CONTROLLER = "kueue-system/kueue-controller-manager"
CONFIG_ANNOTATION = "xcli.dev/config-sha256"
FAIR_SHARING = {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]}


def kueue_config_patch(accel: Accelerator | None = None) -> dict[str, Any]:
    """The `config_patch` of Kueue's K8sInstall: fair sharing on (and the DRA device classes
    the cluster's workloads claim, mapped), the controller restarted when that changes its
    configuration."""
    merge: dict[str, Any] = {"fairSharing": {k: list(v) for k, v in FAIR_SHARING.items()}}
    mappings = device_class_mappings(accel) if accel is not None else []
    if mappings:
        merge["resources"] = {"deviceClassMappings": mappings}
    return {
        "configmap": CONFIGMAP,
        "key": CONFIG_KEY,
        "api_version": CONFIG_API,
        "kind": "Configuration",
        "merge": merge,
        "restart": CONTROLLER,
        "annotation": CONFIG_ANNOTATION,
    }
