"""Whole games over the websocket, through the gateway, the engine service and the AI service:
against every AI level and locally, in a dice mode, standard and a multi-size mode. Each game's
updates, replayed by `boxedin replay`, give the same result the service reported."""

from __future__ import annotations

from typing import Any

import pytest

from boxedin.engine.replay import replay_transcript
from boxedin.supervisor.launcher import Stack

from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

CASES = [
    *[("mini", None, level) for level in ("easy", "normal", "hard", "expert", "local")],
    *[("standard", None, level) for level in ("easy", "normal", "hard", "expert", "local")],
    ("strategic", "consume", "easy"),
    ("strategic", "territory", "normal"),
    ("strategic", "layered", "hard"),
    ("strategic", "majority", "expert"),
    ("strategic", "fortress", "local"),
]


def transcript_of(setup: dict[str, Any], first: int, updates: list[dict[str, Any]]) -> dict[str, Any]:
    actions = []
    for update in updates:
        action = {k: v for k, v in update["action"].items() if k != "by"}
        if set(action) & {"roll", "draw", "end_turn", "undo", "timeout"}:
            actions.append(action)
    transcript = {"mode": setup["mode"], "first": first, "actions": actions}
    if setup.get("overlap"):
        transcript["overlap"] = setup["overlap"]
    return transcript


@pytest.mark.parametrize(("mode", "overlap", "opponent"), CASES)
def test_a_whole_game(live_stack: Stack, mode: str, overlap: str | None, opponent: str) -> None:
    browser = Browser(live_stack.url())
    try:
        assert browser.hello()["saved"] is None
        setup: dict[str, Any] = {"mode": mode, "ai_speed": "fast"}
        if overlap:
            setup["overlap"] = overlap
        setup.update({"opponent": "local"} if opponent == "local" else {"opponent": "ai", "level": opponent})
        reply = browser.new_game(**setup)
        assert reply["type"] == "state" and reply["seq"] == 0
        final = browser.play_to_the_end(timeout=150)
    finally:
        browser.close()
    assert final["over"] and final["phase"] == "over" and final["to_move"] is None
    a, b = final["scores"]
    assert final["winner"] == (1 if a > b else 2 if b > a else 0)
    assert not browser.errors
    status, replayed = replay_transcript(transcript_of(setup, final["first"], browser.updates))
    assert status == 0
    assert (replayed["scores"], replayed["over"], replayed["winner"]) == (
        final["scores"],
        True,
        final["winner"],
    )
    if opponent != "local":
        assert {u["action"]["by"] for u in browser.updates} == {1, 2}


def test_the_practice_computer_plays_the_seeded_practice_game(live_stack: Stack) -> None:
    browser = Browser(live_stack.url())
    try:
        browser.hello()
        browser.new_game(mode="practice_3x3", opponent="practice", seed="  river stone  ")
        assert browser.state is not None and browser.state["seed"] == "river stone"
        assert not browser.state["can_undo"] and browser.state["players"][1]["name"] == "Computer"
        final = browser.play_to_the_end()
    finally:
        browser.close()
    assert sum(final["scores"]) == 9
