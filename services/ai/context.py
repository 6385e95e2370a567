"""What a player is given to plan a turn: a scratch copy of the position and its circumstances.

Players work on the compiled core's ``Position`` (edge ids, 0/1 players) because they try
thousands of edges a turn; the driver (``turn``) turns their plan back into transcript actions.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from boxedin.engine.board import Geometry
from boxedin.engine.rules import Overlap, RuleSet

Position = Any  # the core's Position (compiled or plain Python); it has no static type


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
    # Expert's evaluation of candidate turns, when somebody else runs it (the AI service hands
    # it to a Celery pool): (position, candidates, seed, horizon, seconds, replies) ->
    # statistics, one per candidate (``evaluation.evaluate_candidates`` says what replies are).
    # None: Expert evaluates in-process.
    evaluate: Any = None

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
