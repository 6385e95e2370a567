"""What a player is given to plan a turn: a scratch copy of the position and its circumstances.

Players work on the compiled core's ``Position`` (edge ids, 0/1 players) because they try
thousands of edges a turn; the driver (``turn``) turns their plan back into transcript actions.
"""

from __future__ import annotations

import random
import time
from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from boxedin.engine.board import Geometry
from boxedin.engine.rules import Overlap, RuleSet

if TYPE_CHECKING:
    from .evaluation import CandidateStats, Replies


class Position(Protocol):
    """What the players ask of the core's ``Position`` (engine/_core.py): the compiled class and
    the plain-Python one are two classes from one source, chosen at run time (``backend``), so
    the players name the methods they use (the playout estimates are functions of ``playout``).
    Edges, squares and boxes are ids; players are 0 and 1."""

    def copy(self) -> Position: ...
    def set_state(self, values: object) -> None: ...
    def state_array(self) -> array[int]: ...
    def roll(self, face: int) -> int: ...
    def draw(self, edge: int) -> int: ...  # the squares it captured
    def end_turn(self) -> None: ...
    def undo(self) -> None: ...

    @property
    def to_move(self) -> int: ...
    @property
    def phase(self) -> int: ...
    @property
    def over(self) -> bool: ...
    @property
    def edges_left(self) -> int: ...
    @property
    def drawn_this_turn(self) -> int: ...
    @property
    def open_edges(self) -> int: ...
    @property
    def capturing_edge_free(self) -> bool: ...

    def score(self, player: int) -> int: ...
    def drawn_by(self, edge: int) -> int: ...  # 0 for none, else the player + 1
    def square_status(self, q: int) -> int: ...
    def missing(self, q: int) -> int: ...
    def capturable(self, q: int) -> bool: ...
    def edge_dead(self, edge: int) -> bool: ...
    def open_edge_list(self) -> list[int]: ...
    def capturing_edge(self) -> int: ...  # -1 for none
    def one_short(self) -> int: ...


class Evaluator(Protocol):
    """Expert's evaluation of candidate turns run by somebody else (the AI service hands it to a
    Celery pool): (position, candidates, seed, horizon, seconds, replies) -> statistics, one per
    candidate, as ``evaluation.evaluate_candidates`` computes them (it says what replies are)."""

    def __call__(
        self,
        pos: Position,
        candidates: list[tuple[int, ...]],
        seed: int,
        horizon: int | None,
        seconds: float,
        replies: Replies | None = None,
        /,
    ) -> list[CandidateStats]: ...


@dataclass
class PlanContext:
    """The circumstances of one turn. ``seed`` is the game's seed string: players derive all
    their randomness from it, so a turn is reproducible. ``moves_before`` counts the edges drawn
    in the game before this turn's plan (the practice computer's seed index)."""

    rules: RuleSet
    geo: Geometry
    seed: str
    moves_before: int
    budget: float = 0.7
    started: float = field(default_factory=time.perf_counter)
    # Expert's evaluation of candidate turns, when somebody else runs it (see ``Evaluator``).
    # None: Expert evaluates in-process.
    evaluate: Evaluator | None = None

    @property
    def rng(self) -> random.Random:
        # One generator per context, derived from the seed and the point in the game.
        if not hasattr(self, "_rng"):
            self._rng = random.Random(f"{self.seed}\x00{self.moves_before}")
        return self._rng

    @property
    def deadline(self) -> float:
        return self.started + self.budget

    @property
    def overlap(self) -> Overlap:
        return self.rules.overlap


class Player(Protocol):
    """A level. ``plan`` draws the rest of the turn on ``pos`` (a scratch copy, after the roll)
    and returns the edges it drew, in order; the turn ends after them (End Turn when the roll is
    not used up)."""

    name: str

    def plan(self, pos: Position, ctx: PlanContext) -> list[int]: ...
