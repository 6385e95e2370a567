"""Hard: plans its whole turn and weighs the opponent's best reply.

Dice games: Hard draws up a few whole turns and keeps the one whose balance is best:

- the turns it considers: the squares that pay the most points per edge and can be finished this
  turn, taken one after another, then (with edges to spare) edges that leave no square one edge
  short, stopping after any of those edges; its planned turn (``hard_dice_steps``: the squares
  followed step by step while the one-reply balance improves, up to 64 ways of going on kept at
  each step, fewer on the biggest boards: ``hard_plan_width``) and every shorter version of it;
  and, for the compulsory first edge, the few edges that help the opponent least;
- the balance of a turn (``turn_value``): the margin it gains, less what the opponent could
  score in reply, averaged over every face of the die (``reply_total``: on each face the squares
  with the best points per edge that roll can finish, one after another). One reply ahead, not
  further, as the rule book says. The plan's own steps are weighed the same way
  (``stop_balance``), so the turn played is the best of the candidates by the measure that
  planned them.

Why ``reply_total`` and not a played-out reply: measured over 402 positions after Hard's turns in
Strategic (Independent), the playout policy's one-turn reply (it ends turns early and leaves
unbegun squares alone) scored 6.24 points a turn where the reply a player taking the best
squares per edge actually scores was 7.73 (correlation 0.91); ``reply_total`` estimated 7.68
(correlation 0.99). Weighing the candidate turns with the played-out reply under-counted what
long rolls finish. Against ``greedy`` (issue 17), 400 Strategic games: margin +8.97 with the
played-out reply, +10.64 with ``reply_total`` (seed devC, paired difference +1.68 +- 0.81), +9.16
-> +9.53 (seed issue17, 60.2% won either way); Classic (seed issue17) 66.5% -> 67.0%. Counting
what the reply leaves back to Hard, or following the plan wider, gained nothing measurable on top
of it.

A turn that would end with a square one edge short is cut where it can end without one, unless
leaving it pays (``clean_cut``). ``hard_dice_steps`` (the one-reply plan) is also where Expert starts from.

Standard: takes every box on offer, draws a random safe line while any exists, else opens the
chain that costs least after following each line's captures to their end.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import PlanContext, Position
from .greedy import Greedy
from .measures import captures, my_turn
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


def hard_dice_steps(
    pos: Position, ctx: PlanContext, width: int = PLAN_WIDTH, quiet: list[Step] | None = None
) -> list[Step]:
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
        if quiet is None:
            quiet = quiet_steps(root, ctx, me, start)
        firsts.append(best_quiet(root, ctx, quiet))
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


QUIET_CANDIDATES = 8  # first edges that help the opponent least, each a one-edge turn
MAX_CANDIDATES = 40  # turns weighed at most (the first ones found): keeps big boards quick
# Hard's own plan is followed wider than Expert's starting plan (PLAN_WIDTH): a square plus the
# squares its edges bring within reach is often only found a few ways down the list, and Hard's
# think time has room for it. Measured against greedy, 600 Classic games (seed dev2): width 8
# won 61.2% (margin +1.74), 32 won 65.7% (+2.43), 64 won 67.0% (+2.55); 128 won no more. On
# Strategic's 145 squares the width was once shared out by squares (21); 2,000 games against
# greedy (seed s1) gave 60.9% (+9.51) at 21, 61.6% (+10.71) at 64 and 62.0% (+10.97) at 128,
# think p95 0.009, 0.028 and 0.055 s: 64 everywhere up to BIG_BOARD_SQUARES. On Marathon's 121
# squares 64 against 25 won +3.35 +- 0.66 a game (40 games, seed s1).
HARD_PLAN_WIDTH = 64
# Big Squares (194 squares) and Expert (302): the one-reply plan is followed a quarter as wide
# as Expert's starting plan; Hard's turn there is slow enough already.
BIG_BOARD_SQUARES = 150


def hard_plan_width(squares: int) -> int:
    """How many ways of going on Hard's own plan keeps at each step, on a board of ``squares``."""
    if squares > BIG_BOARD_SQUARES:
        return PLAN_WIDTH // 4
    return HARD_PLAN_WIDTH


def points_per_edge_turn(pos: Position, ctx: PlanContext) -> list[int]:
    """The turn of squares by points per edge: finish the square with the best points (the
    margin gained under the overlap rule) per missing edge among those the edges left can
    finish, again and again, then draw edges that leave no square one edge short until the roll
    is used up. ``pos`` is left as it was."""
    return Greedy().plan(pos.copy(), ctx)


def candidate_turns(pos: Position, ctx: PlanContext) -> list[tuple[int, ...]]:
    """The turns Hard weighs, in order of preference on equal balance (see the module)."""
    me = pos.to_move
    found: list[tuple[int, ...]] = []
    quiet = quiet_steps(pos, ctx, me, margin(pos, me)) if pos.drawn_this_turn == 0 else None
    planned = hard_dice_steps(pos.copy(), ctx, hard_plan_width(ctx.geo.square_count), quiet)
    prefix: tuple[int, ...] = ()
    for step in planned:
        prefix += step.edges
        found.append(prefix)
    found.reverse()  # the whole planned turn first, then the shorter ones
    by_points = points_per_edge_turn(pos, ctx)
    found.append(tuple(by_points))
    # Its shorter versions, but not those that stop inside a square and leave it one edge short.
    work = pos.copy()
    shorter: list[tuple[int, ...]] = []
    for i, e in enumerate(by_points[:-1], start=1):
        work.draw(e)
        if work.one_short() == 0 or not my_turn(work, me):
            shorter.append(tuple(by_points[:i]))
    found += reversed(shorter)
    if quiet is not None:
        quiet.sort(key=lambda s: (-round(s.balance, 9), edge_help(pos, ctx, s.edges[0])))
        found += [s.edges for s in quiet[:QUIET_CANDIDATES]]
    return list(dict.fromkeys(c for c in found if c))[:MAX_CANDIDATES]


def turn_value(pos: Position, edges: tuple[int, ...], die: int) -> float:
    """The balance of drawing ``edges`` and ending the turn: the margin gained, less what the
    opponent could score in reply, averaged over every face of the die (``reply_total``: on each
    face the squares with the best points per edge its roll can finish, one after another)."""
    me = pos.to_move
    after = pos.copy()
    for e in edges:
        after.draw(e)
    return stop_balance(after, me, margin(pos, me), die)


def hard_dice_turn(pos: Position, ctx: PlanContext) -> list[int]:
    """Hard's turn in a dice game (drawn on ``pos``): the candidate turn with the best balance,
    the first one found among equals. A turn that ends with a square one edge short gives way to
    the best earlier stopping point without one when that is worth as much (``clean_cut``)."""
    turn = best_turn(pos, candidate_turns(pos, ctx), ctx.rules.die or 1)
    for e in turn:
        pos.draw(e)
    return list(turn)


def best_turn(pos: Position, turns: list[tuple[int, ...]], die: int) -> tuple[int, ...]:
    """Hard's choice among the turns it weighs (``candidate_turns``), not drawn: the best
    balance, the first among equals, cut clean (``clean_cut``)."""
    best: tuple[float, tuple[int, ...]] | None = None
    for turn in turns:
        value = turn_value(pos, turn, die)
        if best is None or value > best[0] + 1e-9:
            best = (value, turn)
    assert best is not None  # a turn has at least one open edge to draw
    return clean_cut(pos, best[1], best[0], die)


def clean_cut(pos: Position, turn: tuple[int, ...], value: float, die: int) -> tuple[int, ...]:
    """``turn``, or, when it ends the turn with a square one edge short, its longest prefix
    among the best that leave none short, if that is worth at least ``value``: Hard leaves a
    square one edge short only when that pays (it counts the reply that takes it)."""
    me = pos.to_move
    work = pos.copy()
    clean: list[int] = []
    for i, e in enumerate(turn):
        work.draw(e)
        if i < len(turn) - 1 and my_turn(work, me) and work.one_short() == 0:
            clean.append(i + 1)
    if work.over or work.one_short() == 0 or not clean:
        return turn
    cuts = [(turn_value(pos, turn[:n], die), n) for n in clean]
    top, n = max(cuts)
    return turn[:n] if top >= value - 1e-9 else turn


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
        return hard_dice_turn(pos, ctx)
