"""The review of a finished game (docs/protocol.md, Review): each turn's board and figures."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
)

from .base import (
    Absent,
    Count,
    DrawnEdge,
    EdgeRef,
    PlayerNo,
    Positive,
    ReplyTo,
    ScorePair,
    _Model,
)
from .game import HeldSquare


class ReviewBoard(_Model):
    """The board after a turn."""

    edges: list[DrawnEdge]
    squares: list[HeldSquare]
    scores: ScorePair


class TurnFigures(_Model):
    """One turn of a review, for its player: expected final margins before (with the best turn)
    and after the turn played, in dice games over the dice to come (boxedin.ai.review)."""

    turn: Count
    player: PlayerNo
    roll: Positive | None  # null without dice
    played: list[EdgeRef]
    best: list[EdgeRef]
    before: StrictFloat | StrictInt
    after: StrictFloat | StrictInt
    loss: StrictFloat | StrictInt
    exact: StrictBool  # from the solver; false: estimated by Expert's search
    board: ReviewBoard
    seconds: StrictFloat | StrictInt  # how long the turn took to analyse


class Review(_Model):
    """A finished game's review as it stands: the turns analysed so far (null where not yet),
    and the game as a transcript (the replay format)."""

    type: Literal["review"]
    game: StrictStr
    total: Count
    done: Count
    turns: list[TurnFigures | None]
    # Players 1 and 2: the turns of each one's biggest mistakes, biggest first (at most three).
    mistakes: tuple[list[Count], list[Count]]
    transcript: dict[StrictStr, Any]
    reply_to: ReplyTo | Absent = None


