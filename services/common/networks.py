"""Lists of IP networks as settings give them (the gateway's trusted proxies)."""

from __future__ import annotations

import ipaddress

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(text: str) -> tuple[Network, ...]:
    """The networks of a comma-separated list of CIDRs (a bare address is a network of one);
    ``ValueError`` names the first that is not one."""
    networks = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not a network (CIDR such as 10.0.0.0/8) or an address") from None
    return tuple(networks)
