"""The GPUDirect objects applied live, through the real Kubernetes handlers and client, to a fake
API server: each goes to its REST path (networking.gke.io kinds are cluster-scoped) with the
exact body the dry-run prints."""

from __future__ import annotations

import json

import pytest

from tests.gateways.test_kube_handlers import Clock, handlers, run
from tests.plan.gke_cases import CASES
from tests.plan.test_incluster import CLUSTER
from tests.support.fakekube import FakeKube
from xcli.plan.steps import K8sApply
from xcli.providers.gke.gpu_objects import object_steps

PATHS = {
    "GKENetworkParamSet": "/apis/networking.gke.io/v1/gkenetworkparamsets/{}",
    "Network": "/apis/networking.gke.io/v1/networks/{}",
    "DaemonSet": "/apis/apps/v1/namespaces/kube-system/daemonsets/{}",
}


@pytest.mark.parametrize("case", ["h100-mega-80gb-8-x4-spot", "gb200-4-x18-reservation"])
def test_objects_apply_to_their_paths_with_the_printed_bodies(case: str) -> None:
    spec = CASES[case][1]
    steps = [s for s in object_steps(spec, CLUSTER, ("cluster",)) if isinstance(s, K8sApply)]
    fake = FakeKube()
    result = run(handlers(fake, Clock()), *steps)
    assert result.ok, [(r.step.id, r.error) for r in result.results.values() if r.error]
    sent = {r.url.path: json.loads(r.content) for r in fake.patches()}
    expected = {
        PATHS[s.manifest["kind"]].format(s.manifest["metadata"]["name"]): dict(s.manifest)
        for s in steps
    }
    assert sent == expected
