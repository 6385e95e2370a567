"""Many test players at once: each plays a whole game against the computer over its own
websocket (asyncio), keeping every update it is sent with the moment it arrived, so a test can
replay the game and see how long the computer kept it waiting."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import websockets

from boxedin.common import delta
from boxedin.engine.replay import play_transcript, report

from edge_policy import choose_edge

# Update actions that are not moves of the game (the transcript leaves them out).
_NOT_MOVES = ("resume", "visibility")


@dataclass
class PlayedGame:
    setup: dict[str, Any]
    first_state: dict[str, Any] = field(default_factory=dict)
    updates: list[dict[str, Any]] = field(default_factory=list)
    states: list[dict[str, Any]] = field(default_factory=list)  # after each update, built from its changes
    arrived: list[float] = field(default_factory=list)
    started: float = 0.0

    def __post_init__(self) -> None:
        # Updates given whole (a test's browser kept them): the states they make, in turn.
        updates, self.updates = self.updates, []
        for update in updates:
            self.states.append(delta.apply(self.last, update["changes"]))
            self.updates.append(update)

    @property
    def last(self) -> dict[str, Any]:
        return self.states[-1] if self.states else self.first_state

    def take(self, update: dict[str, Any], moment: float) -> None:
        """An update, applied to the state before it (an update carries only what changed)."""
        self.states.append(delta.apply(self.last, update["changes"]))
        self.updates.append(update)
        self.arrived.append(moment)

    def transcript(self) -> dict[str, Any]:
        actions = []
        for update in self.updates:
            action = {k: v for k, v in update["action"].items() if k != "by"}
            if not any(k in action for k in _NOT_MOVES):
                actions.append(action)
        state = self.first_state
        return {"mode": state["mode"], "overlap": state["overlap"], "first": state["first"], "actions": actions}

    def check_replay(self) -> None:
        """The updates came in seq order with no gap, each move by the player then to move, and
        replaying their actions from the start gives the final state: no move was played twice
        or lost."""
        seqs = [u["seq"] for u in self.updates]
        assert seqs == list(range(1, len(seqs) + 1)), seqs
        before = self.first_state
        for update, after in zip(self.updates, self.states, strict=True):
            if "by" in update["action"] and "resign" not in update["action"]:
                assert update["action"]["by"] == before["to_move"], (update, before["to_move"])
            before = after
        transcript = self.transcript()
        if transcript["overlap"] is None:
            del transcript["overlap"]
        replayed = report(play_transcript(transcript))
        final = self.last
        assert replayed["scores"] == final["scores"] and replayed["over"] == final["over"]
        assert replayed["winner"] == final["winner"] and replayed["open_edges"] == final["open_edges"]

    def longest_computer_wait(self) -> float:
        """The longest time the computer, being to move, took to make its next move."""
        longest = 0.0
        since = self.started
        state = self.first_state
        for after, moment in zip(self.states, self.arrived, strict=True):
            if state["ai_thinking"]:
                longest = max(longest, moment - since)
            since, state = moment, after
        return longest


async def play_against_computer(url: str, setup: dict[str, Any], timeout: float = 240) -> PlayedGame:
    """Plays one whole game against the computer; the person's side draws by edge_policy."""
    played = PlayedGame(setup)
    ws_url = url.replace("http://", "ws://") + "/ws"
    async with websockets.connect(ws_url, max_size=2**24, open_timeout=20) as ws:
        deadline = time.monotonic() + timeout
        ids = iter(range(1, 1_000_000))

        async def receive() -> dict[str, Any]:
            frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
            if frame["type"] == "update":
                played.take(frame, time.monotonic())
            return frame

        async def request(**frame: Any) -> dict[str, Any]:
            frame["id"] = next(ids)
            await ws.send(json.dumps(frame))
            while True:
                reply = await receive()
                if reply.get("reply_to") == frame["id"]:
                    return reply

        await request(type="hello")
        reply = await request(type="new_game", **setup)
        assert reply["type"] == "state", reply
        # The computer's first wait counts from the game's first state: the making of the game
        # before it (which, with a hundred made at once, queues on the engines) is not its turn.
        played.started = time.monotonic()
        played.first_state = reply["game"]
        sent_at = -1  # the seq the last action was sent at, until an update answers it
        while not played.last["over"]:
            state = played.last
            if state["to_move"] == 1 and not state["ai_thinking"] and sent_at < state["seq"]:
                move = {"type": "roll"} if state["phase"] == "roll" else {"type": "draw", "edge": choose_edge(state)}
                await ws.send(json.dumps({**move, "game": state["game"], "seq": state["seq"], "id": state["seq"]}))
                sent_at = state["seq"]
            frame = await receive()
            if frame["type"] == "error":
                raise AssertionError(f"refused: {frame}")
    return played


async def play_many(urls: list[str], setups: list[dict[str, Any]], timeout: float = 240) -> list[PlayedGame]:
    """Plays every setup at once, spreading the players over the gateways."""
    return await asyncio.gather(
        *(play_against_computer(urls[i % len(urls)], setup, timeout) for i, setup in enumerate(setups))
    )
