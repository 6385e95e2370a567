"""Who sits at a game and who may do what: a seat is a person at a device (kept as the hash of
the device token, never the token), the AI at a level, or the practice computer; in a local game
both seats are the same device. A call is made by a caller, a person, the computer or a deadline,
and ``authorize`` decides every call on a game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from boxedin.common.choices import LEVEL_NAMES
from boxedin.common.reasons import Refusal
from boxedin.engine.actions import Action, EndTurn, Resign, Roll, Timeout
from boxedin.engine.actions import Draw as DrawAction
from boxedin.engine.game import Game

if TYPE_CHECKING:
    from .table import Table

SeatKind = Literal["human", "ai", "practice"]


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


# --- who may do what ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Person:
    """A call made for a device, named by the hash of its token."""

    device: str


class Computer:
    """The AI service playing a computer seat."""


class Deadline:
    """A deadline that ran out, fired by the engine's own deadline loop: a move clock's timeout,
    an online game's forfeit (move limit, grace) or a lapsed connection lease."""


Caller = Person | Computer | Deadline
COMPUTER = Computer()
DEADLINE = Deadline()
# What a call does besides an action: read the game, or say it left or came back on screen.
View = Literal["view", "visibility", "resume"]


def authorize(table: Table, game: Game, caller: Caller, action: Action | View) -> int:
    """The seat ``caller`` acts for in ``action``, or a ``Refusal`` saying why it may not."""
    if isinstance(caller, Deadline):
        if not isinstance(action, Timeout):
            raise Refusal("malformed", "the clock can only end a turn")
        return game.to_move or 0
    if isinstance(caller, Computer):
        if isinstance(action, str):
            seat = table.computer_seat()
            if seat is None:
                raise Refusal("not_your_game", "the computer has no seat in this game")
            return seat
        if not isinstance(action, Roll | DrawAction | EndTurn):
            raise Refusal("malformed", "the computer rolls, draws and ends its turn, nothing else")
        if not table.computer_to_move(game):
            raise Refusal("not_your_turn", "it is not the computer's turn")
        return game.to_move or 0
    held = table.held_by(caller.device)
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
    if table.seat(to_move).computer:
        raise Refusal("not_your_turn", "the computer is playing its turn")
    raise Refusal("not_your_turn", "it is the other player's turn")
