"""Step kinds for setting up a Kubernetes cluster, beside the generic `k8s_apply` in steps.py.

JSON form (every step also has id, kind, summary, after):
- k8s_install: "cluster", "component", "version", "url", "field_manager", "force_conflicts",
  "limits" (container resource limits set on the release's controller before it is applied),
  "config_patch" (only when set: fields merged into a configuration file of the release's
  ConfigMap, and the controller restarted when that changes it; plan/gke/kueue_config.py)
- k8s_wait: "cluster", "crds", "deployments", "probes", "timeout_seconds"
- k8s_delete: "cluster", "api_version", "resource", "namespace", "name", "propagation",
  "timeout_seconds"

A release manifest is not in the plan itself: the machine planning a dry-run may have no
network, and the plan must not depend on what a download returns. The step pins the exact URL
and version, so the dry-run says precisely what a live run fetches and applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xcli.plan.model import Step, symbolic
from xcli.plan.steps import Text


@dataclass(frozen=True, kw_only=True)
class K8sInstall(Step):
    """Download a pinned release manifest and server-side apply every object in it.

    The live handler parses the multi-document YAML and applies Namespaces first, then
    CustomResourceDefinitions, then everything else, each with `force` so that fields another
    manager owns (an earlier manual install, an older xcli) are taken over.

    `limits` resizes the controller for the cluster's size: {"deployment": "ns/name",
    "container": "manager", "limits": {"memory": "4Gi"}} replaces those limits in that
    Deployment of the manifest before it is applied; an optional "requests" replaces those.

    `config_patch` changes the controller's configuration file before it is applied:
    {"configmap": "ns/name", "key": "file.yaml", "api_version": ..., "kind": ..., "merge":
    {fields}, "restart": "ns/deployment", "annotation": "key"}: the YAML document under `key`
    (of that apiVersion and kind) gets `merge` deep-merged into it, and the Deployment's pod
    template gets the SHA-256 of the new data under `annotation`, so its pods restart exactly
    when the configuration changed (plan/gke/kueue_config.py).
    """

    kind: ClassVar[str] = "k8s_install"

    cluster: Text
    component: str  # "jobset", "kueue"
    version: str  # "v0.12.0"
    url: str
    field_manager: str = "xcli"
    limits: Mapping[str, Any] = field(default_factory=dict)
    config_patch: Mapping[str, Any] = field(default_factory=dict)

    def details(self) -> dict[str, Any]:
        out = {
            "cluster": symbolic(self.cluster),
            "component": self.component,
            "version": self.version,
            "url": self.url,
            "field_manager": self.field_manager,
            "force_conflicts": True,
            "limits": symbolic(self.limits),
        }
        if self.config_patch:
            out["config_patch"] = symbolic(self.config_patch)
        return out


@dataclass(frozen=True, kw_only=True)
class K8sWait(Step):
    """Poll until controllers are usable: CRDs Established, Deployments Available, webhooks up.

    `crds` are CustomResourceDefinition names (jobsets.jobset.x-k8s.io); `deployments` are
    "namespace/name"; each of `probes` is server-side applied with dryRun=All (nothing is
    stored) until the API server stops answering "failed calling webhook", which is the only
    proof that the admission webhooks in front of those kinds really answer.
    """

    kind: ClassVar[str] = "k8s_wait"

    cluster: Text
    crds: tuple[str, ...]
    deployments: tuple[str, ...]
    probes: tuple[Mapping[str, Any], ...] = ()
    timeout_seconds: int = 600

    def details(self) -> dict[str, Any]:
        return {
            "cluster": symbolic(self.cluster),
            "crds": list(self.crds),
            "deployments": list(self.deployments),
            "probes": [symbolic(p) for p in self.probes],
            "timeout_seconds": self.timeout_seconds,
        }


@dataclass(frozen=True, kw_only=True)
class K8sDelete(Step):
    """Delete one Kubernetes object (foreground: its Jobs and pods go first) and wait until it
    is gone. An object that does not exist counts as deleted."""

    kind: ClassVar[str] = "k8s_delete"

    cluster: Text
    api_version: str
    resource: str  # plural, e.g. jobsets
    namespace: str
    name: Text  # a ref where a dry-run has not read it (plan/read_first.py)
    propagation: str = "Foreground"
    timeout_seconds: int = 600
