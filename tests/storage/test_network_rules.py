"""The VPC rules of Managed Lustre and Parallelstore (network_rules.py), and the mountPoint split
of the Lustre read, on literal compute.v1 / servicenetworking.v1 JSON."""

from __future__ import annotations

from typing import Any

import pytest

from xcli.plan.storage_steps import pick
from xcli.storage import network_rules as rules

NET = "https://www.googleapis.com/compute/v1/projects/p/global/networks/vpc"


def rule(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "r",
        "network": NET,
        "direction": "INGRESS",
        "sourceRanges": ["10.90.0.0/20"],
        "allowed": [{"IPProtocol": "tcp", "ports": ["988"]}],
    }
    return {**base, **fields}


@pytest.mark.parametrize(
    ("fields", "lustre", "parallelstore"),
    [
        ({}, True, False),
        ({"allowed": [{"IPProtocol": "tcp"}]}, True, True),
        ({"allowed": [{"IPProtocol": "all"}]}, True, True),
        ({"allowed": [{"IPProtocol": "tcp", "ports": ["0-65535"]}]}, True, True),
        ({"allowed": [{"IPProtocol": "tcp", "ports": ["900-1000"]}]}, True, False),
        ({"allowed": [{"IPProtocol": "tcp", "ports": ["22", "6988"]}]}, False, False),
        ({"allowed": [{"IPProtocol": "udp"}]}, False, False),
        ({"sourceRanges": ["10.0.0.0/8"]}, True, False),
        ({"sourceRanges": ["10.90.0.0/24"]}, False, False),  # covers part of the range only
        ({"sourceRanges": ["fd00::/8", "10.90.0.0/16"]}, True, False),
        ({"disabled": True}, False, False),
        ({"direction": "EGRESS"}, False, False),
        ({"targetTags": ["lustre"]}, False, False),
        ({"targetServiceAccounts": ["sa@p.iam.gserviceaccount.com"]}, False, False),
        ({"network": NET + "-2"}, False, False),
        ({"allowed": [], "denied": [{"IPProtocol": "tcp"}]}, False, False),
    ],
)
def test_covering(fields: dict[str, Any], lustre: bool, parallelstore: bool) -> None:
    rules_ = [rule(**fields)]
    assert (rules.covering(rules_, "vpc", ["10.90.0.0/20"], "lustre") == "r") is lustre
    got = rules.covering(rules_, "vpc", ["10.90.0.0/20"], "parallelstore") == "r"
    assert got is parallelstore


def test_every_range_must_be_covered() -> None:
    ranges = ["10.90.0.0/20", "192.168.0.0/24"]
    assert rules.covering([rule()], "vpc", ranges, "lustre") is None
    both = rule(sourceRanges=["10.90.0.0/20", "192.168.0.0/16"])
    assert rules.covering([rule(), both], "vpc", ranges, "lustre") == "r"
    assert rules.covering([rule()], "vpc", [], "lustre") is None


def test_peering_ranges_and_their_cidrs() -> None:
    connections = [
        {"service": "services/servicenetworking.googleapis.com", "reservedPeeringRanges": ["a"]},
        {"service": "services/servicenetworking.googleapis.com", "reservedPeeringRanges": ["b"]},
        {"service": "services/other.example.com", "reservedPeeringRanges": ["c"]},
    ]
    assert rules.peering_ranges(connections) == ["a", "b"]
    addresses = [
        {"name": "b", "address": "10.1.0.0", "prefixLength": 24, "purpose": "VPC_PEERING",
         "network": NET},
        {"name": "a", "address": "10.2.0.0", "prefixLength": 20, "purpose": "VPC_PEERING",
         "network": NET},
        {"name": "c", "address": "10.3.0.0", "prefixLength": 20, "purpose": "VPC_PEERING",
         "network": NET},
        {"name": "a", "address": "10.4.0.0", "prefixLength": 20, "purpose": "GCE_ENDPOINT",
         "network": NET},
    ]  # fmt: skip
    assert rules.cidrs(addresses, ["a", "b"], "vpc") == ["10.2.0.0/20", "10.1.0.0/24"]
    assert rules.cidrs(addresses, ["a"], "other") == []


def test_the_refusal_names_the_fix() -> None:
    err = rules.no_psa("parallelstore", "p", "vpc", "has no Private Service Access")
    assert str(err.message).startswith("network vpc has no Private Service Access: Parallelstore")
    assert "--prefix-length=24 --network=vpc --project=p" in err.hint
    assert "gcloud services vpc-peerings connect" in err.hint


def test_lustre_mount_point_split() -> None:
    answer = {"mountPoint": "10.90.0.2@tcp:/scratch", "network": "projects/p/global/networks/n"}
    assert pick(answer, "mountPoint@before:@") == "10.90.0.2"
    assert pick(answer, "mountPoint@after::/") == "scratch"
    assert pick(answer, "network@last") == "n"
    assert pick({"mountPoint": "no-separator"}, "mountPoint@after::/") is None
    assert pick({}, "mountPoint@before:@") is None
