"""The game a Same Wi-Fi host runs: the engine in-process, every action judged and applied by
the engine service's own apply pipeline (``boxedin.engine.session.pipeline``), and the same
state and update frames the gateway sends, so both browsers show it with the online game
screen. Seat 1 is the host, seat 2 the joiner.

Nothing here touches the network: each call changes the game and returns the frames to send,
or raises a ``Refusal`` and changes nothing."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from boxedin.common.reasons import Refusal
from boxedin.engine.game import Game
from boxedin.engine.session import online, pipeline
from boxedin.engine.session.changes import update_changes
from boxedin.engine.session.seats import Person
from boxedin.engine.session.state import game_state
from boxedin.engine.session.table import Table

HOST, JOINER = 1, 2
# A Same Wi-Fi game has no move limit; an away joiner has the online grace to come back.
GRACE_SECONDS = 90


def new_game_id() -> str:
    return "lan_" + secrets.token_hex(12)


@dataclass(frozen=True)
class Started:
    """A game began (the first, or a rematch): each seat is told ``matched`` and sent its state."""

    game: str
    via: str


Out = list[dict[str, Any] | Started]


class HostedGame:
    """The host's authoritative game, and the rematches that follow it."""

    def __init__(self, mode: str, overlap: str, names: tuple[str, str], *, grace: int = GRACE_SECONDS) -> None:
        self.devices = (secrets.token_hex(16), secrets.token_hex(16))
        game, table = online.new_online_game(
            [(self.devices[0], names[0]), (self.devices[1], names[1])],
            mode=mode, overlap=overlap, via="room", move_limit=0, grace=grace,
        )  # fmt: skip
        self._start(game, table, new_game_id())

    def _start(self, game: Game, table: Table, game_id: str) -> None:
        self.game, self.table, self.id, self.seq = game, table, game_id, 0
        now = time.time()
        # Both players are there when a game starts: neither is away.
        online.set_connected(table, HOST, True, now)
        online.set_connected(table, JOINER, True, now)
        self._state = game_state(self.id, self.seq, game, table, now)

    def state_frame(self) -> dict[str, Any]:
        self._state = game_state(self.id, self.seq, self.game, self.table, time.time())
        return {"type": "state", "seq": self.seq, "game": self._state}

    def _commit(self, action: dict[str, Any]) -> dict[str, Any]:
        online.note_change(self.table, action, self.seq)
        self.seq += 1
        after = game_state(self.id, self.seq, self.game, self.table, time.time())
        changes = update_changes(self._state, after)
        self._state = after
        return {"type": "update", "seq": self.seq, "action": action, "changes": changes}

    def _check_game(self, game_id: str) -> None:
        if game_id != self.id:
            raise Refusal("no_game", f"game {game_id} is not the one being played here")

    def act(self, seat: int, kind: str, game_id: str, *, edge: Any = None, expected_seq: int | None = None) -> Out:
        """A player's action, as the engine service's Act: checked completely before it applies."""
        self._check_game(game_id)
        action = pipeline.action_of(kind, edge)
        expected = -1 if expected_seq is None else expected_seq
        caller = Person(self.devices[seat - 1])
        try:
            applied = pipeline.apply(
                self.game, self.table, caller, action, expected_seq=expected, seq=self.seq, now=time.time()
            )
        except Refusal as refusal:
            if refusal.reason == "clock_running":
                # A Same Wi-Fi game has no move clock at all: say so, not that it has time left.
                raise Refusal("clock_running", "this game has no move clock") from None
            raise
        return [self._commit(applied.action)]

    def leave(self, seat: int, game_id: str) -> Out:
        """Leaving a running game gives it to the other player; after one it declines a rematch."""
        self._check_game(game_id)
        applied = pipeline.leave(self.game, self.table, seat)
        return [] if applied is None else [self._commit(applied.action)]

    def rematch(self, seat: int, game_id: str, want: bool) -> Out:
        self._check_game(game_id)
        applied, rematch = pipeline.ask_rematch(self.game, self.table, seat, want)
        if rematch is None:
            return [self._commit(applied.action)]
        # Both asked: this game's update names the next one, which starts at once.
        next_id = new_game_id()
        pipeline.name_next_game(self.table, next_id)
        out: Out = [self._commit(applied.action)]
        self._start(*rematch, next_id)
        out.append(Started(next_id, "rematch"))
        return out

    def connection(self, seat: int, connected: bool) -> Out:
        """A player's link dropped or came back: the grace to return starts or stops."""
        applied = pipeline.connect(self.game, self.table, seat, connected, time.time())
        return [] if applied is None else [self._commit(applied.action)]

    def due(self, now: float) -> Out:
        """The forfeit of an away player whose grace ran out, if it has. (Nothing vouches for a
        Same Wi-Fi player's connection: its lease is not looked at.)"""
        applied = pipeline.forfeit_due(self.game, self.table, now)
        return [] if applied is None else [self._commit(applied.action)]

    def next_deadline(self) -> float | None:
        return self.table.next_deadline()
