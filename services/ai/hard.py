"""Hard: plans its whole turn and weighs the opponent's best reply.

Dice games: the balance of a turn is the margin it gains minus the opponent's best reply averaged
over every face of the die (``playout.reply_total``: the squares with the best points per
edge that the reply could finish). Hard plans the whole turn: it looks at the squares it can
still finish with the edges left (the points measured under the game's overlap rule), follows
the few ways of going on that leave the best balance (then the most points per edge) square by
square to the end of the roll, and stops where the balance is best, so that going on does not
improve it. The compulsory first edge, when no square is worth it, is the edge that helps the
opponent least.

Standard: takes every box on offer, draws a random safe line while any exists, else opens the
chain that costs least after following each line's captures to their end.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import PlanContext, Position
from .facts import captures, my_turn
from .playout import margin, new_shorts, reply_total


@dataclass(frozen=True, slots=True)
class Step:
    """A way to go on: draw ``edges`` (finishing ``square``, or one quiet edge when -1), after
    which stopping is worth ``balance``; ``per_edge`` is the margin gained per edge spent."""

    edges: tuple[int, ...]
    square: int
    balance: float
    per_edge: float


def stop_balance(pos: Position, me: int, start_margin: int, die: int) -> float:
    """The margin gained this turn minus the opponent's mean best reply, if the turn ends now."""
    gained = margin(pos, me) - start_margin
    if pos.over:
        return float(gained)
    return gained - reply_total(pos, 1 - me) / die


def _finish(pos: Position, ctx: PlanContext, q: int) -> list[int]:
    """Draws the open edges of square ``q``'s outline; returns them (the caller undoes them)."""
    drawn = []
    for e in ctx.geo.outline_ids(q):
        if pos.over:
            break
        if pos.drawn_by(e) == 0:
            pos.draw(e)
            drawn.append(e)
    return drawn


def square_steps(pos: Position, ctx: PlanContext, me: int, start_margin: int) -> list[Step]:
    """Every square that can still be finished this turn and pays, as a step."""
    die = ctx.rules.die or 1
    free = ctx.rules.capturing_edge_free
    left = pos.edges_left
    steps = []
    for q in range(ctx.geo.square_count):
        m = pos.missing(q)
        if m == 0 or m > left or not pos.capturable(q):
            continue
        before = margin(pos, me)
        drawn = _finish(pos, ctx, q)
        gain = margin(pos, me) - before
        still_mine = my_turn(pos, me)
        balance = stop_balance(pos, me, start_margin, die) if gain > 0 else 0.0
        for _ in drawn:
            pos.undo()
        if gain <= 0 or not drawn:
            continue
        if not still_mine and not pos.over and len(drawn) < m:
            continue  # the turn ran out before the square was finished
        spent = m - 1 if free else m
        steps.append(Step(tuple(drawn), q, balance, gain / max(spent, 0.5)))
    return steps


def quiet_steps(pos: Position, ctx: PlanContext, me: int, start_margin: int) -> list[Step]:
    """Every open edge drawn on its own, as a step; the best helps the opponent least."""
    die = ctx.rules.die or 1
    steps = []
    for e in pos.open_edge_list():
        pos.draw(e)
        balance = stop_balance(pos, me, start_margin, die)
        pos.undo()
        steps.append(Step((e,), -1, balance, 0.0))
    return steps


def edge_help(pos: Position, ctx: PlanContext, edge: int) -> float:
    """How much an edge makes squares cheaper for later turns: the points of every square it
    touches, weighted more the fewer edges that square will still miss."""
    total = 0.0
    for q in ctx.geo.squares_on(edge):
        m = pos.missing(q)
        if m > 0 and pos.square_status(q) == 0 and pos.capturable(q):
            k = ctx.geo.square_size[q]
            total += k * k / float(1 << (2 * (m - 1)))
    return total


def best_quiet(pos: Position, ctx: PlanContext, steps: list[Step]) -> Step:
    """The quiet edge that helps least: the best balance; among equals a dead edge, then the
    edge that makes squares cheaper least (a rim edge by untouched boxes), then at random."""
    top = max(s.balance for s in steps)
    best = [s for s in steps if s.balance >= top - 1e-9]
    dead = [s for s in best if pos.edge_dead(s.edges[0])]
    if dead:
        return ctx.rng.choice(dead)
    helps = [edge_help(pos, ctx, s.edges[0]) for s in best]
    least = min(helps)
    return ctx.rng.choice([s for s, h in zip(best, helps, strict=True) if h <= least + 1e-9])


PLAN_WIDTH = 8  # ways of going on kept at each step of the turn's plan


@dataclass(slots=True)
class _Plan:
    """A way to play the turn so far: its steps, the edges they draw, the balance of stopping."""

    steps: list[Step]
    edges: frozenset[int]
    balance: float
    per_edge: float


def hard_dice_steps(pos: Position, ctx: PlanContext, width: int = PLAN_WIDTH) -> list[Step]:
    """Hard's turn in a dice game, as the steps it takes (drawn on ``pos``).

    The turn is planned as a whole: from where the turn stands, every square that can still be
    finished and pays is a step (the first edge of the turn may also be the quiet edge that helps
    the opponent least); after each step the balance of stopping there is weighed (the margin
    gained minus the opponent's best reply averaged over every face of the die). The ``width``
    best ways of going on (by balance, then points per edge) are followed step by step to the
    end of the roll, ways that draw the same edges counted once, and the turn stops at the
    point with the best balance: where going on does not improve it. Among equal balances the
    shorter turn wins: Hard ends its turn early rather than draw edges for nothing.
    """
    me = pos.to_move
    die = ctx.rules.die or 1
    start = margin(pos, me)
    root = pos.copy()
    if pos.drawn_this_turn == 0:
        firsts = square_steps(root, ctx, me, start)
        firsts.append(best_quiet(root, ctx, quiet_steps(root, ctx, me, start)))
        frontier = [_Plan([s], frozenset(s.edges), s.balance, s.per_edge) for s in firsts]
        best = max(frontier, key=lambda plan: plan.balance)  # the first edge is compulsory
    else:
        best = _Plan([], frozenset(), stop_balance(root, me, start, die), 0.0)
        frontier = [best]
    while frontier:
        frontier.sort(key=lambda plan: (-round(plan.balance, 9), -plan.per_edge))
        grown: list[_Plan] = []
        seen: set[frozenset[int]] = set()
        for plan in frontier[:width]:
            work = root.copy()
            for step in plan.steps:
                for e in step.edges:
                    work.draw(e)
            if not my_turn(work, me):
                continue
            for step in square_steps(work, ctx, me, start):
                edges = plan.edges | frozenset(step.edges)
                if edges in seen:
                    continue
                seen.add(edges)
                grown.append(_Plan([*plan.steps, step], edges, step.balance, step.per_edge))
                if step.balance > best.balance + 1e-9:
                    best = grown[-1]
        frontier = grown
    for step in best.steps:
        for e in step.edges:
            pos.draw(e)
    taken = list(best.steps)
    if not pos.over and pos.one_short() > 0:
        taken = _stop_clean(pos, me, start, die, taken)
    return taken


def _stop_clean(pos: Position, me: int, start: int, die: int, taken: list[Step]) -> list[Step]:
    """Never end a turn leaving a square one edge short when it could have ended earlier
    without: the turn is cut after the edge, among those that leave none short, where stopping
    is worth most. ``pos`` is left after the steps returned."""
    edges = [e for step in taken for e in step.edges]
    for _ in edges:
        pos.undo()
    best: tuple[float, int] | None = None
    for i, e in enumerate(edges[:-1]):
        pos.draw(e)
        if my_turn(pos, me) and pos.one_short() == 0:
            balance = stop_balance(pos, me, start, die)
            if best is None or balance > best[0]:
                best = (balance, i + 1)
    for _ in edges[:-1]:
        pos.undo()
    count = len(edges) if best is None else best[1]
    for e in edges[:count]:
        pos.draw(e)
    if best is None:
        return taken
    cut: list[Step] = []
    left = count
    for step in taken:
        if left <= 0:
            break
        if len(step.edges) <= left:
            cut.append(step)
        else:
            cut.append(Step(step.edges[:left], -1, best[0], 0.0))
        left -= len(step.edges)
    return cut


def hard_standard_edge(pos: Position, ctx: PlanContext) -> int:
    """One line of Hard in standard: take, else a safe line, else the cheapest opening."""
    edges = list(pos.open_edge_list())
    taking = [e for e in edges if captures(pos, ctx.geo, e)]
    if taking:
        return taking[0]
    safe = [e for e in edges if new_shorts(pos, e) == 0]
    if safe:
        return ctx.rng.choice(safe)
    costs = [opening_cost(pos, e) for e in edges]
    least = min(costs)
    return ctx.rng.choice([e for e, c in zip(edges, costs, strict=True) if c == least])


def take_all(pos: Position) -> list[int]:
    """Draws capturing lines for the player to move while there are any; returns them."""
    drawn = []
    while not pos.over:
        e = pos.capturing_edge()
        if e < 0:
            break
        pos.draw(e)
        drawn.append(e)
    return drawn


def opening_cost(pos: Position, edge: int) -> int:
    """What drawing ``edge`` hands over: the opponent's margin after taking everything offered."""
    me = pos.to_move
    before = margin(pos, me)
    pos.draw(edge)
    taken = take_all(pos)
    cost = before - margin(pos, me)
    for _ in range(len(taken) + 1):
        pos.undo()
    return int(cost)


class Hard:
    name = "hard"

    def plan(self, pos: Position, ctx: PlanContext) -> list[int]:
        me = pos.to_move
        if ctx.rules.die is None:
            drawn: list[int] = []
            while my_turn(pos, me):
                edge = hard_standard_edge(pos, ctx)
                pos.draw(edge)
                drawn.append(edge)
            return drawn
        return [e for step in hard_dice_steps(pos, ctx) for e in step.edges]
