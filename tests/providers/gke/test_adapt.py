"""providers/gke/adapt.py: detecting a foreign cluster's accelerator pools, and the plan.

The clusters are hand-written container.v1 Cluster JSON (tests/fixtures/adapt/), checked
against the container.v1 discovery document and parsed by the real client's message type.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.discovery import check_value
from xcli.errors import UserError
from xcli.providers.gke.adapt import detect, installed_version, plan_adapt, spec_for

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "adapt"


def cluster_json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    check_value("container.v1", {"$ref": "Cluster"}, data, name)
    return data


def message(data: dict[str, Any]) -> Any:
    from google.cloud import container_v1

    return container_v1.Cluster.from_json(json.dumps(data))


def test_tpu_slices_by_machine_type_and_topology() -> None:
    found = detect(message(cluster_json("foreign-v6e-cluster")))
    assert (found.accelerator.name, found.slices, found.capacity.kind) == ("v6e-256", 2, "spot")
    assert found.pools == ("v6e-a", "v6e-b")  # the CPU pool is not an accelerator pool


def test_gpu_pool_by_accelerator_config() -> None:
    found = detect(message(cluster_json("foreign-h100-cluster")))
    assert (found.accelerator.name, found.nodes) == ("h100-80gb-8", 4)
    assert (found.capacity.kind, found.capacity.reservation) == ("reservation", "h100-res")


def test_refuses_no_accelerator_pools_and_mixed_shapes() -> None:
    data = cluster_json("foreign-v6e-cluster")
    only_cpu = {**data, "nodePools": data["nodePools"][:1]}
    with pytest.raises(UserError, match="has no TPU or GPU node pool"):
        detect(message(only_cpu))
    other = json.loads(json.dumps(data["nodePools"][2]))
    other["placementPolicy"]["tpuTopology"] = "8x16"
    mixed = {**data, "nodePools": [*data["nodePools"], {**other, "name": "v6e-c"}]}
    with pytest.raises(UserError, match="several accelerator shapes: v6e-128"):
        detect(message(mixed))


def test_plan_reads_first_and_never_touches_node_pools() -> None:
    found = detect(message(cluster_json("foreign-v6e-cluster")))
    spec = spec_for(found, "tk-v6e", "my-proj", "us-east5-b")
    plan = plan_adapt(spec, "projects/my-proj/locations/us-east5/clusters/tk-v6e", found.pools)
    assert plan.steps[0].kind == "gke_adapt_read"
    assert all(s.after for s in plan.steps[1:])
    assert {s.kind for s in plan.steps} <= {
        "gke_adapt_read",
        "k8s_install",
        "k8s_wait",
        "k8s_apply",
        "k8s_cohort_read",
    }
    assert "node pools v6e-a, v6e-b" in plan.title


@pytest.mark.parametrize(
    ("image", "version"),
    [
        ("registry.k8s.io/kueue/kueue:v0.14.3", "v0.14.3"),
        ("us-central1-docker.pkg.dev/k8s-staging-images/kueue/kueue:v0.19.2", "v0.19.2"),
        ("registry.k8s.io/kueue/kueue@sha256:abc", "unknown"),
        ("localhost:5000/kueue", "unknown"),
    ],
)
def test_installed_version_from_the_image_tag(image: str, version: str) -> None:
    deployment = {
        "spec": {"template": {"spec": {"containers": [{"name": "manager", "image": image}]}}}
    }
    assert installed_version(deployment) == version
    assert installed_version(None) == ""


def test_a_cpu_shape_is_adapted_only_on_pools_xcli_made() -> None:
    """issue 36: a CPU shape's flavor selects the node label of xcli's own CPU pools."""
    from xcli.catalog import lookup
    from xcli.providers.gke.adapt import Detected
    from xcli.spec import Capacity

    found = Detected(lookup("n2-standard-32-4"), 1, 1, Capacity("on-demand"), ("c-np-0",))
    spec = spec_for(found, "c", "my-proj", "us-east5-b")
    with pytest.raises(UserError, match="is a CPU shape"):
        plan_adapt(spec, "projects/my-proj/locations/us-east5/clusters/c")
    assert plan_adapt(spec, "projects/my-proj/locations/us-east5/clusters/c", ("c-np-0",)).steps
