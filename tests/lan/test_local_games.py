"""Local games (two players on one device) on the page of a `boxedin lan`, which has no game server
behind it (issue 30, point 5): its process plays them with the engine in-process and answers the
page's /ws as a gateway does. A game played to its end, and every game it cannot play refused
with its reason and nothing changed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from boxedin.common.delta import apply as apply_changes
from boxedin.lan.player import LocalPlayer

from edge_policy import choose_edge

pytestmark = pytest.mark.asyncio


class Page:
    """The page's game socket: what it sends, and every frame the process answers."""

    def __init__(self) -> None:
        self.player = LocalPlayer(discovery=False)
        self.frames: list[dict[str, Any]] = []

    async def _receive(self, frame: dict[str, Any]) -> None:
        self.frames.append(frame)

    async def send(self, **frame: Any) -> dict[str, Any]:
        before = len(self.frames)
        await self.player.game_frame(json.dumps(frame), self._receive)
        assert len(self.frames) == before + 1, self.frames[before:]
        return self.frames[-1]


async def test_a_local_game_is_played_to_its_end_on_the_same_wifi_app() -> None:
    page = Page()
    await page.send(type="hello")
    started = await page.send(type="new_game", id="n1", mode="mini", opponent="local", first=2)
    assert (started["type"], started["reply_to"], started["seq"]) == ("state", "n1", 0)
    state = started["game"]
    assert state["opponent"] == "local" and state["to_move"] == 2 and state["clock"] == 0
    assert [p["name"] for p in state["players"]] == ["Player 1", "Player 2"]
    while not state["over"]:
        if state["phase"] == "roll":
            update = await page.send(type="roll", game=state["game"], seq=state["seq"])
        else:
            update = await page.send(type="draw", game=state["game"], seq=state["seq"], edge=choose_edge(state))
        assert update["type"] == "update" and update["seq"] == state["seq"] + 1, update
        state = apply_changes(state, update["changes"])
        assert state["seq"] == update["seq"]
    assert sum(state["scores"]) == 9 and state["winner"] in (0, 1, 2)
    # The page reopened names its game: it gets the game as it stands.
    await page.player.game_frame(json.dumps({"type": "hello", "game": state["game"]}), page._receive)
    assert [f["type"] for f in page.frames[-2:]] == ["welcome", "state"]
    assert page.frames[-1]["game"] == state


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        ({"mode": "mini", "opponent": "ai", "level": "easy"}, "bad_setup"),  # no AI without a game server
        ({"mode": "mini", "opponent": "local", "clock": 30}, "bad_setup"),  # nothing keeps the time
        ({"mode": "giant", "opponent": "local"}, "bad_setup"),
        ({"mode": "mini", "opponent": "local", "first": "second"}, "bad_setup"),
    ],
)
async def test_a_game_the_same_wifi_app_cannot_play_is_refused_and_nothing_changes(
    setup: dict[str, Any], reason: str
) -> None:
    page = Page()
    await page.send(type="hello")
    refused = await page.send(type="new_game", id="bad", **setup)
    assert (refused["type"], refused["code"], refused["reply_to"]) == ("error", reason, "bad")
    assert page.player.local_game is None


async def test_a_stale_or_wrong_move_of_a_local_game_is_refused_and_changes_nothing() -> None:
    page = Page()
    await page.send(type="hello")
    state = (await page.send(type="new_game", mode="standard", opponent="local"))["game"]
    edge = choose_edge(state)
    drawn = await page.send(type="draw", game=state["game"], seq=0, edge=edge)
    assert drawn["seq"] == 1
    again = await page.send(type="draw", game=state["game"], seq=1, edge=edge)
    assert again["type"] == "error" and again["seq"] == 1
    stale = await page.send(
        type="draw", game=state["game"], seq=0, edge=choose_edge(apply_changes(state, drawn["changes"]))
    )
    assert (stale["type"], stale["code"], stale["seq"]) == ("error", "stale", 1)
    assert page.player.local_game is not None and page.player.local_game.seq == 1
