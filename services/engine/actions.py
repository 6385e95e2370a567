"""What a player can do in a game, as small frozen values that round-trip to the transcript's JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .board import Edge


class GameError(ValueError):
    """An action the rules do not allow, or input that is not an action at all.

    ``code`` is one of the replay contract's error codes (or a service's own, such as
    ``undo_not_allowed``); ``message`` is a sentence a person understands.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Roll:
    """Roll the die. ``face`` is what it showed; ``None`` asks the game's dice for a face."""

    face: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"roll": self.face}


@dataclass(frozen=True, slots=True)
class Draw:
    edge: Edge

    def to_json(self) -> dict[str, Any]:
        return {"draw": self.edge.to_json()}


@dataclass(frozen=True, slots=True)
class EndTurn:
    def to_json(self) -> dict[str, Any]:
        return {"end_turn": True}


@dataclass(frozen=True, slots=True)
class Undo:
    def to_json(self) -> dict[str, Any]:
        return {"undo": True}


@dataclass(frozen=True, slots=True)
class Timeout:
    """The move clock ran out: the turn ends as it stands."""

    def to_json(self) -> dict[str, Any]:
        return {"timeout": True}


@dataclass(frozen=True, slots=True)
class Resume:
    """A saved game was resumed: nothing before this point can be taken back. Not a transcript
    action; it is kept in the serialised game so that a restored game allows exactly the same."""

    def to_json(self) -> dict[str, Any]:
        raise ValueError("a resume mark is not part of a transcript")


@dataclass(frozen=True, slots=True)
class Resign:
    """A player gives the game up; the other wins. Not a transcript action (the replay format
    has none); services record it in the serialised game."""

    player: int

    def to_json(self) -> dict[str, Any]:
        return {"resign": True, "by": self.player}


Action = Roll | Draw | EndTurn | Undo | Timeout | Resume | Resign

_FLAGS: dict[str, type[EndTurn] | type[Undo] | type[Timeout]] = {
    "end_turn": EndTurn,
    "undo": Undo,
    "timeout": Timeout,
}
ACTION_KEYS = ("roll", "draw", *_FLAGS)


def _malformed(message: str) -> GameError:
    return GameError("malformed", message)


def action_from_json(raw: object) -> Action:
    """Reads one transcript action, or raises ``GameError('malformed', ...)`` saying why not."""
    if not isinstance(raw, dict):
        raise _malformed(f'an action must be a JSON object such as {{"draw": ["h", 0, 0]}}, not {raw!r}')
    if len(raw) != 1:
        keys = ", ".join(map(str, raw)) or "none"
        raise _malformed(f"an action has exactly one key of {', '.join(ACTION_KEYS)}; this one has {keys}")
    [(key, value)] = raw.items()
    if key == "roll":
        face = whole_number(value)
        if face is None:
            raise _malformed(f"a roll must be a whole number, not {value!r}")
        return Roll(face)
    if key == "draw":
        return Draw(edge_from_json(value))
    if key in _FLAGS:
        if value is not True:
            raise _malformed(f"{key} takes the value true, not {value!r}")
        return _FLAGS[key]()
    raise _malformed(f"unknown action {key!r}; the actions are {', '.join(ACTION_KEYS)}")


def edge_from_json(value: object) -> Edge:
    """Reads ``["h"|"v", row, col]``; whether the edge is on the board is checked by the game."""
    if isinstance(value, list) and len(value) == 3 and value[0] in ("h", "v"):
        row, col = whole_number(value[1]), whole_number(value[2])
        if row is not None and col is not None:
            return Edge(value[0], row, col)
    raise _malformed(f'an edge is ["h" or "v", row, column] with whole numbers, not {value!r}')


def whole_number(value: object) -> int | None:
    """The value as an int if it is a whole number. JSON does not tell 3 from 3.0 (JavaScript
    reads both as 3), so an integral float counts; true and false do not."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None
