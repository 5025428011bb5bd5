"""What Managed Lustre and Parallelstore need from the VPC, as rules over compute.v1 and
servicenetworking.v1 JSON (pure: JSON in, an answer or a refusal out).

- Private Service Access: a servicenetworking.googleapis.com connection on the network, whose
  allocated ranges (compute.v1 global addresses, purpose VPC_PEERING) give the instances their
  addresses. Cluster Toolkit: "PSA is required for all Managed Lustre functionality"
  (examples/gke-a4x/gke-a4x.yaml, `private_service_access`); the Managed Lustre and
  Parallelstore "Configure a VPC network" pages set it up with `gcloud compute addresses create
  --purpose=VPC_PEERING` and `gcloud services vpc-peerings connect`.
- An ingress rule from those ranges: TCP 988 for Lustre (Cluster Toolkit's
  `lustre_firewall_rule` in the same blueprint), every TCP port for Parallelstore (its VPC
  page: `gcloud compute firewall-rules create ... --allow=tcp --source-ranges=<the range>`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from xcli.errors import ConfigError, InternalError
from xcli.plan.storage_types import NetworkNeeds, unit

SERVICE = "servicenetworking.googleapis.com"


def needs(storage: str) -> NetworkNeeds:
    """What storage type `storage` needs from the VPC (its unit's `network`: the TCP ports to
    open from the PSA ranges, the prefix length of the range the fix allocates, its name)."""
    found = unit(storage).network
    if found is None:
        raise InternalError(f"storage type {storage} needs nothing from the network")
    return found


def allowed_text(storage: str) -> str:
    ports = needs(storage).ports
    return f"tcp:{','.join(ports)}" if ports else "tcp (every port)"


def no_psa(storage: str, project: str, network: str, why: str) -> ConfigError:
    """The refusal, with the two commands that set Private Service Access up."""
    rng = f"xcli-psa-{network}"[:63]
    fix = (
        f"gcloud compute addresses create {rng} --global --purpose=VPC_PEERING "
        f"--prefix-length={needs(storage).prefix} --network={network} --project={project} && "
        f"gcloud services vpc-peerings connect --service={SERVICE} --ranges={rng} "
        f"--network={network} --project={project}"
    )
    return ConfigError(
        f"network {network} {why}: {needs(storage).product} needs Private Service Access on it; "
        "nothing was created",
        hint=f"set it up (needs roles/compute.networkAdmin), then run this again: {fix}",
    )


def peering_ranges(connections: Iterable[Mapping[str, Any]]) -> list[str]:
    """Names of the allocated ranges of the servicenetworking connections."""
    names: list[str] = []
    for conn in connections:
        if not str(conn.get("service", SERVICE)).endswith(SERVICE):  # "services/<name>"
            continue
        names += [str(n) for n in conn.get("reservedPeeringRanges") or [] if n not in names]
    return names


def cidrs(addresses: Iterable[Mapping[str, Any]], names: Sequence[str], network: str) -> list[str]:
    """CIDR blocks of the named VPC_PEERING global addresses of `network`, in name order."""
    found: dict[str, str] = {}
    for addr in addresses:
        name = str(addr.get("name", ""))
        if name not in names or addr.get("purpose") != "VPC_PEERING":
            continue
        if not str(addr.get("network", "")).endswith(f"/networks/{network}"):
            continue
        if addr.get("address") and addr.get("prefixLength") is not None:
            found[name] = f"{addr['address']}/{addr['prefixLength']}"
    return [found[n] for n in names if n in found]


def covering(
    rules: Iterable[Mapping[str, Any]], network: str, ranges: Sequence[str], storage: str
) -> str | None:
    """The name of an enabled ingress rule of `network` that lets the type's TCP ports in from
    every PSA range to every VM of the network, if there is one. Rules limited to target tags
    or service accounts do not count: they may miss the cluster's nodes."""
    for rule in rules:
        if rule.get("disabled") or rule.get("direction", "INGRESS") != "INGRESS":
            continue
        if not str(rule.get("network", "")).endswith(f"/networks/{network}"):
            continue
        if rule.get("targetTags") or rule.get("targetServiceAccounts"):
            continue
        if not _allows(rule.get("allowed") or [], needs(storage).ports):
            continue
        sources = [str(s) for s in rule.get("sourceRanges") or []]
        if ranges and all(_within(r, sources) for r in ranges):
            return str(rule.get("name", ""))
    return None


def _allows(allowed: Iterable[Mapping[str, Any]], ports: tuple[str, ...]) -> bool:
    """Whether one `allowed` entry lets in TCP on every port wanted (no ports: all of them)."""
    wanted = [_span(p) for p in ports] or [(1, 65535)]
    for entry in allowed:
        if str(entry.get("IPProtocol", "")).lower() not in ("tcp", "all", "6"):
            continue
        spans = [_span(str(p)) for p in entry.get("ports") or []] or [(0, 65535)]
        if all(any(lo <= w_lo and w_hi <= hi for lo, hi in spans) for w_lo, w_hi in wanted):
            return True
    return False


def _span(port: str) -> tuple[int, int]:
    low, _, high = port.partition("-")
    return int(low), int(high or low)


def _within(cidr: str, sources: Iterable[str]) -> bool:
    want = ipaddress.ip_network(cidr, strict=False)
    for source in sources:
        try:
            have = ipaddress.ip_network(source, strict=False)
        except ValueError:
            continue
        if have.version == want.version and want.subnet_of(have):  # type: ignore[arg-type]
            return True
    return False
