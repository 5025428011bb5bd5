"""xcli reaches a private cluster's control plane through its DNS endpoint: the server is
https://<dns endpoint> and the certificate is checked against the system trust store (public
web PKI), not the cluster CA. Clusters read through the real container client (REST, responses)."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

from tests.gateways.kube.test_kube_tls import Handler, server  # noqa: F401  (the fixture)
from tests.plan.gke_cases import CASES
from tests.support.fake_compute import FakeNet
from tests.support.gke_live import live, ref_of
from xcli.errors import CloudError
from xcli.gateways.kube.api import KubeApi
from xcli.providers.gke.access import KubeConnector

DNS = "gke-0123456789abcdef-my-project.us-east5.gke.goog"
CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\n...\n").decode()


def connect_to(fake: FakeNet, dns: dict[str, object]) -> tuple[str, str | None]:
    """Create the private golden cluster, give it the output fields GKE fills in, and return
    what KubeConnector asks the Kubernetes API factory for."""
    spec = CASES["private-authorized-nat"][1]
    asked: list[tuple[str, str | None]] = []
    with live(fake) as env:
        assert env.run(env.plan(spec), ref_of(spec)).ok
        cluster = next(iter(fake.clusters.values()))
        cluster["endpoint"] = "34.1.2.3"
        cluster["masterAuth"] = {"clusterCaCertificate": CA}
        cluster["controlPlaneEndpointsConfig"]["dnsEndpointConfig"] = dns
        connector = KubeConnector(env.provider.container, lambda e, ca: asked.append((e, ca)))  # type: ignore[arg-type,func-returns-value]
        connector("projects/my-project/locations/us-east5/clusters/demo")
    return asked[0]


def test_a_private_cluster_is_reached_at_its_dns_endpoint_without_the_cluster_ca() -> None:
    got = connect_to(FakeNet(), {"allowExternalTraffic": True, "endpoint": DNS})
    assert got == (DNS, None)


def test_without_external_dns_traffic_the_ip_endpoint_and_cluster_ca_are_used() -> None:
    got = connect_to(FakeNet(), {"allowExternalTraffic": False, "endpoint": DNS})
    assert got == ("34.1.2.3", CA)


@pytest.mark.skipif(not shutil.which("openssl"), reason="needs the openssl command")
def test_the_dns_path_trusts_the_system_store_not_a_cluster_ca(
    server: tuple[str, Path],  # noqa: F811
) -> None:
    """A server whose certificate only the cluster CA signed is refused without that CA (as
    the DNS endpoint is used), and accepted with it (the IP endpoint)."""
    endpoint, cert = server
    with pytest.raises(CloudError, match="cannot reach the cluster"):
        KubeApi(endpoint, None, lambda: "tok").get("v1", "ConfigMap", "x", "default")
    ca = base64.b64encode(cert.read_bytes()).decode()
    assert KubeApi(endpoint, ca, lambda: "tok").get("v1", "ConfigMap", "x", "default")
    assert Handler.seen[-1][1] == "Bearer tok"


def test_describe_says_whether_nodes_are_private_and_how_xcli_connects() -> None:
    spec = CASES["private-authorized-nat"][1]
    fake = FakeNet()
    with live(fake) as env:
        assert env.run(env.plan(spec), ref_of(spec)).ok
        cluster = next(iter(fake.clusters.values()))
        cluster["endpoint"] = "34.1.2.3"
        cluster["controlPlaneEndpointsConfig"]["dnsEndpointConfig"]["endpoint"] = DNS
        info = env.provider.describe(ref_of(spec))
    assert info["private_nodes"] is True
    assert info["control_plane"] == f"DNS endpoint {DNS}"
