"""The table a game is played at: what the engine keeps beside the engine's game (its seats,
its move clock, its settings, and for an online game its deadlines and rematch), typed once
here, with its one stored form.

The stored form is the game's "record" field in Redis: its layout (``RECORD_VERSION``) and its
JSON are what every stored game was written with, so they change only with a new version.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import orjson

from boxedin.engine.game import Game

from .seats import Seat

# Record layout version, stored with every table; a table stored in another layout does not load.
RECORD_VERSION = 2


ForfeitReason = Literal["move_limit", "away", "left"]


@dataclass(slots=True)
class OnlineTable:
    """What the table of an online game keeps besides the game: its deadlines (the move limit,
    each away player's grace) and what happens after it (rematch asks, the next game)."""

    move_limit: int = 0  # seconds per move, 0 for none
    grace: int = 90  # seconds an away player has to come back
    lease: float = 30.0  # seconds a gateway's word that a player is connected holds
    # Seconds a player whose last connection left stays connected, so that a reconnect within
    # them commits nothing (0: away at once).
    settle: float = 0.0
    move_deadline: float | None = None  # epoch seconds
    # Per seat: when an away player's grace runs out; None while connected.
    away: list[float | None] = field(default_factory=lambda: [None, None])
    # Per seat: until when a connected player's gateway vouched for the connection; a lease
    # that runs out (the gateway died) makes the player away.
    leases: list[float | None] = field(default_factory=lambda: [None, None])
    # Per seat: the connections of its device that follow the game (an id its gateway gave
    # each), with until when their gateway vouched for them; the seat's lease is the latest.
    connections: list[dict[str, float]] = field(default_factory=lambda: [{}, {}])
    forfeit_player: int | None = None
    forfeit_reason: ForfeitReason | None = None
    rematch: list[bool] = field(default_factory=lambda: [False, False])
    declined: int | None = None
    next_game: str | None = None
    # The seq from which the board has stood as it is while only presence changed since (a
    # player away or back): an action chosen at any seq from it on was chosen on this board.
    # None: the last change was not one of presence.
    board_seq: int | None = None

    def deadlines(self) -> list[float]:
        return [moment for moment in (self.move_deadline, *self.away, *self.leases) if moment is not None]


@dataclass(slots=True)
class Table:
    """The table of one game: who sits at it, its move clock and settings, and what the server
    keeps for an online game."""

    seats: tuple[Seat, Seat]
    clock: int = 0  # the move clock in seconds, 0 for none
    ai_speed: str = "normal"
    seed: str | None = None
    created: float = 0.0
    updated: float = 0.0
    # The move clock: when it runs out (epoch seconds), or what is left while the game is off
    # screen (the clock stands still then).
    deadline: float | None = None
    remaining_ms: int | None = None
    hidden: bool = False
    # The device's saved game (a practice game is kept apart and never is; nor is an online game).
    saved: bool = True
    # Online games (two devices through the server): how the players met ("room" or
    # "find_match"; None for every other game) and what the server keeps for them.
    online: str | None = None
    online_state: OnlineTable | None = None
    version: int = field(default=RECORD_VERSION)

    # --- seats --------------------------------------------------------------------------------

    @property
    def opponent(self) -> str:
        """What the game is played against, as the client names it."""
        if self.online is not None:
            return "online"
        second = self.seats[1]
        if second.kind == "ai":
            return "ai"
        if second.kind == "practice":
            return "practice"
        return "local"

    @property
    def level(self) -> str | None:
        return next((s.level for s in self.seats if s.kind == "ai"), None)

    def seat(self, player: int) -> Seat:
        return self.seats[player - 1]

    def computer_seat(self) -> int | None:
        """The seat the computer plays, if any."""
        for player, seat in enumerate(self.seats, start=1):
            if seat.computer:
                return player
        return None

    def computer_to_move(self, game: Game) -> bool:
        return not game.over and game.to_move is not None and self.seat(game.to_move).computer

    def held_by(self, device: str) -> list[int]:
        return [p for p, seat in enumerate(self.seats, start=1) if seat.device == device]

    def next_deadline(self) -> float | None:
        """The earliest moment something happens to the game without anyone acting: the move
        clock, or in an online game the move limit or an away player's grace."""
        moments = [self.deadline] if self.deadline is not None else []
        if self.online_state is not None:
            moments += self.online_state.deadlines()
        return min(moments, default=None)

    # --- storage ------------------------------------------------------------------------------

    def to_json(self) -> str:
        # Written on every commit: the fields one by one (dataclasses.asdict deep-copies).
        fields = {name: getattr(self, name) for name in self.__dataclass_fields__}
        fields["seats"] = [{f: getattr(seat, f) for f in Seat.__dataclass_fields__} for seat in self.seats]
        if self.online_state is not None:
            fields["online_state"] = {f: getattr(self.online_state, f) for f in OnlineTable.__dataclass_fields__}
        return orjson.dumps(fields).decode()

    @staticmethod
    def from_json(text: str | bytes) -> Table:
        raw: dict[str, Any] = json.loads(text)
        if raw.get("version") != RECORD_VERSION:
            raise ValueError(f"a game record of version {raw.get('version')!r}, not {RECORD_VERSION}")
        seats = tuple(Seat(**seat) for seat in raw.pop("seats"))
        if len(seats) != 2:
            raise ValueError("a game record has two seats")
        online = raw.pop("online_state", None)
        online_state = OnlineTable(**online) if online is not None else None
        return Table(seats=(seats[0], seats[1]), online_state=online_state, **raw)

    def copy(self) -> Table:
        # Every field by position: dataclasses.replace took six times as long.
        copied = Table(*_TABLE_FIELDS(self))
        if self.online_state is not None:
            state = self.online_state
            copied.online_state = replace(
                state,
                away=list(state.away),
                leases=list(state.leases),
                connections=[dict(c) for c in state.connections],
                rematch=list(state.rematch),
            )
        return copied


# A table's fields in order, taken in one call (a table is copied on every action).
_TABLE_FIELDS = operator.attrgetter(*Table.__dataclass_fields__)
