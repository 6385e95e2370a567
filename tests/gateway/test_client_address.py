"""The real client address behind trusted proxies (boxedin.gateway.forwarded; docs/protocol.md,
Limits): the standard walk from the right of the one header the proxies write, past every
trusted hop. The whole path, through a real nginx, is tests/gateway/test_behind_nginx.py."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from boxedin.common.settings import Settings
from boxedin.gateway.forwarded import TrustedProxies, parse_address

INGRESS = TrustedProxies.of("10.0.0.0/8, fd00::/8", "x-forwarded-for")


def test_a_peer_outside_the_trusted_networks_is_the_client_whatever_it_sends() -> None:
    assert INGRESS.client_address("203.0.113.9", ["198.51.100.1"]) == "203.0.113.9"
    assert TrustedProxies.of("", "x-forwarded-for").client_address("127.0.0.1", ["198.51.100.1"]) == "127.0.0.1"


def test_the_right_most_address_that_is_not_a_trusted_proxy_is_the_client() -> None:
    # The client forged 192.0.2.66 first; the edge proxy 10.1.1.1 appended its peer 198.51.100.7,
    # the ingress 10.2.2.2 appended the edge proxy's address.
    assert INGRESS.client_address("10.2.2.2", ["192.0.2.66, 198.51.100.7", "10.1.1.1"]) == "198.51.100.7"


def test_a_trusted_peer_without_a_header_is_the_client() -> None:
    assert INGRESS.client_address("10.2.2.2", []) == "10.2.2.2"


def test_trusted_all_the_way_gives_the_left_most_proxy() -> None:
    assert INGRESS.client_address("10.2.2.2", ["10.9.9.9, 10.1.1.1"]) == "10.9.9.9"


def test_an_entry_that_is_no_address_stops_at_the_proxy_after_it() -> None:
    assert INGRESS.client_address("10.2.2.2", ["unknown"]) == "10.2.2.2"
    assert INGRESS.client_address("10.2.2.2", ["198.51.100.7, garbage, 10.1.1.1"]) == "10.1.1.1"


def test_forwarded_for_is_read_when_the_proxies_write_forwarded() -> None:
    proxies = TrustedProxies.of("10.0.0.0/8", "forwarded")
    header = ['for=192.0.2.66;proto=https, for="[2001:db8::7]:4711";by=10.1.1.1', "for=10.1.1.1"]
    assert proxies.client_address("10.2.2.2", header) == "2001:db8::7"
    assert proxies.client_address("10.2.2.2", ["proto=https"]) == "10.2.2.2"


def test_only_the_configured_header_is_read() -> None:
    # X-Forwarded-For is configured: a Forwarded header the client sent goes through the proxy
    # untouched, and the middleware never hands it to the walk (it reads the configured one).
    assert INGRESS.header == "x-forwarded-for"
    assert TrustedProxies.of("10.0.0.0/8", "forwarded").header == "forwarded"


@pytest.mark.parametrize(
    ("written", "address"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("203.0.113.7:4711", "203.0.113.7"),
        ("2001:db8::1", "2001:db8::1"),
        ("[2001:db8::1]:4711", "2001:db8::1"),
        ('"[2001:db8::1]"', "2001:db8::1"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("unknown", None),
        ("_hidden", None),
        ("", None),
    ],
)
def test_addresses_as_proxies_write_them(written: str, address: str | None) -> None:
    parsed = parse_address(written)
    assert (str(parsed) if parsed is not None else None) == address


def test_a_trusted_proxies_setting_that_is_no_network_is_refused_naming_it() -> None:
    with pytest.raises(ValidationError, match=r"'10\.0\.0\.0/33' is not a network"):
        Settings(trusted_proxies="10.0.0.0/8,10.0.0.0/33")
    with pytest.raises(ValidationError, match="client_address_header"):
        Settings(client_address_header="x-real-ip")  # type: ignore[arg-type]
    assert Settings(trusted_proxies="127.0.0.1, ::1, 10.0.0.0/8").trusted_proxies
