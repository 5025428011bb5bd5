"""What xcli changes in JobSet's own Configuration (pure): the alpha RestartJob feature gate,
when `cluster create --slice-restarts` asks for it.

JobSet v0.12's webhook refuses a failure-policy rule with the per-Job actions `RestartJob` and
`RestartJobAndIgnoreMaxRestarts` while its RestartJob gate is off, and the gate is off by default
(kubernetes-sigs/jobset v0.12.0 pkg/webhooks/jobset_webhook.go l.440-444,
pkg/features/features.go l.68-76). The controller reads `featureGates` from its Configuration
(`config.jobset.x-k8s.io/v1alpha1`, api/config/v1alpha1/configuration_types.go l.39-41), the
key `controller_manager_config.yaml` of the ConfigMap `jobset-system/jobset-manager-config` in
the release manifest (the name XPK's copy of that manifest shows, AI-Hypercomputer/xpk
src/xpk/core/jobset.py). The patch travels in the K8sInstall step as Kueue's does
(plan/gke/kueue_config.py), so the dry-run shows it and a change rolls the controller.
"""

from __future__ import annotations

from typing import Any

RESTART_JOB = "RestartJob"
CONFIG_API = "config.jobset.x-k8s.io/v1alpha1"
CONFIGMAP = "jobset-system/jobset-manager-config"
CONFIG_KEY = "controller_manager_config.yaml"
CONTROLLER = "jobset-system/jobset-controller-manager"
CONFIG_ANNOTATION = "xcli.dev/config-sha256"


def gates(slice_restarts: bool) -> tuple[str, ...]:
    """The JobSet feature gates a cluster turns on (cluster create --slice-restarts)."""
    return (RESTART_JOB,) if slice_restarts else ()


def jobset_config_patch(wanted: tuple[str, ...]) -> dict[str, Any]:
    """The `config_patch` of JobSet's K8sInstall; empty (the release as it is) without gates."""
    if not wanted:
        return {}
    return {
        "configmap": CONFIGMAP,
        "key": CONFIG_KEY,
        "api_version": CONFIG_API,
        "kind": "Configuration",
        "merge": {"featureGates": dict.fromkeys(wanted, True)},
        "restart": CONTROLLER,
        "annotation": CONFIG_ANNOTATION,
    }
