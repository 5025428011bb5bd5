"""Managed Lustre and Parallelstore for real: the Private Service Access check, the ingress
firewall rule and the node recreation, run by the real gateways (REST, GAPIC over REST)
against FakeGoogle through `responses`. What a live run sends equals what the dry-run printed,
with the references filled in; without PSA nothing is created."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.storage.fake_google import NUMBER, FakeGoogle, served
from tests.storage.test_storage_live import WHERE, Env
from tests.support.core import validate_core
from tests.support.fakekube import FakeKube
from xcli.gateways.backoff import Timing
from xcli.gateways.google.compute import ComputeGateway
from xcli.gateways.google.container import ContainerGateway
from xcli.gateways.google.rest import RestGateway
from xcli.storage.service import StorageGateways

INSTANCE = "projects/my-proj/locations/us-east5-b/instances/scratch"
NETWORK = f"projects/{NUMBER}/global/networks/default"
PSA = {
    "network": NETWORK,
    "reservedPeeringRanges": ["lustre-range"],
    "service": "services/servicenetworking.googleapis.com",  # servicenetworking.v1 Connection
}
RANGE = {
    "name": "lustre-range",
    "address": "10.90.0.0",
    "prefixLength": 20,
    "purpose": "VPC_PEERING",
    "network": "https://www.googleapis.com/compute/v1/projects/my-proj/global/networks/default",
}
PV = "/api/v1/persistentvolumes/xcli-default-scratch"
ATTACH = ["attach", "scratch", "--type", "lustre", "--instance", "scratch", *WHERE]


@pytest.fixture
def env() -> Iterator[Env]:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession
    from google.cloud import container_v1

    kube, google = FakeKube(), FakeGoogle()
    timing = Timing(sleep=lambda _s, _e: None, rand=lambda: 0.5)
    session = AuthorizedSession(AnonymousCredentials())  # type: ignore[no-untyped-call]
    client = container_v1.ClusterManagerClient(credentials=AnonymousCredentials(), transport="rest")
    gateways = StorageGateways(
        rest=RestGateway(session, timing=timing),
        container=lambda: ContainerGateway(client, timing=timing),
        compute=lambda: ComputeGateway(session, timing=timing),
        sleep=lambda _s, _e: None,
    )
    with served(google):
        yield Env(kube, google, gateways)


def lustre(google: FakeGoogle) -> None:
    google.instances[INSTANCE] = {
        "name": INSTANCE,
        "filesystem": "scratch",
        "capacityGib": "18000",
        "network": "projects/my-proj/global/networks/default",
        "mountPoint": "10.90.0.2@tcp:/scratch",
    }


def psa(google: FakeGoogle) -> None:
    google.connections.append(PSA)
    google.addresses.append(RANGE)


def writes(google: FakeGoogle) -> list[tuple[str, str, Any]]:
    return [c for c in google.calls if c[0] != "GET"]


def test_attach_lustre_creates_the_rule_and_recreates_the_nodes(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    lustre(env.google)
    psa(env.google)
    planned = env.dry(ATTACH, capsys)
    assert env.google.calls == []  # the dry-run read nothing
    code, _, err = env.run(ATTACH, capsys)
    assert code == 1 and "needs confirmation" in err  # recreating nodes evicts pods: asks
    assert writes(env.google) == [] and env.kube.patches() == []
    code, _, err = env.run([*ATTACH, "--yes"], capsys)
    assert code == 0, err

    reads = [u for m, u, _ in env.google.calls if "servicenetworking" in u]
    assert reads == [
        planned["psa"]["reads"][0]["request"]["url"]
        .replace("${project-number.number}", NUMBER)
        .replace("${read-source.network}", "default")
    ]
    [(_, _, rule)] = [c for c in env.google.calls if c[0] == "POST" and "firewalls" in c[1]]
    want = planned["firewall"]["create"]["request"]["body"]
    assert rule == {
        **want,
        "network": "projects/my-proj/global/networks/default",
        "sourceRanges": ["10.90.0.0/20"],
    }
    assert rule["allowed"] == [{"IPProtocol": "tcp", "ports": ["988"]}]

    updates = [b["update"] for m, u, b in env.google.calls if m == "PUT" and "container" in u]
    template = planned["recreate-nodes"]["update"]["request"]["body"]["update"]
    assert updates == [
        planned["addon"]["request"]["body"]["update"],
        *({**template, "desiredNodePoolId": n} for n in ("default-pool", "tpu-pool")),
    ]
    assert env.google.upgraded == ["default-pool", "tpu-pool"]
    pv = env.applied()[PV]
    attrs = pv["spec"]["csi"]["volumeAttributes"]
    assert attrs == {
        "ip": "10.90.0.2",
        "filesystem": "scratch",
        "mountpoint": "10.90.0.2@tcp:/scratch",
    }
    validate_core(pv)
    # the firewall and the cluster changes came after the PSA read
    first_write = next(i for i, c in enumerate(env.google.calls) if c[0] != "GET")
    psa_read = next(i for i, c in enumerate(env.google.calls) if "servicenetworking" in c[1])
    assert psa_read < first_write


def test_a_rule_and_a_driver_already_there_are_left_alone(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    lustre(env.google)
    psa(env.google)
    env.google.addons["lustreCsiDriverConfig"] = True
    env.google.firewalls["theirs"] = {
        "name": "theirs",
        "network": RANGE["network"],
        "direction": "INGRESS",
        "sourceRanges": ["10.0.0.0/8"],
        "allowed": [{"IPProtocol": "tcp", "ports": ["900-1000"]}],
    }
    code, _, err = env.run(ATTACH, capsys)  # nothing disruptive left: no question
    assert code == 0, err
    assert writes(env.google) == []
    assert env.google.upgraded == [] and set(env.google.firewalls) == {"theirs"}
    assert env.applied()[PV]["spec"]["csi"]["volumeAttributes"]["ip"] == "10.90.0.2"


def test_a_rule_that_misses_the_nodes_does_not_count(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    lustre(env.google)
    psa(env.google)
    env.google.addons["lustreCsiDriverConfig"] = True
    env.google.firewalls["tagged"] = {
        "name": "tagged",
        "network": RANGE["network"],
        "direction": "INGRESS",
        "sourceRanges": ["10.90.0.0/20"],
        "allowed": [{"IPProtocol": "tcp", "ports": ["988"]}],
        "targetTags": ["lustre-clients"],
    }
    code, _, err = env.run(ATTACH, capsys)
    assert code == 0, err
    assert set(env.google.firewalls) == {"tagged", "xcli-demo-lustre"}


def test_without_private_service_access_nothing_is_created(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    lustre(env.google)
    code, out, err = env.run([*ATTACH, "--yes"], capsys)
    assert code == 1
    # like the reservation pre-flight: the step fails with the reason and the fix, the rest is
    # skipped, and the command ends with the one error naming the step
    [failed] = [line for line in out.splitlines() if "FAILED" in line]
    assert failed.strip().startswith(
        "FAILED  psa: network default has no Private Service Access: Managed Lustre needs "
        "Private Service Access on it; nothing was created (hint: "
    )
    assert (
        "gcloud compute addresses create xcli-psa-default --global --purpose=VPC_PEERING "
        "--prefix-length=20 --network=default --project=my-proj && gcloud services "
        "vpc-peerings connect --service=servicenetworking.googleapis.com "
        "--ranges=xcli-psa-default --network=default --project=my-proj)"
    ) in failed
    assert err.splitlines()[-2] == "error: 1 step(s) failed: psa"
    assert writes(env.google) == [] and env.kube.patches() == []


def test_a_connection_whose_range_is_gone_is_refused(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    lustre(env.google)
    env.google.connections.append(PSA)  # no global address of that name
    code, out, _ = env.run([*ATTACH, "--yes"], capsys)
    assert code == 1 and "peers through range(s) lustre-range, which are not" in out
    assert writes(env.google) == []


def test_create_lustre_checks_the_network_before_the_instance(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["create", "scratch", "--type", "lustre", "--size", "18000GB", *WHERE, "--yes"]
    code, _, err = env.run(args, capsys)
    assert code == 1 and "no Private Service Access" in err
    assert writes(env.google) == [] and env.google.instances == {}

    psa(env.google)
    planned = env.dry(args, capsys)
    code, _, err = env.run(args, capsys)
    assert code == 0, err
    [(_, _, body)] = [c for c in env.google.calls if c[0] == "POST" and "lustre" in c[1]]
    assert body == planned["create"]["request"]["body"]
    methods = [(m, u.split("/")[2]) for m, u, _ in env.google.calls if m != "GET"]
    assert methods[:2] == [("POST", "compute.googleapis.com"), ("POST", "lustre.googleapis.com")]
    assert "xcli-demo-lustre" in env.google.firewalls
    attrs = env.applied()[PV]["spec"]["csi"]["volumeAttributes"]
    assert (attrs["ip"], attrs["filesystem"]) == ("10.90.0.2", "scratch")


def test_attach_parallelstore_opens_every_tcp_port(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "projects/my-proj/locations/us-east5-b/instances/ps"
    env.google.instances[name] = {
        "name": name,
        "capacityGib": "12000",
        "network": "projects/my-proj/global/networks/default",
        "accessPoints": ["10.90.0.5", "10.90.0.6"],
    }
    psa(env.google)
    args = ["attach", "ps", "--type", "parallelstore", "--instance", "ps", *WHERE]
    code, _, err = env.run(args, capsys)
    assert code == 0, err
    rule = env.google.firewalls["xcli-demo-parallelstore"]
    assert rule["allowed"] == [{"IPProtocol": "tcp"}]
    assert rule["sourceRanges"] == ["10.90.0.0/20"]
    assert env.google.upgraded == []  # only Lustre recreates nodes
    pv = env.applied()["/api/v1/persistentvolumes/xcli-default-ps"]
    assert pv["spec"]["csi"]["volumeAttributes"]["accessPoints"] == "10.90.0.5,10.90.0.6"
    assert json.loads(json.dumps(pv)) == pv
