"""The Same Wi-Fi link's handshake and channel (boxedin.lan.secure): an honest pair agrees on
the code and talks; a message tampered with, replayed or out of order is refused with a clear
error and leaves the channel as it was; a relay that swaps in keys of its own makes the codes
differ; a joiner that reveals another key than it committed to is refused."""

from __future__ import annotations

import pytest

from boxedin.lan.secure import ChannelError, HostHandshake, JoinerHandshake, Keys


def pair() -> tuple[Keys, Keys]:
    joiner, host = JoinerHandshake(), HostHandshake()
    offer = host.offer(joiner.commit())
    reveal, joiner_keys = joiner.reveal(offer)
    return joiner_keys, host.finish(reveal)


def test_an_honest_pair_shows_one_code_and_talks_both_ways() -> None:
    joiner, host = pair()
    assert joiner.code == host.code
    assert len(joiner.code) == 6 and joiner.code.isdigit()
    assert host.opener.open(joiner.sealer.seal(b'{"t":"hello"}')) == b'{"t":"hello"}'
    assert joiner.opener.open(host.sealer.seal(b"state")) == b"state"
    # A message sealed for one direction does not open in the other.
    with pytest.raises(ChannelError) as refused:
        joiner.opener.open(joiner.sealer.seal(b"echo"))
    assert refused.value.reason == "tampered"


def test_the_plaintext_is_not_on_the_wire() -> None:
    joiner, _host = pair()
    sealed = joiner.sealer.seal(b'{"t":"frame","frame":{"type":"draw","edge":["h",2,3]},"name":"Ann"}')
    for fragment in (b"draw", b"edge", b"Ann", b"frame"):
        assert fragment not in sealed


def test_a_tampered_message_is_refused_and_changes_nothing() -> None:
    joiner, host = pair()
    sealed = bytearray(joiner.sealer.seal(b"draw h 0 1"))
    sealed[-3] ^= 0x40
    with pytest.raises(ChannelError, match="fails authentication") as refused:
        host.opener.open(bytes(sealed))
    assert refused.value.reason == "tampered"
    assert host.opener.seq == 0
    # A changed sequence number is tampering too (it is the associated data and the nonce).
    forged = bytearray(joiner.sealer.seal(b"roll"))
    forged[7] = 0
    with pytest.raises(ChannelError):
        host.opener.open(bytes(forged))
    assert host.opener.seq == 0


def test_a_replayed_message_is_refused_and_changes_nothing() -> None:
    joiner, host = pair()
    first = joiner.sealer.seal(b"roll")
    assert host.opener.open(first) == b"roll"
    with pytest.raises(ChannelError, match="received already") as refused:
        host.opener.open(first)
    assert refused.value.reason == "replayed"
    assert host.opener.seq == 1
    assert host.opener.open(joiner.sealer.seal(b"draw")) == b"draw"


def test_a_message_out_of_order_is_refused_and_changes_nothing() -> None:
    joiner, host = pair()
    first, second = joiner.sealer.seal(b"one"), joiner.sealer.seal(b"two")
    with pytest.raises(ChannelError, match="came before") as refused:
        host.opener.open(second)
    assert refused.value.reason == "out_of_order"
    assert host.opener.seq == 0
    assert host.opener.open(first) == b"one"
    assert host.opener.open(second) == b"two"


def test_a_relay_with_keys_of_its_own_makes_the_codes_differ() -> None:
    joiner, host = JoinerHandshake(), HostHandshake()
    # The relay plays host to the joiner and joiner to the host, with keys of its own.
    relay_as_host, relay_as_joiner = HostHandshake(), JoinerHandshake()
    to_joiner = relay_as_host.offer(joiner.commit())
    offer = host.offer(relay_as_joiner.commit())
    reveal, joiner_keys = joiner.reveal(to_joiner)
    relay_keys_joiner_side = relay_as_host.finish(reveal)
    relay_reveal, relay_keys_host_side = relay_as_joiner.reveal(offer)
    host_keys = host.finish(relay_reveal)
    assert joiner_keys.code == relay_keys_joiner_side.code
    assert host_keys.code == relay_keys_host_side.code
    assert joiner_keys.code != host_keys.code


def test_a_joiner_must_reveal_the_key_it_committed_to() -> None:
    joiner, other, host = JoinerHandshake(), JoinerHandshake(), HostHandshake()
    offer = host.offer(joiner.commit())
    reveal, _ = other.reveal(offer)
    with pytest.raises(ChannelError, match="committed to"):
        host.finish(reveal)


def test_a_stranger_is_not_taken_for_a_joiner() -> None:
    with pytest.raises(ChannelError, match="not a Boxed In joiner"):
        HostHandshake().offer(b"GET / HTTP/1.1\r\n\r\n")
    with pytest.raises(ChannelError, match="offer has"):
        JoinerHandshake().reveal(b"short")
