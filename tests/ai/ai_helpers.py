"""Helpers for the AI tests: games in any mode. A plain module, because conftest modules of
different test folders would clash by name."""

from __future__ import annotations

from boxedin.ai.context import PlanContext
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap


def new_game(mode: str, overlap: str | None = None, seed: str = "t") -> Game:
    rule = Overlap.from_id(overlap) if overlap else None
    return Game.from_mode(MODES[mode], rule, seed=seed)


def context(game: Game, seed: str = "t", budget: float = 0.05) -> PlanContext:
    return PlanContext(game.rules, game.geo, seed, len(game.history), budget)

