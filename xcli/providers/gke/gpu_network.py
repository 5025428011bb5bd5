"""The GPUDirect network stack of a GKE GPU cluster, per family, as plain values (pure).

Which VPCs, subnets and firewall rules a GPU node pool needs, and the request bodies that
create them. The facts, per family (`Accelerator.gpu_network`):

- "tcpx" (A3 High, a3-highgpu-8g): 4 extra VPCs of one subnet each; "tcpxo" (A3 Mega,
  a3-megagpu-8g): 8. MTU 8244 (Cluster Toolkit examples gke-a3-highgpu/gke-a3-megagpu; Google's
  "For A3 Mega nodes: Use an MTU of 8244",
  https://cloud.google.com/vertex-ai/docs/training/managed-training/networking). Subnets
  192.168.<i>.0/24 and a firewall rule allowing tcp/udp/icmp from 192.168.0.0/16 (XPK's A3 High
  network, https://github.com/AI-Hypercomputer/xpk src/xpk/core/network.py). NICs are gVNIC,
  GKENetworkParamSet deviceMode NetDevice, Network objects vpc1..vpcN (the names Google's
  TCPX/TCPXO NCCL tests put in the pod annotations,
  https://github.com/GoogleCloudPlatform/container-engine-accelerators).
- "rdma" (A3 Ultra, A4, A4X): one more gVNIC VPC (`<cluster>-net-1`, subnet 192.168.64.0/18,
  the same firewall rule) and one RDMA VPC on the zone's RoCE network profile
  (`<zone>-vpc-roce`, https://cloud.google.com/vpc/docs/rdma-network-profiles) with one subnet
  per GPU (8, or 4 on A4X): cidrsubnet(192.168.128.0/18, ceil(log2(n)), i), MTU 8896, REGIONAL
  routing and no firewall rule (an RDMA VPC takes none). Network objects gvnic-1 and rdma-0..
  (Cluster Toolkit gke-a3-ultragpu / gke-a4 / gke-a4x v1.94.0 examples and its gpu-rdma-vpc
  module, https://github.com/GoogleCloudPlatform/cluster-toolkit).

Each cluster owns its networks: every name starts with the cluster's name, and every resource's
description says xcli made it for that cluster. `cluster delete` finds them by those two facts.
"""

from __future__ import annotations

import ipaddress
import math
import re
from dataclasses import dataclass
from typing import Any

from xcli.catalog.topology import check_domain
from xcli.errors import UserError
from xcli.plan.compute import COMPUTE
from xcli.providers.gke import dra_driver
from xcli.spec import ClusterSpec

NAME_LIMIT = 63  # Compute Engine resource names: RFC 1035, at most 63 characters
INTERNAL_SOURCE = "192.168.0.0/16"
MTU_TCPX = 8244
MTU_RDMA = 8896


@dataclass(frozen=True)
class Subnet:
    name: str
    network: str
    cidr: str
    k8s_name: str  # the GKENetworkParamSet and Network object of this NIC
    device_mode: str  # GKENetworkParamSet.spec.deviceMode: NetDevice or RDMA


@dataclass(frozen=True)
class Vpc:
    name: str
    mtu: int
    subnets: tuple[Subnet, ...]
    firewall: str | None  # the rule allowing internal traffic; None on an RDMA VPC
    profile: str | None = None  # the network profile (RDMA VPCs only)


@dataclass(frozen=True)
class GpuNetwork:
    stack: str  # tcpx, tcpxo, rdma
    vpcs: tuple[Vpc, ...]

    @property
    def nics(self) -> tuple[Subnet, ...]:
        """The extra NICs of a node, in NIC order."""
        return tuple(s for v in self.vpcs for s in v.subnets)


def _gpunets(cluster: str, count: int) -> tuple[Vpc, ...]:
    vpcs = []
    for i in range(1, count + 1):
        net = f"{cluster}-gpunet-{i}"
        sub = Subnet(f"{net}-sub", net, f"192.168.{i}.0/24", f"vpc{i}", "NetDevice")
        vpcs.append(Vpc(net, MTU_TCPX, (sub,), f"{net}-internal"))
    return tuple(vpcs)


def rdma_cidrs(count: int) -> list[str]:
    """Cluster Toolkit's gpu-rdma-vpc split of 192.168.128.0/18 into `count` subnets."""
    bits = math.ceil(math.log2(count)) if count > 1 else 0
    block = ipaddress.ip_network("192.168.128.0/18")
    return [str(n) for n in list(block.subnets(prefixlen_diff=bits))[:count]]


def _rdma(cluster: str, project: str, zone: str, count: int) -> tuple[Vpc, ...]:
    net1 = f"{cluster}-net-1"
    gvnic = Vpc(
        net1,
        MTU_RDMA,
        (Subnet(f"{cluster}-sub-1", net1, "192.168.64.0/18", "gvnic-1", "NetDevice"),),
        f"{cluster}-internal-1",
    )
    rdma = f"{cluster}-rdma-net"
    subnets = tuple(
        Subnet(f"{cluster}-rdma-sub-{i}", rdma, cidr, f"rdma-{i}", "RDMA")
        for i, cidr in enumerate(rdma_cidrs(count))
    )
    profile = f"projects/{project}/global/networkProfiles/{zone}-vpc-roce"
    return (gvnic, Vpc(rdma, MTU_RDMA, subnets, None, profile))


def gpu_network(spec: ClusterSpec) -> GpuNetwork | None:
    """The stack `spec`'s GPU needs, or None (TPUs, and GPUs without GPUDirect)."""
    accel = spec.accelerator
    stack = accel.gpu_network if accel.kind == "gpu" else None
    if stack == "tcpx":
        return GpuNetwork(stack, _gpunets(spec.name, 4))
    if stack == "tcpxo":
        return GpuNetwork(stack, _gpunets(spec.name, 8))
    if stack == "rdma":
        # one ConnectX-7 RDMA NIC per GPU (https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth)
        return GpuNetwork(stack, _rdma(spec.name, spec.project, spec.zone, accel.chips_per_vm))
    return None


def is_a4x(spec: ClusterSpec) -> bool:
    return spec.accelerator.kind == "gpu" and spec.accelerator.topology == "1x72"


def check(spec: ClusterSpec) -> None:
    """Refuse, before any call, a cluster name that leaves no room for the derived names, and
    an A4X node count that does not fit one NVLink domain."""
    net = gpu_network(spec)
    if net is not None:
        names = [
            n for v in net.vpcs for n in (v.name, v.firewall or "", *(s.name for s in v.subnets))
        ]
        longest = max(names, key=len)
        if len(longest) > NAME_LIMIT:
            keep = NAME_LIMIT - (len(longest) - len(spec.name))
            raise UserError(
                f"network resource name {longest!r} would be longer than Compute Engine's "
                f"{NAME_LIMIT} characters",
                hint=f"use a cluster name of at most {keep} characters",
            )
    check_domain(spec.accelerator, spec.num_nodes)
    check_flex_placement(spec)
    dra_driver.check(spec)


def check_flex_placement(spec: ClusterSpec) -> None:
    """A4X needs its NVL72 workload policy (COMPACT placement), which GKE takes neither with
    queued provisioning nor with flex-start on a4x- machines (cluster-toolkit@1047080
    modules/compute/gke-node-pool/main.tf l.391-393: "placement_policy cannot be COMPACT when
    enable_queued_provisioning is true, unless using TPUs"; l.451-459: compact placement with
    flex-start "only supported for A3 Ultra, A4, and H4D"). Without the policy the 18 nodes
    share no NVLink domain, so the combination has no working form: refused before any call."""
    if is_a4x(spec) and spec.capacity.kind == "flex-start":
        raise UserError(
            f"--flex-start on A4X ({spec.accelerator.name}): GKE takes no compact placement "
            "(the NVLink domain's workload policy) with queued provisioning or flex-start on "
            "a4x- machines",
            hint="use --reservation NAME (A4X capacity comes as a dense reservation, as Cluster "
            "Toolkit's gke-a4x blueprint consumes it), or --spot / --on-demand",
        )


def _description(spec: ClusterSpec) -> str:
    return f"created by xcli for GKE cluster {spec.name}"


def owned_pattern(cluster: str) -> re.Pattern[str]:
    """Names `cluster delete` may remove: exactly the names this module derives."""
    c = re.escape(cluster)
    return re.compile(
        rf"^{c}-(gpunet-\d+(-sub|-internal)?|net-1|sub-1|internal-1|rdma-net|rdma-sub-\d+)$"
    )


def is_owned(cluster: str, name: str, description: str) -> bool:
    return bool(owned_pattern(cluster).match(name)) and description == (
        f"created by xcli for GKE cluster {cluster}"
    )


def network_body(spec: ClusterSpec, vpc: Vpc) -> dict[str, Any]:
    """compute.networks.insert: a custom-mode VPC."""
    body: dict[str, Any] = {
        "name": vpc.name,
        "description": _description(spec),
        "autoCreateSubnetworks": False,
        "mtu": vpc.mtu,
    }
    if vpc.profile:
        body["routingConfig"] = {"routingMode": "REGIONAL"}
        body["networkProfile"] = vpc.profile  # create-time only (Network.networkProfile)
    return body


def network_link(project: str, name: str) -> str:
    return f"projects/{project}/global/networks/{name}"


def subnet_body(spec: ClusterSpec, subnet: Subnet) -> dict[str, Any]:
    """compute.subnetworks.insert."""
    return {
        "name": subnet.name,
        "description": _description(spec),
        "network": network_link(spec.project, subnet.network),
        "ipCidrRange": subnet.cidr,
        "region": spec.region,
        "stackType": "IPV4_ONLY",
    }


def firewall_body(spec: ClusterSpec, vpc: Vpc) -> dict[str, Any]:
    """compute.firewalls.insert: all TCP/UDP ports and ICMP between the cluster's GPU NICs."""
    return {
        "name": vpc.firewall,
        "description": _description(spec),
        "network": network_link(spec.project, vpc.name),
        "direction": "INGRESS",
        "priority": 1000,
        "sourceRanges": [INTERNAL_SOURCE],
        "allowed": [
            {"IPProtocol": "tcp", "ports": ["0-65535"]},
            {"IPProtocol": "udp", "ports": ["0-65535"]},
            {"IPProtocol": "icmp"},
        ],
    }


def network_url(project: str, name: str | None = None) -> str:
    base = f"{COMPUTE}/projects/{project}/global/networks"
    return f"{base}/{name}" if name else base


def firewall_url(project: str, name: str | None = None) -> str:
    base = f"{COMPUTE}/projects/{project}/global/firewalls"
    return f"{base}/{name}" if name else base


def subnet_url(project: str, region: str, name: str | None = None) -> str:
    base = f"{COMPUTE}/projects/{project}/regions/{region}/subnetworks"
    return f"{base}/{name}" if name else base


def with_cluster_network(spec: ClusterSpec, body: dict[str, Any]) -> dict[str, Any]:
    """The cluster body with multi-networking on (it needs Dataplane V2, which xcli always sets).
    container.v1 NetworkConfig.enableMultiNetworking; immutable after creation. On A4X also the
    DRA beta APIs the NVIDIA DRA driver needs (dra_driver.py)."""
    if gpu_network(spec) is None:
        return body
    cluster = dict(body["cluster"])
    network = dict(cluster.get("networkConfig") or {})
    network["datapathProvider"] = "ADVANCED_DATAPATH"
    network["enableMultiNetworking"] = True
    cluster["networkConfig"] = network
    return dra_driver.with_beta_apis(spec, {**body, "cluster": cluster})


def with_pool_network(spec: ClusterSpec, body: dict[str, Any], policy: str) -> dict[str, Any]:
    """The GPU pool body with one additional node network per extra NIC, in NIC order
    (container.v1 NodeNetworkConfig.additionalNodeNetworkConfigs: VPC and subnet names), gVNIC,
    and on A4X the NVLink-domain workload policy."""
    net = gpu_network(spec)
    if net is None:
        return body
    pool = dict(body["nodePool"])
    config = dict(pool["config"])
    config["gvnic"] = {"enabled": True}
    pool["config"] = config
    extra = [{"network": s.network, "subnetwork": s.name} for s in net.nics]
    pool["networkConfig"] = {
        **(pool.get("networkConfig") or {}),
        "additionalNodeNetworkConfigs": extra,
    }
    if is_a4x(spec):
        # type COMPACT beside the workload policy's name: what Cluster Toolkit's tested A4X
        # blueprint sends (cluster-toolkit@1047080 examples/gke-a4x/gke-a4x.yaml l.223-235,
        # modules/compute/resource-policy/outputs.tf placement_policy, gke-node-pool/main.tf
        # l.139-146); XPK sends the name alone (core/nodepool.py l.358-365), also accepted.
        pool["placementPolicy"] = {"type": "COMPACT", "policyName": policy}
    return {**body, "nodePool": pool}
