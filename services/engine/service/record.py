"""The game record: what the engine service keeps beside the engine's game (its seats, its move
clock, its settings), typed once here, and ``authorize``, which decides every call on a game.

A seat is a person at a device (kept as the hash of the device token, never the token), the AI
at a level, or the practice computer. In a local game both seats are the same device.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import orjson

from boxedin.common.choices import LEVEL_NAMES
from boxedin.common.reasons import Refusal
from boxedin.engine.actions import Action, EndTurn, Resign, Roll, Timeout
from boxedin.engine.actions import Draw as DrawAction
from boxedin.engine.game import Game

SeatKind = Literal["human", "ai", "practice"]
# Record layout version, stored with every record; a record of another version does not load.
RECORD_VERSION = 2


@dataclass(frozen=True, slots=True)
class Seat:
    kind: SeatKind
    name: str
    device: str | None = None  # hash of the device token, for a person
    level: str | None = None  # for the AI

    @property
    def computer(self) -> bool:
        return self.kind != "human"

    @staticmethod
    def person(device: str, name: str) -> Seat:
        return Seat("human", name, device=device)

    @staticmethod
    def ai(level: str) -> Seat:
        return Seat("ai", f"AI ({LEVEL_NAMES[level]})", level=level)

    @staticmethod
    def practice_computer() -> Seat:
        return Seat("practice", "Computer")


ForfeitReason = Literal["move_limit", "away", "left"]


@dataclass(slots=True)
class OnlineRecord:
    """What the server keeps for an online game besides the game: its deadlines (the move limit,
    each away player's grace) and what happens after it (rematch asks, the next game)."""

    move_limit: int = 0  # seconds per move, 0 for none
    grace: int = 90  # seconds an away player has to come back
    lease: float = 30.0  # seconds a gateway's word that a player is connected holds
    move_deadline: float | None = None  # epoch seconds
    # Per seat: when an away player's grace runs out; None while connected.
    away: list[float | None] = field(default_factory=lambda: [None, None])
    # Per seat: until when a connected player's gateway vouched for the connection; a lease
    # that runs out (the gateway died) makes the player away.
    leases: list[float | None] = field(default_factory=lambda: [None, None])
    forfeit_player: int | None = None
    forfeit_reason: ForfeitReason | None = None
    rematch: list[bool] = field(default_factory=lambda: [False, False])
    declined: int | None = None
    next_game: str | None = None

    def deadlines(self) -> list[float]:
        return [moment for moment in (self.move_deadline, *self.away, *self.leases) if moment is not None]


@dataclass(slots=True)
class GameRecord:
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
    online_state: OnlineRecord | None = None
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
            fields["online_state"] = {f: getattr(self.online_state, f) for f in OnlineRecord.__dataclass_fields__}
        return orjson.dumps(fields).decode()

    @staticmethod
    def from_json(text: str | bytes) -> GameRecord:
        raw: dict[str, Any] = json.loads(text)
        if raw.get("version") != RECORD_VERSION:
            raise ValueError(f"a game record of version {raw.get('version')!r}, not {RECORD_VERSION}")
        seats = tuple(Seat(**seat) for seat in raw.pop("seats"))
        if len(seats) != 2:
            raise ValueError("a game record has two seats")
        online = raw.pop("online_state", None)
        online_state = OnlineRecord(**online) if online is not None else None
        return GameRecord(seats=(seats[0], seats[1]), online_state=online_state, **raw)

    def copy(self) -> GameRecord:
        # Every field by position: dataclasses.replace took six times as long.
        copied = GameRecord(*_RECORD_FIELDS(self))
        if self.online_state is not None:
            state = self.online_state
            copied.online_state = replace(
                state, away=list(state.away), leases=list(state.leases), rematch=list(state.rematch)
            )
        return copied


# A record's fields in order, taken in one call (a record is copied on every action).
_RECORD_FIELDS = operator.attrgetter(*GameRecord.__dataclass_fields__)


# --- who may do what ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Person:
    """A call made for a device, named by the hash of its token."""

    device: str


class Computer:
    """The AI service playing a computer seat."""


class Clock:
    """A deadline that ran out (the engine's own deadline loop)."""


Caller = Person | Computer | Clock
COMPUTER = Computer()
CLOCK = Clock()
# What a call does besides an action: read the game, or say it left or came back on screen.
View = Literal["view", "visibility", "resume"]


def authorize(record: GameRecord, game: Game, caller: Caller, action: Action | View) -> int:
    """The seat ``caller`` acts for in ``action``, or a ``Refusal`` saying why it may not."""
    if isinstance(caller, Clock):
        if not isinstance(action, Timeout):
            raise Refusal("malformed", "the clock can only end a turn")
        return game.to_move or 0
    if isinstance(caller, Computer):
        if isinstance(action, str):
            seat = record.computer_seat()
            if seat is None:
                raise Refusal("not_your_game", "the computer has no seat in this game")
            return seat
        if not isinstance(action, Roll | DrawAction | EndTurn):
            raise Refusal("malformed", "the computer rolls, draws and ends its turn, nothing else")
        if not record.computer_to_move(game):
            raise Refusal("not_your_turn", "it is not the computer's turn")
        return game.to_move or 0
    held = record.held_by(caller.device)
    if not held:
        raise Refusal("not_your_game", "this game belongs to another device")
    if isinstance(action, str):
        return held[0]
    to_move = game.to_move
    if isinstance(action, Resign):
        # In a local game the player to move resigns; otherwise the device's own seat.
        return to_move if to_move in held else held[0]
    if to_move is None or to_move in held:
        return to_move or held[0]
    if record.seat(to_move).computer:
        raise Refusal("not_your_turn", "the computer is playing its turn")
    raise Refusal("not_your_turn", "it is the other player's turn")
