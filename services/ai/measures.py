"""Measures of a position that several players ask for (open edges, gains, captures), all taken on the core."""

from __future__ import annotations

from boxedin.engine.board import Geometry

from .context import Position
from .playout import margin, reply_total


def open_edges(pos: Position) -> list[int]:
    return list(pos.open_edge_list())


def my_turn(pos: Position, me: int) -> bool:
    """Whether ``me`` is still drawing: the game runs, the turn has not passed, the die is rolled."""
    return not pos.over and pos.to_move == me and pos.phase == 1


def score_gain(pos: Position, edge: int) -> int:
    """How much the player to move's own score changes by drawing ``edge`` (under the rule)."""
    me = pos.to_move
    before = pos.score(me)
    pos.draw(edge)
    after = pos.score(me)
    pos.undo()
    return int(after - before)


def margin_gain(pos: Position, edge: int) -> int:
    """How much the player to move's margin (own minus opponent's) changes by drawing ``edge``."""
    me = pos.to_move
    before = margin(pos, me)
    pos.draw(edge)
    after = margin(pos, me)
    pos.undo()
    return int(after - before)


def captures(pos: Position, geo: Geometry, edge: int) -> bool:
    """Whether ``edge`` completes a square that can still be captured (by anybody's rule)."""
    return any(pos.missing(q) == 1 and pos.capturable(q) for q in geo.squares_on(edge))


def mean_reply(pos: Position, player: int, die: int | None) -> float:
    """``player``'s best gain in one turn from here, averaged over the die (one-reply estimate)."""
    if pos.over:
        return 0.0
    total = reply_total(pos, player)
    return float(total) / die if die else float(total)
