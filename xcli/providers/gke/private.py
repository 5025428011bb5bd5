"""Private GKE clusters: what the flags mean together, and the container.v1 fields they set.

Field choice (container.v1 discovery document, Cluster): the current fields, never their
deprecated twins for the same setting ("invalid to specify both"):
- private nodes: `networkConfig.defaultEnablePrivateNodes` (not privateClusterConfig's);
- the control plane: `controlPlaneEndpointsConfig`: its DNS endpoint with
  `allowExternalTraffic` (IAM-guarded, reachable from outside the VPC: how xcli talks to the
  cluster, see endpoint.py), and `ipEndpointsConfig` (`enablePublicEndpoint` false for
  --private-endpoint, and also for --private without --authorized-networks: closed by default;
  `authorizedNetworksConfig` for --authorized-networks; `privateEndpointSubnetwork` for
  --private-endpoint-subnetwork, the current field, not privateClusterConfig's deprecated
  twin; XPK's flag of the same name enables the private endpoint with it,
  AI-Hypercomputer/xpk@367c838 src/xpk/commands/cluster.py l.220-228);
- `privateClusterConfig.masterIpv4CidrBlock` only when --master-ipv4-cidr is given: clusters
  whose control plane is reached through Private Service Connect (every new cluster since GKE
  1.29, https://cloud.google.com/kubernetes-engine/docs/concepts/network-overview) need none.
"""

from __future__ import annotations

import copy
import ipaddress
from dataclasses import dataclass
from typing import Any

from xcli.errors import UserError
from xcli.providers.gke import bodies as gke
from xcli.providers.gke import options as gke_opts
from xcli.providers.gke.cidr import is_internal
from xcli.spec import ClusterSpec


@dataclass(frozen=True)
class Private:
    """The private-cluster settings of a spec; `nodes` False means a public cluster."""

    nodes: bool = False
    endpoint: bool = False  # no public IP endpoint (--private-endpoint, or no authorized networks)
    authorized: tuple[str, ...] = ()
    master_cidr: str | None = None
    network: str | None = None
    subnetwork: str | None = None
    endpoint_subnetwork: str | None = None  # projects/P/regions/R/subnetworks/S

    @property
    def network_name(self) -> str:
        return self.network or "default"


def settings(spec: ClusterSpec) -> Private:
    """The settings, after refusing the combinations that mean nothing or lock users out."""
    opts = gke_opts.of(spec)
    subnet = opts.private_endpoint_subnetwork
    nodes, endpoint = opts.private, opts.private_endpoint or bool(subnet)
    authorized, master = opts.authorized_networks, opts.master_ipv4_cidr
    for flag, given in (
        ("--private-endpoint", opts.private_endpoint),
        ("--private-endpoint-subnetwork", bool(subnet)),
        ("--authorized-networks", bool(authorized)),
        ("--master-ipv4-cidr", bool(master)),
    ):
        if given and not nodes:
            raise UserError(
                f"{flag} applies only to a private cluster",
                hint="add --private, or drop " + flag,
            )
    if master:
        _check_master(master[0], authorized)
    if endpoint:
        public = [a for a in authorized if not is_internal(a)]
        if public:
            raise UserError(
                f"--authorized-networks {', '.join(public)}: with --private-endpoint the control "
                "plane has no public IP, so public networks can never reach it",
                hint="list only internal (RFC 1918) ranges of your VPC; from outside it, xcli "
                "uses the cluster's DNS endpoint",
            )
    return Private(
        nodes=nodes,
        # Closed by default: with no authorized networks a public IP endpoint would take
        # requests from any address (the audit's F.A4; XPK's --private authorizes only the
        # caller's IP, AI-Hypercomputer/xpk@367c838 src/xpk/core/cluster_private.py). xcli
        # needs no IP endpoint: it reaches private clusters through the DNS endpoint.
        endpoint=endpoint or (nodes and not authorized),
        authorized=authorized,
        master_cidr=master[0] if master else None,
        network=opts.network,
        subnetwork=opts.subnetwork,
        endpoint_subnetwork=_subnet_path(spec, subnet) if subnet else None,
    )


def _subnet_path(spec: ClusterSpec, subnet: str) -> str:
    """The path GKE takes (projects/*/regions/*/subnetworks/*); a name is in the cluster's
    region, as gcloud's --private-endpoint-subnetwork resolves it."""
    if subnet.startswith("projects/"):
        region = subnet.split("/")[3]
        if region != spec.region:
            raise UserError(
                f"--private-endpoint-subnetwork {subnet} is in {region}, not in the "
                f"cluster's region {spec.region}",
                hint="name a subnetwork of the cluster's region",
            )
        return subnet
    return f"projects/{spec.project}/regions/{spec.region}/subnetworks/{subnet}"


def _check_master(cidr: str, authorized: tuple[str, ...]) -> None:
    net = ipaddress.IPv4Network(cidr)
    if net.prefixlen != 28:
        raise UserError(
            f"--master-ipv4-cidr {cidr} is a /{net.prefixlen}; GKE needs a /28",
            hint="e.g. --master-ipv4-cidr 172.16.0.32/28",
        )
    if not is_internal(cidr):
        raise UserError(
            f"--master-ipv4-cidr {cidr} is not an internal (RFC 1918) range",
            hint="pick an unused /28 in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16",
        )
    for other in authorized:
        if net.overlaps(ipaddress.IPv4Network(other)):
            raise UserError(
                f"--master-ipv4-cidr {cidr} overlaps --authorized-networks {other}",
                hint="the control plane's range must not overlap any other range",
            )


def note(private: Private, explicit: bool) -> str | None:
    """The plan's line for a private control plane that is closed because no network was
    authorized (`explicit`: --private-endpoint was given, which says it already)."""
    if private.endpoint_subnetwork and not explicit:
        return (
            f"--private-endpoint-subnetwork: the control plane's private endpoint is in "
            f"{private.endpoint_subnetwork}, and it gets no public IP endpoint "
            "(--private-endpoint is implied, as in XPK)"
        )
    if not private.nodes or not private.endpoint or explicit:
        return None
    return (
        "--private without --authorized-networks: the control plane gets no public IP "
        "endpoint; xcli and kubectl reach it through its DNS endpoint, where IAM "
        "(container.clusters.connect) decides who gets in. Add --authorized-networks CIDR to "
        "open its IP endpoint to those networks only"
    )


def check_existing(name: str, private: Private, existing: bool | None) -> None:
    """A re-run must not pretend to change what only a new cluster can be (its nodes' IPs)."""
    if existing is None or existing == private.nodes:
        return
    if private.nodes:
        raise UserError(
            f"cluster {name} exists with public nodes; --private applies only when a "
            "cluster is created",
            hint="drop --private to complete it as it is, or create a new cluster",
        )
    raise UserError(
        f"cluster {name} exists with private nodes",
        hint="add --private (and the same network flags) to complete it",
    )


def apply(body: dict[str, Any], private: Private) -> dict[str, Any]:
    """The clusters.create body with the network and private settings added (a copy)."""
    out = copy.deepcopy(body)
    cluster = out["cluster"]
    if private.network:
        cluster["network"] = private.network
    if private.subnetwork:
        cluster["subnetwork"] = private.subnetwork
    if not private.nodes:
        return out
    cluster.setdefault("networkConfig", {})["defaultEnablePrivateNodes"] = True
    ip: dict[str, Any] = {"enabled": True, "enablePublicEndpoint": not private.endpoint}
    if private.authorized:
        blocks = [
            {"cidrBlock": c, "displayName": f"xcli-{n}"} for n, c in enumerate(private.authorized)
        ]
        ip["authorizedNetworksConfig"] = {"enabled": True, "cidrBlocks": blocks}
    if private.endpoint_subnetwork:
        ip["privateEndpointSubnetwork"] = private.endpoint_subnetwork
    cluster["controlPlaneEndpointsConfig"] = {
        "dnsEndpointConfig": {"allowExternalTraffic": True},
        "ipEndpointsConfig": ip,
    }
    if private.master_cidr:
        cluster["privateClusterConfig"] = {"masterIpv4CidrBlock": private.master_cidr}
    return out


def cluster_body(spec: ClusterSpec) -> dict[str, Any]:
    """The clusters.create body of the spec, network and private settings included."""
    return apply(gke.cluster_body(spec), settings(spec))
