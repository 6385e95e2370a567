"""The game a Same Wi-Fi host runs: the engine in-process, every action checked exactly as the
engine service checks an online game's (the same ``authorize``, the same pure functions of
``boxedin.engine.service.online``), and the same state and update frames the gateway sends, so
both browsers show it with the online game screen. Seat 1 is the host, seat 2 the joiner.

Nothing here touches the network: each call changes the game and returns the frames to send,
or raises a ``Refusal`` and changes nothing."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from boxedin.common.reasons import Refusal
from boxedin.engine.actions import Action, Draw, EndTurn, GameError, Resign, Roll, Timeout, Undo, edge_from_json
from boxedin.engine.game import Game
from boxedin.engine.service import online
from boxedin.engine.service.changes import update_changes
from boxedin.engine.service.record import GameRecord, Person, authorize
from boxedin.engine.service.state import game_state

HOST, JOINER = 1, 2
# A Same Wi-Fi game has no move limit; an away joiner has the online grace to come back.
GRACE_SECONDS = 90


def new_game_id() -> str:
    return "lan_" + secrets.token_hex(12)


def action_of(kind: str, edge: Any = None) -> Action:
    """A client frame's action (docs/protocol.md, Client frames)."""
    if kind == "draw":
        try:
            return Draw(edge_from_json(list(edge) if isinstance(edge, tuple | list) else edge))
        except GameError as exc:
            raise Refusal("malformed", exc.message) from None
    simple: dict[str, Action] = {"roll": Roll(), "end_turn": EndTurn(), "undo": Undo(), "timeout": Timeout()}
    if kind in simple:
        return simple[kind]
    if kind == "resign":
        return Resign(0)  # the seat is filled in from who resigns
    raise Refusal("malformed", f"{kind!r} is not an action")


def action_json(action: Action, game: Game, by: int) -> dict[str, Any]:
    """The update's action, as the engine service writes it."""
    if isinstance(action, Roll):
        return {"roll": game.current_roll, "by": by}
    if isinstance(action, Resign):
        return {"resign": True, "by": action.player}
    return {**action.to_json(), "by": by}


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
        game, record = online.new_online_game(
            [(self.devices[0], names[0]), (self.devices[1], names[1])],
            mode=mode, overlap=overlap, via="room", move_limit=0, grace=grace,
        )  # fmt: skip
        self._start(game, record, new_game_id())

    def _start(self, game: Game, record: GameRecord, game_id: str) -> None:
        self.game, self.record, self.id, self.seq = game, record, game_id, 0
        now = time.time()
        # Both players are there when a game starts: neither is away.
        online.set_connected(record, HOST, True, now)
        online.set_connected(record, JOINER, True, now)
        self._state = game_state(self.id, self.seq, game, record, now)

    def state_frame(self) -> dict[str, Any]:
        self._state = game_state(self.id, self.seq, self.game, self.record, time.time())
        return {"type": "state", "seq": self.seq, "game": self._state}

    def _commit(self, action: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        after = game_state(self.id, self.seq, self.game, self.record, time.time())
        changes = update_changes(self._state, after)
        self._state = after
        return {"type": "update", "seq": self.seq, "action": action, "changes": changes}

    def _check_game(self, game_id: str) -> None:
        if game_id != self.id:
            raise Refusal("no_game", f"game {game_id} is not the one being played here")

    def act(self, seat: int, kind: str, game_id: str, *, edge: Any = None, expected_seq: int | None = None) -> Out:
        """A player's action, as the engine service's Act: checked completely before it applies."""
        self._check_game(game_id)
        action = action_of(kind, edge)
        seat = authorize(self.record, self.game, Person(self.devices[seat - 1]), action)
        if expected_seq is not None and expected_seq != self.seq:
            raise Refusal("stale", f"the game has moved on (it is at {self.seq}, not {expected_seq})")
        if self.game.over:
            raise Refusal("game_over", "the game is over: no more actions are possible")
        if isinstance(action, Timeout):
            raise Refusal("clock_running", "this game has no move clock")
        if isinstance(action, Resign):
            return self.leave(seat, game_id)
        mover = self.game.to_move or 0
        try:
            self.game.apply(action)
        except GameError as exc:
            raise Refusal(exc.code, exc.message) from None
        now = time.time()
        online.restart_move_limit(self.game, self.record, now)
        online.set_connected(self.record, seat, True, now)
        if self.game.over:
            online.settle_after_end(self.record)
        return [self._commit(action_json(action, self.game, mover))]

    def leave(self, seat: int, game_id: str) -> Out:
        """Leaving a running game gives it to the other player; after one it declines a rematch."""
        self._check_game(game_id)
        if not self.game.over:
            return [self._commit(online.forfeit(self.game, self.record, seat, "left"))]
        state = online.online_state(self.record)
        if state.declined is not None or state.next_game is not None:
            return []
        return [self._commit(online.ask_rematch(self.game, self.record, seat, want=False))]

    def rematch(self, seat: int, game_id: str, want: bool) -> Out:
        self._check_game(game_id)
        action = online.ask_rematch(self.game, self.record, seat, want)
        if not online.both_asked(self.record):
            return [self._commit(action)]
        # Both asked: this game's update names the next one, which starts at once.
        game, record = online.rematch_game(self.game, self.record)
        next_id = new_game_id()
        online.online_state(self.record).next_game = next_id
        out: Out = [self._commit(action)]
        self._start(game, record, next_id)
        out.append(Started(next_id, "rematch"))
        return out

    def connection(self, seat: int, connected: bool) -> Out:
        """A player's link dropped or came back: the grace to return starts or stops."""
        if self.game.over or not online.set_connected(self.record, seat, connected, time.time()):
            return []
        return [self._commit({"connected": connected, "by": seat})]

    def due(self, now: float) -> Out:
        """The forfeit of an away player whose grace ran out, if it has."""
        due = online.due_forfeit(self.game, self.record, now)
        if due is None:
            return []
        return [self._commit(online.forfeit(self.game, self.record, *due))]

    def next_deadline(self) -> float | None:
        return self.record.next_deadline()
