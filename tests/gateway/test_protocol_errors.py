"""Every malformed or refused frame gets its documented error (docs/protocol.md), and the game
is exactly as it was."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from boxedin.supervisor.launcher import Stack

from edge_policy import open_edges
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


@pytest.fixture
def browser(live_stack: Stack) -> Iterator[Browser]:
    opened = Browser(live_stack.url())
    yield opened
    opened.close()


def error_for(browser: Browser, raw: str | dict[str, Any]) -> dict[str, Any]:
    browser.send_raw(raw if isinstance(raw, str) else json.dumps(raw))
    while True:
        frame = browser.receive()
        if frame["type"] == "error":
            return frame


def test_hello_comes_first_and_device_tokens_are_checked(browser: Browser) -> None:
    assert error_for(browser, {"type": "ping", "id": 7}) == {
        "type": "error", "code": "hello_first", "message": "say hello with your device token first", "reply_to": 7,
    }  # fmt: skip
    assert error_for(browser, {"type": "hello", "device": "short"})["code"] == "bad_device"
    assert error_for(browser, {"type": "hello", "device": "x" * 30 + "!"})["code"] == "bad_device"
    assert browser.hello()["type"] == "welcome"
    assert error_for(browser, {"type": "hello", "device": "y" * 30})["code"] == "bad_device"


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("not json", "bad_message"),
        ("[1, 2]", "bad_message"),
        ({"type": "fly"}, "bad_message"),
        ({"no": "type"}, "bad_message"),
        ({"type": "new_game"}, "bad_message"),
        ({"type": "new_game", "mode": "mini", "colour": "red"}, "bad_message"),
        ({"type": "new_game", "mode": "mini", "clock": "ten"}, "bad_message"),
        ({"type": "new_game", "mode": "huge"}, "bad_setup"),
        ({"type": "new_game", "mode": "mini", "overlap": "consume"}, "bad_setup"),
        ({"type": "new_game", "mode": "strategic", "overlap": "sideways"}, "bad_setup"),
        ({"type": "new_game", "mode": "mini", "level": "genius"}, "bad_setup"),
        ({"type": "new_game", "mode": "mini", "opponent": "cat"}, "bad_setup"),
        ({"type": "new_game", "mode": "mini", "opponent": "local", "level": "hard"}, "bad_setup"),
        ({"type": "new_game", "mode": "mini", "clock": 15}, "bad_setup"),
        ({"type": "new_game", "mode": "mini", "first": 3}, "bad_setup"),
        ({"type": "new_game", "mode": "practice_3x3", "opponent": "ai"}, "bad_setup"),
        (
            {"type": "new_game", "mode": "practice_3x3", "opponent": "practice", "clock": 10, "seed": "s"},
            "bad_setup",
        ),
        ({"type": "new_game", "mode": "practice_3x3", "opponent": "practice", "seed": "   "}, "bad_seed"),
        ({"type": "new_game", "mode": "mini", "seed": "x" * 97}, "bad_seed"),
        ({"type": "resume"}, "no_game"),
        ({"type": "draw", "game": "g_nope", "edge": ["h", 0, 0]}, "no_game"),
        ({"type": "draw", "game": "g_x", "edge": ["d", 0, 0]}, "bad_message"),
        ({"type": "draw", "game": "g_x", "edge": ["h", 0.5, 0]}, "bad_message"),
        ({"type": "roll", "game": "g_x", "seq": -1}, "bad_message"),
        ({"type": "visibility", "game": "g_x", "visible": "yes"}, "bad_message"),
        # Numbers beyond what a request can carry are refused here, the connection kept.
        ({"type": "draw", "game": "g_x", "edge": ["h", 2**31, 0]}, "bad_message"),
        ({"type": "draw", "game": "g_x", "edge": ["v", 0, -(2**40)]}, "bad_message"),
        ({"type": "roll", "game": "g_x", "seq": 2**63}, "bad_message"),
        ({"type": "new_game", "mode": "mini", "clock": 2**31}, "bad_message"),
        ({"type": "new_game", "mode": "mini", "first": 2**40}, "bad_message"),
        ({"type": "new_game", "mode": "mini", "seed": ""}, "bad_seed"),
        ("x" * 9000, "too_large"),
    ],
)
def test_bad_frames_are_refused_with_their_code(browser: Browser, frame: str | dict[str, Any], code: str) -> None:
    browser.hello()
    assert error_for(browser, frame)["code"] == code


def test_refused_actions_leave_the_game_unchanged(live_stack: Stack, browser: Browser) -> None:
    browser.hello()
    browser.new_game(mode="classic", opponent="local", clock=0)
    game = browser.game_id
    before = browser.state
    refused = [
        ({"type": "draw", "game": game, "edge": ["h", 0, 0]}, "roll_due"),
        ({"type": "end_turn", "game": game}, "nothing_drawn"),
        ({"type": "undo", "game": game}, "nothing_to_undo"),
        ({"type": "timeout", "game": game}, "clock_running"),
        ({"type": "roll", "game": game, "seq": 5}, "stale"),
    ]
    for frame, code in refused:
        error = error_for(browser, frame)
        assert (error["code"], error["seq"]) == (code, 0)
    browser.act(type="roll")
    rolled = browser.state
    assert rolled is not None
    for frame, code in [
        ({"type": "roll", "game": game}, "roll_not_due"),
        ({"type": "draw", "game": game, "edge": ["h", 8, 0]}, "illegal_edge"),
        ({"type": "draw", "game": game, "edge": ["v", 0, 9]}, "illegal_edge"),
    ]:
        assert error_for(browser, frame)["code"] == code
    browser.act(type="draw", edge=["h", 0, 0])
    if browser.state and browser.state["to_move"] == 1:
        assert error_for(browser, {"type": "draw", "game": game, "edge": ["h", 0, 0]})["code"] == "edge_taken"
    # Another device can see nothing of the game and change nothing.
    other = Browser(live_stack.url())
    try:
        other.hello()
        assert error_for(other, {"type": "end_turn", "game": game})["code"] == "not_your_game"
        assert error_for(other, {"type": "hello", "device": other.device, "game": game, "seq": 0})["code"] == (
            "not_your_game"
        )
    finally:
        other.close()
    fresh = Browser(live_stack.url(), device=browser.device)
    try:
        fresh.hello(game=game, seq=None)
        assert fresh.state is not None and fresh.seq == browser.seq
        assert {k: v for k, v in fresh.state.items() if k != "clock_remaining_ms"} == {
            k: v for k, v in (browser.state or {}).items() if k != "clock_remaining_ms"
        }
    finally:
        fresh.close()
    assert before is not None and before["seq"] == 0


def test_no_move_while_the_ai_is_playing_and_no_undo_with_a_clock(browser: Browser) -> None:
    browser.hello()
    browser.new_game(mode="mini", opponent="ai", level="easy", first=2, clock=30)
    state = browser.state
    assert state is not None
    if state["ai_thinking"]:
        assert error_for(browser, {"type": "roll", "game": browser.game_id})["code"] in (
            "not_your_turn",
            "stale",
        )
    state = browser.wait_until(lambda s: s["to_move"] == 1 and not s["ai_thinking"])
    assert state["clock_remaining_ms"] is not None and 0 < state["clock_remaining_ms"] <= 30_000
    browser.act(type="roll")
    browser.act(type="draw", edge=open_edges(browser.state)[0])
    if browser.state["to_move"] == 1 and not browser.state["over"]:
        assert not browser.state["can_undo"]
        assert error_for(browser, {"type": "undo", "game": browser.game_id})["code"] == "undo_not_allowed"
