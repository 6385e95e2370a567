"""An action sent again with the same id is answered, not applied again (docs/protocol.md,
Actions sent again): through another connection and another gateway replica, its first answer
comes back (`ack` with the seq it made, or the same error), and the game stands where it was."""

from __future__ import annotations

from typing import Any

import pytest

from boxedin.supervisor.launcher import Stack
from boxedin.tools.load.loadtest import open_edges

from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


def _rolled_local_game(browser: Browser) -> tuple[str, int]:
    """A new local Mini game, rolled: its id and seq."""
    browser.hello()
    browser.new_game(mode="mini", opponent="local")
    browser.act(type="roll")
    return browser.game_id, browser.seq


def test_an_action_sent_again_through_another_gateway_is_answered_with_its_first_result(live_stack: Stack) -> None:
    player = Browser(live_stack.url(0))
    try:
        game, seq = _rolled_local_game(player)
        edge = open_edges(player.state or {})[0]
        draw = {"type": "draw", "game": game, "edge": edge, "seq": seq, "id": "page-7f3a-12"}
        player.send(**draw)
        while player.seq < seq + 1:
            player.receive()
        device = player.device
    finally:
        player.close()  # the answer "was lost": the player reconnects elsewhere and sends it again
    again = Browser(live_stack.url(1), device=device)
    try:
        again.hello(game=game, seq=None)
        assert again.seq == seq + 1
        assert again.request(**draw) == {"type": "ack", "reply_to": "page-7f3a-12", "seq": seq + 1}
        # Still at that seq: the pong comes after anything the repeat could have caused.
        assert again.request(type="ping")["type"] == "pong"
        assert again.seq == seq + 1 and not again.updates
        # The same id with another seq is another action, refused on its own merits.
        other = again.request(**{**draw, "seq": seq + 1})
        # (the edge is taken, or the roll was used up and the next roll is due)
        assert other["type"] == "error" and other["code"] in ("edge_taken", "roll_due"), other
    finally:
        again.close()


def test_a_refused_action_sent_again_gets_the_same_refusal(live_stack: Stack) -> None:
    browser = Browser(live_stack.url())
    try:
        game, seq = _rolled_local_game(browser)
        outside = {"type": "draw", "game": game, "edge": ["h", 9, 9], "seq": seq, "id": "page-b1-3"}
        first = browser.request(**outside)
        assert first["type"] == "error" and first["code"] == "illegal_edge"
        assert browser.request(**outside) == first
        # Another device's action with the same id is its own: here, not its game.
        stranger = Browser(live_stack.url())
        try:
            stranger.hello()
            refused = stranger.request(**outside)
            assert refused["type"] == "error" and refused["code"] == "not_your_game"
        finally:
            stranger.close()
        assert browser.request(type="ping")["type"] == "pong" and browser.seq == seq
    finally:
        browser.close()


def _frames_until_pong(browser: Browser) -> list[dict[str, Any]]:
    """Every frame up to the answer to a ping: anything the actions before it caused came first."""
    ping = browser.send(type="ping")
    frames = []
    while (frame := browser.receive())["type"] != "pong" or frame.get("reply_to") != ping:
        frames.append(frame)
    return frames


def test_an_action_sent_twice_at_once_is_applied_once_and_the_other_sending_acknowledged(live_stack: Stack) -> None:
    """Two tabs of one device, on two gateway replicas, send the same action with the same id at
    the same moment (the first sending still on its way): one applies it, the other is told it
    was applied, and the game moves on by one."""
    first = Browser(live_stack.url(0))
    try:
        game, seq = _rolled_local_game(first)
        second = Browser(live_stack.url(1), device=first.device)
        try:
            second.hello(game=game, seq=None)
            assert second.seq == seq
            edge = open_edges(first.state or {})[0]
            draw = {"type": "draw", "game": game, "edge": edge, "seq": seq, "id": "page-5c-9"}
            first.send(**draw)
            second.send(**draw)
            seen = _frames_until_pong(first) + _frames_until_pong(second)
            acks = [frame for frame in seen if frame["type"] == "ack"]
            assert acks == [{"type": "ack", "reply_to": "page-5c-9", "seq": seq + 1}], seen
            assert not first.errors and not second.errors
            assert first.seq == second.seq == seq + 1
            drawn = [e for e in (first.state or {})["edges"] if e[:3] == edge]
            assert len(drawn) == 1
        finally:
            second.close()
    finally:
        first.close()
