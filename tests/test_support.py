"""The validators themselves must reject what is wrong, or every test using them is hollow."""

from __future__ import annotations

import pytest

from tests.support import crd, discovery

NODEPOOLS = "container.projects.locations.clusters.nodePools.create"
URL = "https://container.googleapis.com/v1/projects/p/locations/us-east5/clusters/c/nodePools"


def test_discovery_accepts_a_correct_node_pool_request() -> None:
    body = {
        "nodePool": {
            "name": "np",
            "initialNodeCount": 2,
            "placementPolicy": {"type": "COMPACT", "tpuTopology": "4x4"},
            "config": {"machineType": "ct6e-standard-4t", "spot": True},
        }
    }
    discovery.check_request(NODEPOOLS, "POST", URL, body)


@pytest.mark.parametrize(
    "body",
    [
        {"nodePool": {"name": "np", "initialNodeCont": 2}},  # misspelled field
        {"nodePool": {"placementPolicy": {"type": "TIGHT"}}},  # unknown enum value
        {"nodePool": {"initialNodeCount": "two"}},  # wrong type
        {"nodePool": {"config": {"spot": "yes"}}},  # wrong type
    ],
)
def test_discovery_rejects_bad_bodies(body: dict[str, object]) -> None:
    with pytest.raises(AssertionError):
        discovery.check_request(NODEPOOLS, "POST", URL, body)


def test_discovery_rejects_wrong_method_path_and_query() -> None:
    good = {"nodePool": {"name": "np"}}
    with pytest.raises(AssertionError):
        discovery.check_request(NODEPOOLS, "PUT", URL, good)
    with pytest.raises(AssertionError):
        discovery.check_request(NODEPOOLS, "POST", URL.replace("/nodePools", "/pools"), good)
    with pytest.raises(AssertionError):
        discovery.check_request(NODEPOOLS, "POST", URL + "?bogus=1", good)


def test_crd_validation_accepts_and_rejects() -> None:
    flavor = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "f"},
        "spec": {"nodeLabels": {"cloud.google.com/gke-tpu-topology": "4x4"}},
    }
    crd.validate(flavor)
    bad = {**flavor, "spec": {"nodeLabelz": {}}}
    with pytest.raises(AssertionError, match="nodeLabelz"):
        crd.validate(bad)
    with pytest.raises(AssertionError):
        crd.validate({**flavor, "apiVersion": "kueue.x-k8s.io/v9"})


def test_every_discovery_document_of_the_pinned_wheel_is_reachable() -> None:
    """Later checks (storage, filestore, logging) need more than the three APIs used today."""
    wanted = {"container.v1", "tpu.v2", "tpu.v2alpha1", "compute.v1", "compute.beta", "file.v1"}
    wanted |= {"parallelstore.v1", "storage.v1", "logging.v2", "oslogin.v1"}
    assert wanted <= set(discovery.available())
    assert len(discovery.available()) > 500  # all of them, not a chosen few
    assert discovery.document("container") is discovery.document("container.v1")
    assert discovery.doc_for("compute.resourcePolicies.insert") == "compute"  # GA first
    assert discovery.doc_for("file.projects.locations.instances.create") == "file.v1"
    assert discovery.doc_for("storage.buckets.insert") == "storage.v1"
    with pytest.raises(AssertionError, match="no discovery document"):
        discovery.document("nosuchapi.v1")


def test_discovery_checks_compute_paths_below_the_service_path() -> None:
    url = "https://compute.googleapis.com/compute/v1/projects/p/regions/r/resourcePolicies"
    body = {"name": "wp", "workloadPolicy": {"type": "HIGH_THROUGHPUT"}}
    discovery.check_request("compute.resourcePolicies.insert", "POST", url, body)
    with pytest.raises(AssertionError, match="should start with /compute/v1/"):
        discovery.check_request(
            "compute.resourcePolicies.insert", "POST", url.replace("/compute/v1", ""), body
        )
    with pytest.raises(AssertionError, match="FAST"):
        bad = {"name": "wp", "workloadPolicy": {"type": "FAST"}}
        discovery.check_request("compute.resourcePolicies.insert", "POST", url, bad)
