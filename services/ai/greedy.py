"""Greedy: a reference player for `boxedin match` only, never offered to players.

Dice games, one edge at a time: (1) work on the square with the best net points per missing edge
among those it can finish with the edges left this turn (net: the margin finishing it gains under
the game's overlap rule; a square that gains nothing is no target); (2) else draw a safe edge, one
that leaves no square one edge short, at random; (3) else end the turn, or, for the compulsory
first edge, draw the edge that leaves the fewest squares one edge short. It never looks at what
the opponent could do in reply. Standard: takes every box on offer, else a safe line, else the
line that leaves the fewest boxes one short.

It is the yardstick of issue 17: Hard, which plans the turn and weighs the reply, must beat it.
"""

from __future__ import annotations

from .context import PlanContext, Position
from .measures import my_turn
from .playout import margin, new_shorts


def square_gain(pos: Position, ctx: PlanContext, q: int) -> int:
    """The margin the player to move gains by drawing every open edge of square ``q``'s outline
    (the turn must last that long; the caller checks)."""
    me = pos.to_move
    before = margin(pos, me)
    drawn = 0
    for e in ctx.geo.outline_ids(q):
        if pos.over:
            break
        if pos.drawn_by(e) == 0:
            pos.draw(e)
            drawn += 1
    gain = margin(pos, me) - before
    for _ in range(drawn):
        pos.undo()
    return int(gain)


def best_target(pos: Position, ctx: PlanContext) -> int:
    """The square to work on: best net points per missing edge among those finishable with the
    edges left (``-1`` for none). Ties go to the lowest square id."""
    left = pos.edges_left if ctx.rules.die else 1
    best_q, best_gain, best_m = -1, 0, 1
    for q in range(ctx.geo.square_count):
        m = pos.missing(q)
        if m == 0 or m > left or pos.square_status(q) != 0 or not pos.capturable(q):
            continue
        gain = square_gain(pos, ctx, q)
        if gain > 0 and gain * best_m > best_gain * m:
            best_q, best_gain, best_m = q, gain, m
    return best_q


def greedy_edge(pos: Position, ctx: PlanContext) -> int:
    """The next edge, or -1 to end the turn (dice games, after the first edge only)."""
    q = best_target(pos, ctx)
    if q >= 0:
        return next(e for e in ctx.geo.outline_ids(q) if pos.drawn_by(e) == 0)
    edges = list(pos.open_edge_list())
    shorts = [new_shorts(pos, e) for e in edges]
    safe = [e for e, s in zip(edges, shorts, strict=True) if s == 0]
    if safe:
        return ctx.rng.choice(safe)
    if ctx.rules.die and pos.drawn_this_turn > 0:
        return -1
    fewest = min(shorts)
    return ctx.rng.choice([e for e, s in zip(edges, shorts, strict=True) if s == fewest])


class Greedy:
    name = "greedy"

    def plan(self, pos: Position, ctx: PlanContext) -> list[int]:
        me = pos.to_move
        drawn: list[int] = []
        while my_turn(pos, me):
            edge = greedy_edge(pos, ctx)
            if edge < 0:
                break
            pos.draw(edge)
            drawn.append(edge)
        return drawn
