"""A local game (two players on one device, the rule book's Local opponent) on the page of a
``boxedin lan``, which has no game server behind it: the engine in-process, as the host's game is
(host.py), every action judged and applied by the engine service's own apply pipeline, and the
same state and update frames the gateway sends, so the page shows it with its game screen.

There is no move clock (nothing here keeps time while the page is away) and nothing is saved:
the game lasts as long as the process. Nothing here touches the network."""

from __future__ import annotations

import secrets
import time
from typing import Any

from boxedin.common.reasons import Refusal
from boxedin.engine.session import pipeline, setup
from boxedin.engine.session.changes import update_changes
from boxedin.engine.session.seats import Person
from boxedin.engine.session.state import game_state

# The client frame's first player as the engine takes it (0: random), as the gateway maps it.
FIRST = {1: 1, 2: 2, "random": 0}


class LocalGame:
    def __init__(self, device: str, *, mode: str, overlap: str | None, opponent: str, first: Any, clock: int) -> None:
        if opponent != "local":
            raise Refusal("bad_setup", "the Same Wi-Fi app plays local and Same Wi-Fi games only, not against the AI")
        if clock:
            raise Refusal("bad_setup", "a local game on the Same Wi-Fi app has no move clock")
        chosen = FIRST.get(first) if not isinstance(first, bool) else None
        if chosen is None:
            raise Refusal("bad_setup", f'the first player is 1, 2 or "random", not {first!r}')
        self.device = device
        self.game, self.table = setup.new_game(
            device, mode=mode, overlap=overlap or "", opponent="local", first=chosen, clock_seconds=0
        )
        self.id = "local_" + secrets.token_hex(12)
        self.seq = 0
        self._state = game_state(self.id, self.seq, self.game, self.table, time.time())

    def state_frame(self, reply_to: Any = None) -> dict[str, Any]:
        frame: dict[str, Any] = {"type": "state", "seq": self.seq, "game": self._state}
        if reply_to is not None:
            frame["reply_to"] = reply_to
        return frame

    def act(self, kind: str, game_id: str, *, edge: Any = None, expected_seq: int | None = None) -> dict[str, Any]:
        """One player's action, checked completely before it applies; the update frame."""
        if game_id != self.id:
            raise Refusal("no_game", f"game {game_id} is not the one being played here")
        applied = pipeline.apply(
            self.game,
            self.table,
            Person(self.device),
            pipeline.action_of(kind, edge),
            expected_seq=-1 if expected_seq is None else expected_seq,
            seq=self.seq,
            now=time.time(),
        )
        self.seq += 1
        after = game_state(self.id, self.seq, self.game, self.table, time.time())
        changes = update_changes(self._state, after)
        self._state = after
        return {"type": "update", "seq": self.seq, "action": applied.action, "changes": changes}
