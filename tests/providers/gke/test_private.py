"""Private GKE clusters: the container.v1 fields, the Cloud NAT step (made only when the network
has no NAT, deleted only when xcli made it), refused combinations, and the DNS endpoint the
Kubernetes API is reached through."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from tests.conftest import REPO
from tests.plan.gke_cases import CASES, PROJECT, ZONE
from tests.support.discovery import check_request
from tests.support.fake_compute import FakeNet
from tests.support.gke_live import live, ref_of
from xcli.errors import UserError
from xcli.providers.gke import nat
from xcli.providers.gke.cidr import parse_cidrs
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import plan_create
from xcli.providers.gke.private import settings

SUBNETS = f"projects/{PROJECT}/regions/us-east5/subnetworks"
GOLDEN = REPO / "tests" / "goldens" / "gke" / "private-authorized-nat.json"
SPEC = CASES["private-authorized-nat"][1]


def with_options(**options: Any) -> Any:
    return replace(SPEC, options=GkeOptions(**{"private": True, **options}))


def test_the_golden_has_private_nodes_authorized_networks_dns_endpoint_and_nat() -> None:
    doc = json.loads(GOLDEN.read_text())
    steps = {s["id"]: s for s in doc["plan"]}
    cluster = steps["cluster"]["request"]["body"]["cluster"]
    assert cluster["network"] == "ml-net" and cluster["subnetwork"] == "ml-subnet"
    assert cluster["networkConfig"]["defaultEnablePrivateNodes"] is True
    endpoints = cluster["controlPlaneEndpointsConfig"]
    assert endpoints["dnsEndpointConfig"] == {"allowExternalTraffic": True}
    blocks = endpoints["ipEndpointsConfig"]["authorizedNetworksConfig"]["cidrBlocks"]
    assert [b["cidrBlock"] for b in blocks] == ["10.1.0.0/16", "192.168.0.0/24"]
    assert "privateClusterConfig" not in cluster  # never the deprecated twin of a field set
    # the NAT step: the read, then the router xcli would create, both as compute.v1 wants them
    step = steps["nat"]
    assert step["kind"] == "ensure_nat"
    check_request(step["read"]["api"], "GET", step["read"]["request"]["url"])
    create = step["create"]
    check_request(create["api"], "POST", create["request"]["url"], create["request"]["body"])
    assert create["request"]["body"]["network"] == f"projects/{PROJECT}/global/networks/ml-net"
    assert create["request"]["body"]["description"] == nat.marker("demo")
    assert "ml-subnet" in step["when"]
    assert "nat" in steps["pool-0"]["after"]  # nodes come up with egress in place


@pytest.mark.parametrize(
    "options",
    [
        {"private_endpoint": True, "authorized_networks": ("10.1.0.0/16",)},
        {"master_ipv4_cidr": ("172.16.0.32/28",)},
        {},
    ],
)
def test_every_private_body_fits_container_v1(options: dict[str, Any]) -> None:
    plan = plan_create(with_options(**options))
    step = next(s for s in plan.steps if s.id == "cluster")
    check_request(step.api, "POST", str(step.url), step.body)  # type: ignore[attr-defined]
    cluster = step.body["cluster"]  # type: ignore[attr-defined]
    ip = cluster["controlPlaneEndpointsConfig"]["ipEndpointsConfig"]
    public = not options.get("private_endpoint") and bool(options.get("authorized_networks"))
    assert ip["enablePublicEndpoint"] is public
    if options.get("master_ipv4_cidr"):
        assert cluster["privateClusterConfig"] == {"masterIpv4CidrBlock": "172.16.0.32/28"}


def test_private_without_authorized_networks_is_closed_and_the_plan_says_so() -> None:
    plan = plan_create(replace(SPEC, options=GkeOptions(private=True)))
    cluster = plan.steps[[s.id for s in plan.steps].index("cluster")].body["cluster"]  # type: ignore[attr-defined]
    endpoints = cluster["controlPlaneEndpointsConfig"]
    assert endpoints["ipEndpointsConfig"] == {"enabled": True, "enablePublicEndpoint": False}
    assert endpoints["dnsEndpointConfig"] == {"allowExternalTraffic": True}
    (note,) = [n for n in plan.notes if "--authorized-networks" in n]
    assert "no public IP endpoint" in note and "DNS endpoint" in note
    # authorized networks open the IP endpoint to them only; --private-endpoint says it itself
    opened = plan_create(with_options(authorized_networks=("203.0.113.0/24",)))
    assert not [n for n in opened.notes if "no public IP endpoint" in n]
    explicit = plan_create(with_options(private_endpoint=True))
    assert not [n for n in explicit.notes if "no public IP endpoint" in n]


def test_a_public_cluster_has_no_nat_step_and_no_private_fields() -> None:
    plan = plan_create(CASES["v6e-256-x2-spot"][1])
    assert "nat" not in {s.id for s in plan.steps}
    cluster = plan.steps[0].body["cluster"]  # type: ignore[attr-defined]
    assert "controlPlaneEndpointsConfig" not in cluster
    assert "defaultEnablePrivateNodes" not in cluster["networkConfig"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"private": False, "private_endpoint": True}, "applies only to a private cluster"),
        ({"private": False, "authorized_networks": ("10.0.0.0/8",)}, "only to a private"),
        ({"master_ipv4_cidr": ("172.16.0.0/24",)}, "is a /24; GKE needs a /28"),
        ({"master_ipv4_cidr": ("8.8.8.0/28",)}, "not an internal"),
        (
            {"master_ipv4_cidr": ("10.1.0.16/28",), "authorized_networks": ("10.1.0.0/16",)},
            "overlaps --authorized-networks 10.1.0.0/16",
        ),
        (
            {"private_endpoint": True, "authorized_networks": ("203.0.113.0/24",)},
            "public networks can never reach it",
        ),
    ],
)
def test_combinations_that_mean_nothing_or_lock_users_out_are_refused(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(UserError, match=message) as caught:
        settings(with_options(**options))
    assert caught.value.hint


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("10.0.0.0/8,10.1.0.0/16", "overlap"),
        ("10.1.0.1/16", "host bits set"),
        ("10.1.0.0", "no prefix length"),
        ("banana/8", "not an IPv4 CIDR"),
        ("fd00::/8", "IPv6"),
        ("10.0.0.0/8,", "empty entry"),
        (",".join(f"10.{n}.0.0/16" for n in range(51)), "at most 50"),
    ],
)
def test_bad_cidr_lists_are_refused(text: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        parse_cidrs(text, "--authorized-networks")


# --- live: NAT only when needed, deleted only when xcli made it ------------------------------


def test_live_creates_the_router_when_the_network_has_no_nat() -> None:
    fake = FakeNet()
    with live(fake) as env:
        result = env.run(env.plan(SPEC), ref_of(SPEC))
    assert result.ok
    assert result.results["nat"].outputs["created"] is True
    sent = fake.calls("POST", "/routers")
    assert len(sent) == 1
    printed = next(s for s in plan_create(SPEC).steps if s.id == "nat")
    assert sent[0][2] == printed.create.body  # type: ignore[attr-defined]  # raw REST JSON
    assert fake.routers["demo-nat"]["description"] == nat.marker("demo")


@pytest.mark.parametrize(
    ("nat_config", "made"),
    [
        ({"sourceSubnetworkIpRangesToNat": "ALL_SUBNETWORKS_ALL_IP_RANGES"}, False),
        (
            {
                "sourceSubnetworkIpRangesToNat": "LIST_OF_SUBNETWORKS",
                "subnetworks": [{"name": f"{SUBNETS}/ml-subnet"}],
            },
            False,
        ),
        (
            {
                "sourceSubnetworkIpRangesToNat": "LIST_OF_SUBNETWORKS",
                "subnetworks": [{"name": f"{SUBNETS}/other"}],
            },
            True,
        ),
    ],
)
def test_live_keeps_a_nat_that_covers_the_subnetwork(
    nat_config: dict[str, Any], made: bool
) -> None:
    router = {
        "name": "corp-router",
        "network": f"https://www.googleapis.com/compute/v1/projects/{PROJECT}/global/networks/ml-net",
        "nats": [{"name": "corp-nat", "natIpAllocateOption": "AUTO_ONLY", **nat_config}],
    }
    fake = FakeNet(routers={"corp-router": router})
    with live(fake) as env:
        result = env.run(env.plan(SPEC), ref_of(SPEC))
    assert result.ok
    assert result.results["nat"].outputs["created"] is made
    assert ("demo-nat" in fake.routers) is made


def test_delete_removes_the_router_only_when_xcli_made_it() -> None:
    from xcli.providers.gke.planner_delete import plan_delete

    fake = FakeNet()
    with live(fake) as env:
        assert env.run(env.plan(SPEC), ref_of(SPEC)).ok
        fake.routers["other-nat"] = {"name": "other-nat", "description": "the network team's"}
        ref = ref_of(SPEC)
        plan = env.provider.plan_delete(ref, env.provider.observe(ref, "delete"))
        assert [s.id for s in plan.steps] == ["cluster", "router-demo-nat"]
        assert plan.steps[1].after == ("cluster",)
        assert env.run(plan, ref).ok
    assert set(fake.routers) == {"other-nat"}
    deleted = fake.calls("DELETE", "/routers/")
    assert len(deleted) == 1
    check_request(
        "compute.routers.delete", "DELETE", f"https://compute.googleapis.com{deleted[0][1]}"
    )
    # a router of that name made by someone else (another description) is left alone
    fake = FakeNet(routers={"demo-nat": {"name": "demo-nat", "description": "hand-made"}})
    with live(fake) as env:
        seen = env.provider.observe(ref_of(SPEC), "delete")
    assert seen.routers == ()
    assert any("Cloud Router demo-nat" in n for n in plan_delete(PROJECT, ZONE, "demo").notes)


def test_a_rerun_cannot_turn_an_existing_cluster_private_or_public() -> None:
    public = CASES["v6e-256-x2-spot"][1]
    with live(FakeNet()) as env:
        assert env.run(env.plan(SPEC), ref_of(SPEC)).ok
        assert env.provider.observe(ref_of(SPEC)).private is True
        assert env.plan(SPEC).steps  # the same flags again: fine
        with pytest.raises(UserError, match="exists with private nodes"):
            env.plan(replace(public, options=GkeOptions()))
    with live(FakeNet()) as env:
        assert env.run(env.plan(public), ref_of(public)).ok
        with pytest.raises(UserError, match="exists with public nodes"):
            env.plan(replace(public, options=GkeOptions(private=True)))


def test_a_private_endpoint_subnetwork_is_the_current_field_and_implies_the_endpoint() -> None:
    plan = plan_create(with_options(private_endpoint_subnetwork="cp-subnet"))
    step = next(s for s in plan.steps if s.id == "cluster")
    check_request(step.api, "POST", str(step.url), step.body)  # type: ignore[attr-defined]
    cluster = step.body["cluster"]  # type: ignore[attr-defined]
    ip = cluster["controlPlaneEndpointsConfig"]["ipEndpointsConfig"]
    assert ip["privateEndpointSubnetwork"] == f"{SUBNETS}/cp-subnet"
    assert ip["enablePublicEndpoint"] is False  # as XPK: the private endpoint is implied
    assert "privateClusterConfig" not in cluster  # never the deprecated twin
    assert [n for n in plan.notes if "--private-endpoint is implied" in n]
    path = f"projects/{PROJECT}/regions/europe-west4/subnetworks/cp"
    with pytest.raises(UserError, match="not in the cluster's region us-east5"):
        plan_create(with_options(private_endpoint_subnetwork=path))
    with pytest.raises(UserError, match="applies only to a private cluster"):
        plan_create(with_options(private=False, private_endpoint_subnetwork="cp-subnet"))
