"""IPv4 CIDR lists as the private-cluster flags take them (pure; the standard library only, so
the CLI can check a flag's value before anything else is imported)."""

from __future__ import annotations

import ipaddress

from xcli.errors import UserError

# GKE accepts up to 50 authorized networks ("up to 50 external networks", container.v1
# MasterAuthorizedNetworksConfig.cidrBlocks).
MAX_AUTHORIZED = 50
RFC1918 = tuple(ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))


def parse_cidrs(text: str, flag: str) -> list[ipaddress.IPv4Network]:
    """'10.1.0.0/16,192.168.0.0/24' -> networks; refuses bad, host-bit and overlapping CIDRs."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise UserError(f"{flag} {text!r} has an empty entry", hint=f"e.g. {flag} 10.1.0.0/16")
    nets = [_one(item, flag) for item in items]
    if len(nets) > MAX_AUTHORIZED:
        raise UserError(
            f"{flag} lists {len(nets)} networks; GKE takes at most {MAX_AUTHORIZED}",
            hint="merge neighbouring ranges into larger ones",
        )
    for n, first in enumerate(nets):
        for second in nets[n + 1 :]:
            if first.overlaps(second):
                raise UserError(
                    f"{flag}: {first} and {second} overlap",
                    hint="list each range once: drop the smaller one or merge them",
                )
    return nets


def _one(item: str, flag: str) -> ipaddress.IPv4Network:
    if "/" not in item:
        raise UserError(
            f"{flag} {item!r} has no prefix length", hint=f"write it as a CIDR, e.g. {item}/32"
        )
    try:
        net = ipaddress.ip_network(item, strict=False)
    except ValueError:
        raise UserError(
            f"{flag} {item!r} is not an IPv4 CIDR", hint="write it like 10.1.0.0/16"
        ) from None
    if not isinstance(net, ipaddress.IPv4Network):
        raise UserError(f"{flag} {item!r} is IPv6", hint="GKE takes IPv4 CIDRs here")
    if str(net) != item:
        raise UserError(f"{flag} {item!r} has host bits set", hint=f"did you mean {net}?")
    return net


def is_internal(cidr: str) -> bool:
    """Inside an RFC 1918 range (https://www.rfc-editor.org/rfc/rfc1918)."""
    net = ipaddress.IPv4Network(cidr)
    return any(net.subnet_of(r) for r in RFC1918)
