"""Helpers for the AI tests: games in any mode. A plain module, because conftest modules of
different test folders would clash by name."""

from __future__ import annotations

from typing import Any

from boxedin.ai.context import PlanContext
from boxedin.ai.turn import take_turn
from boxedin.engine.board import Edge, Geometry, geometry
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap, RuleSet


def new_game(mode: str, overlap: str | None = None, seed: str = "t") -> Game:
    rule = Overlap.from_id(overlap) if overlap else None
    return Game.from_mode(MODES[mode], rule, seed=seed)


def rolled(mode: str, overlap: str | None = None, moves: int = 6, seed: str = "exp") -> Game:
    """A game of ``mode`` after Normal has played itself for ``moves`` lines or more, with the
    roll of the turn then due made."""
    game = new_game(mode, overlap, seed=seed)
    while len(game.history) < moves and not game.over:
        for action in take_turn(game, "normal", seed=seed):
            game.apply(action)
    if game.phase == "roll":
        game.roll()
    return game


def context(game: Game, seed: str = "t", budget: float = 0.05) -> PlanContext:
    return PlanContext(game.rules, game.geo, seed, len(game.history), budget)



def dice_position_with_open_lines(
    boxes: int, die: int, open_lines: list[str], roll: int
) -> tuple[Game, Any, Geometry]:
    """A dice game on a ``boxes`` board of 1x1 boxes, and a position of it where exactly
    ``open_lines`` (such as ``"h 0 3"``) are open, rolled ``roll``."""
    rules = RuleSet(boxes, die)
    geo = geometry(boxes, (1,))
    keep = {geo.edge_id(Edge(kind, int(r), int(c))) for kind, r, c in (line.split() for line in open_lines)}
    game = Game(rules)
    pos = game.position.copy()
    for e in range(geo.edge_count):
        if e in keep:
            continue
        if pos.phase == 0:
            pos.roll(die)
        pos.draw(e)
    if pos.phase == 1:
        pos.end_turn()
    pos.roll(roll)
    return game, pos, geo
