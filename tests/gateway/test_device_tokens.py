"""The server issues device tokens (docs/protocol.md, Identity): a first hello gets one, a token
a client made up is replaced and reaches nothing, every gateway replica knows every other's
tokens, and Redis holds no token, only hashes."""

from __future__ import annotations

import secrets

import pytest
import redis

from boxedin.common.devices import device_hash
from boxedin.common.keys import Keys
from boxedin.gateway.identity import TOKEN_LENGTH, issue, was_issued
from boxedin.supervisor.launcher import Stack

from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


def test_a_token_is_128_random_bits_and_their_mac_and_only_the_key_it_was_made_with_knows_it() -> None:
    key, other = secrets.token_bytes(32), secrets.token_bytes(32)
    tokens = {issue(key) for _ in range(200)}
    assert len(tokens) == 200
    assert all(len(t) == TOKEN_LENGTH and was_issued(t, key) and not was_issued(t, other) for t in tokens)
    token = next(iter(tokens))
    flipped = token[:5] + ("A" if token[5] != "A" else "B") + token[6:]
    for made_up in ("a" * 22, "a" * 43, flipped, token[:-1], token + "A", "!" * 43, ""):
        assert not was_issued(made_up, key), made_up


def test_only_the_canonical_base64_form_of_a_token_is_accepted() -> None:
    """The last of a token's 43 characters carries four bits of it and two that decoding ignores:
    the 3 twins that differ only there decode to the same bytes, and none of them is issued."""
    key = secrets.token_bytes(32)
    token = issue(key)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    twins = [
        token[:-1] + c for c in alphabet if c != token[-1] and alphabet.index(c) >> 2 == alphabet.index(token[-1]) >> 2
    ]
    assert len(twins) == 3
    assert was_issued(token, key) and not any(was_issued(twin, key) for twin in twins)
    # Decoding also skips characters outside the alphabet: a token with one in it is not ours.
    assert not was_issued(token[:-2] + "=" + token[-1], key)


def test_a_first_hello_is_issued_a_token_that_every_gateway_knows(live_stack: Stack) -> None:
    first = Browser(live_stack.url(0))
    try:
        welcome = first.hello()
        token = welcome["device"]
        assert len(token) == TOKEN_LENGTH and welcome["saved"] is None
        first.new_game(mode="mini", opponent="local")
        game = first.game_id
    finally:
        first.close()
    # The same device on the other gateway replica: its token stands, and so does its game.
    again = Browser(live_stack.url(1), device=token)
    try:
        welcome = again.hello(game=game, seq=None)
        assert welcome["device"] == token
        assert welcome["saved"] is not None and welcome["saved"]["game"] == game
        assert again.state is not None and again.state["game"] == game
    finally:
        again.close()


@pytest.mark.parametrize("made_up", ["a" * 22, "a" * 43, "kept-from-an-old-client-0123456789"])
def test_a_token_the_server_did_not_issue_is_replaced_and_reaches_nothing(live_stack: Stack, made_up: str) -> None:
    owner = Browser(live_stack.url())
    try:
        owner.hello()
        owner.new_game(mode="mini", opponent="local")
        game = owner.game_id
    finally:
        owner.close()
    guesser = Browser(live_stack.url(), device=made_up)
    try:
        welcome = guesser.request(type="hello", device=made_up, game=game, seq=0)
        assert welcome["type"] == "welcome" and welcome["device"] != made_up
        assert len(welcome["device"]) == TOKEN_LENGTH and welcome["saved"] is None
        # Nothing of the game came with the welcome: the pong answers before any state could.
        assert guesser.request(type="ping")["type"] == "pong"
        assert guesser.state is None
        refused = guesser.request(type="end_turn", game=game)
        assert refused["type"] == "error" and refused["code"] == "not_your_game"
    finally:
        guesser.close()


def test_redis_keeps_hashes_of_tokens_never_the_tokens(live_stack: Stack) -> None:
    browser = Browser(live_stack.url())
    try:
        token = browser.hello()["device"]
        browser.new_game(mode="mini", opponent="local")
        game = browser.game_id
        browser.request(type="stats")
    finally:
        browser.close()
    client = redis.Redis.from_url(str(live_stack.redis_url))
    try:
        names = [name.decode() for name in client.scan_iter(match=f"{live_stack.key_prefix}*", count=1000)]
        assert not [name for name in names if token in name]
        keys = Keys(live_stack.key_prefix)
        assert keys.saved_game(device_hash(token)) in names
        record = client.hget(keys.game(game), "record")
        assert isinstance(record, bytes) and token.encode() not in record and device_hash(token).encode() in record
    finally:
        client.close()
