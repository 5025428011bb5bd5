"""Which address of a GKE control plane xcli connects to, and which CA it trusts there.

A cluster whose DNS-based endpoint takes external traffic
(`controlPlaneEndpointsConfig.dnsEndpointConfig.allowExternalTraffic`, which xcli turns on for
private clusters, private.py) is reached through it: it works from outside the VPC and
whatever the authorized networks, access is checked by IAM, and its certificate is signed by a
public CA, so the system trust store verifies it and the cluster CA is not used (what
`gcloud container clusters get-credentials --dns-endpoint` writes: a server
https://<endpoint> and no certificate-authority-data;
https://cloud.google.com/kubernetes-engine/docs/concepts/network-isolation). Any other cluster
is reached at its IP endpoint (`endpoint`), verified with `masterAuth.clusterCaCertificate`.
"""

from __future__ import annotations

from typing import Any


def control_plane(cluster: Any) -> tuple[str, str | None]:
    """(endpoint, CA certificate or None for the system trust store) of a container_v1
    Cluster."""
    dns = cluster.control_plane_endpoints_config.dns_endpoint_config
    if dns.allow_external_traffic and dns.endpoint:
        return str(dns.endpoint), None
    return str(cluster.endpoint), cluster.master_auth.cluster_ca_certificate or None


def network_facts(cluster: Any) -> dict[str, Any]:
    """For `cluster describe`: private nodes, and where xcli reaches the control plane."""
    endpoint, ca = control_plane(cluster)
    return {
        "private_nodes": bool(cluster.network_config.default_enable_private_nodes)
        or bool(cluster.private_cluster_config.enable_private_nodes),
        "control_plane": f"{'DNS' if ca is None else 'IP'} endpoint {endpoint}",
    }
