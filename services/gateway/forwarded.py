"""The real client address behind the proxies the operator trusts (docs/protocol.md, Limits).

A proxy appends the address it was reached from to ``X-Forwarded-For`` (or adds a ``for=`` to
``Forwarded``, RFC 7239); whatever a client wrote there itself comes first. So the header is read
from the right: the peer and each address after it that is a trusted proxy is passed over, and
the first that is not is the client. A peer outside the trusted networks is the client itself,
whatever it sends. Only the one header the proxies write is read: a client can send the other,
and no proxy appends its peer to that one, so its right-most entry would be the client's word.

``RealClientAddress`` puts the address into the ASGI scope's ``client`` of every HTTP request
and websocket, so every per-address limit and log line (``ws.client``, ``request.client``,
uvicorn's access log) reads the same one."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Sequence
from typing import Literal

from starlette.types import ASGIApp, Receive, Scope, Send

from boxedin.common.networks import Network, parse_networks

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Header = Literal["x-forwarded-for", "forwarded"]
HEADERS: tuple[Header, ...] = ("x-forwarded-for", "forwarded")


def parse_address(text: str) -> Address | None:
    """An address as proxies write one: ``203.0.113.7``, ``203.0.113.7:4711``, ``2001:db8::1``,
    ``[2001:db8::1]:4711``, in quotes or not; an IPv4 address mapped into IPv6 is the IPv4 one.
    None for anything else (``unknown``, an obfuscated ``_name``, garbage)."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


_FOR = re.compile(r'(?:^|;)\s*for\s*=\s*("[^"]*"|[^;,\s]*)', re.IGNORECASE)


def forwarded_chain(values: Iterable[str], header: Header) -> list[str]:
    """The addresses a header's values list, left (the first proxy's peer) to right, as written."""
    chain: list[str] = []
    for value in values:
        for element in value.split(","):
            if header == "x-forwarded-for":
                chain.append(element.strip())
            else:
                # Forwarded: for=, by=, proto=, host= pairs; an element without for= names no hop.
                match = _FOR.search(element)
                if match is not None:
                    chain.append(match.group(1))
    return chain


class TrustedProxies:
    """The proxies whose word about the client is believed (setting ``trusted_proxies``), and the
    header they write (``client_address_header``)."""

    def __init__(self, networks: Sequence[Network], header: Header = "x-forwarded-for") -> None:
        self.networks = tuple(networks)
        self.header = header

    @classmethod
    def of(cls, trusted: str, header: Header) -> TrustedProxies:
        return cls(parse_networks(trusted), header)

    def trusts(self, address: Address | None) -> bool:
        return address is not None and any(address in network for network in self.networks)

    def client_address(self, peer: str, header_values: Iterable[str]) -> str:
        """The client's address: the right-most one of the header's chain, then the peer, that is
        not a trusted proxy. An entry that is no address stops the walk at the proxy after it
        (the right-most trustworthy word), so a malformed chain never lets anyone choose their
        own address."""
        peer_address = parse_address(peer)
        if not self.trusts(peer_address):
            return str(peer_address) if peer_address is not None else peer
        found = str(peer_address)
        for entry in reversed(forwarded_chain(header_values, self.header)):
            address = parse_address(entry)
            if address is None:
                return found
            found = str(address)
            if not self.trusts(address):
                return found
        # Trusted all the way: the left-most proxy is the nearest to a client there is.
        return found


class RealClientAddress:
    """ASGI middleware: every HTTP request's and websocket's ``client`` is its real client's
    address (``TrustedProxies``); the port stays the peer's."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.proxies.networks and scope.get("client"):
            host, port = scope["client"]
            wanted = self.proxies.header.encode("latin-1")
            values = [value.decode("latin-1") for name, value in scope["headers"] if name == wanted]
            scope["client"] = (self.proxies.client_address(host, values), port)
        await self.app(scope, receive, send)
