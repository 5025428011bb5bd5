"""The GPUDirect objects (and on A4X the NVIDIA DRA driver's) applied live, through the real
Kubernetes handlers and client, to a fake API server: each goes to its REST path
(networking.gke.io kinds are cluster-scoped; so are the driver's ClusterRoles, although the chart
renders a namespace on them) with the exact body the dry-run prints."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.gateways.kube.test_kube_handlers import Clock, handlers, run
from tests.plan.gke_cases import CASES
from tests.plan.test_incluster import CLUSTER
from tests.support.fakekube import FakeKube
from xcli.plan.steps import K8sApply
from xcli.providers.gke.gpu_objects import object_steps

# kind -> (API path, plural, namespaced)
PATHS = {
    "GKENetworkParamSet": ("/apis/networking.gke.io/v1", "gkenetworkparamsets", False),
    "Network": ("/apis/networking.gke.io/v1", "networks", False),
    "DaemonSet": ("/apis/apps/v1", "daemonsets", True),
    "Deployment": ("/apis/apps/v1", "deployments", True),
    "Namespace": ("/api/v1", "namespaces", False),
    "ResourceQuota": ("/api/v1", "resourcequotas", True),
    "ServiceAccount": ("/api/v1", "serviceaccounts", True),
    "CustomResourceDefinition": (
        "/apis/apiextensions.k8s.io/v1",
        "customresourcedefinitions",
        False,
    ),
    "ClusterRole": ("/apis/rbac.authorization.k8s.io/v1", "clusterroles", False),
    "ClusterRoleBinding": ("/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", False),
    "DeviceClass": ("/apis/resource.k8s.io/v1beta1", "deviceclasses", False),
    "ValidatingAdmissionPolicy": (
        "/apis/admissionregistration.k8s.io/v1",
        "validatingadmissionpolicies",
        False,
    ),
    "ValidatingAdmissionPolicyBinding": (
        "/apis/admissionregistration.k8s.io/v1",
        "validatingadmissionpolicybindings",
        False,
    ),
}


def path(obj: dict[str, Any]) -> str:
    base, plural, namespaced = PATHS[obj["kind"]]
    where = f"/namespaces/{obj['metadata']['namespace']}" if namespaced else ""
    return f"{base}{where}/{plural}/{obj['metadata']['name']}"


@pytest.mark.parametrize("case", ["h100-mega-80gb-8-x4-spot", "gb200-4-x18-reservation"])
def test_objects_apply_to_their_paths_with_the_printed_bodies(case: str) -> None:
    spec = CASES[case][1]
    steps = [s for s in object_steps(spec, CLUSTER, ("cluster",)) if isinstance(s, K8sApply)]
    fake = FakeKube()
    result = run(handlers(fake, Clock()), *steps)
    assert result.ok, [(r.step.id, r.error) for r in result.results.values() if r.error]
    sent = {r.url.path: json.loads(r.content) for r in fake.patches()}
    expected = {path(dict(s.manifest)): dict(s.manifest) for s in steps}
    assert sent == expected
    kinds = {s.manifest["kind"] for s in steps}
    assert ("DeviceClass" in kinds) is (case == "gb200-4-x18-reservation")
