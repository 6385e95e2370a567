"""Expert: the turns Hard would consider, each played out many times; the best average wins.

Dice games: candidates are Hard's turn (first, so that it wins ties), Hard's one-reply plan
(``hard_dice_steps``) and its shorter versions (stopping after each step), that plan after each
of the best alternative first steps (a square, or a quiet edge), planned with a narrower width
to leave time for the playouts, and then the other turns Hard weighs (``candidate_turns``) while
there is room; one candidate per position reached (the same lines in another order are one).
Standard: candidates are taking every box and then each safe line (or the cheapest openings),
and every double-cross (declining the last two boxes of a chain, or the last four of a loop).
Exact endgames come from ``boxedin.ai.solver`` when it is installed and the position is small;
in dice games also a line or two earlier, where the table of the rest of the game fits the
turn's time (``early_exact_turn``).

The evaluation (``evaluation.evaluate_candidates``) runs in batches until the time budget is
spent, in-process or fanned out over the worker pool; each batch is deterministic, so only how
many batches fit depends on the clock. In dice games the opponent's next turn is not left to
the playouts' cheap policy: Hard's one-reply plan plays it after every candidate on every face
of the die, and playout j starts from the reply to face j % die + 1, so that every face comes up
equally often (where Hard is too slow for that, on big boards, the playouts start at the
opponent's roll instead). Another candidate replaces Hard's turn only when its gain (paired over
the same dice) is more than ``DICE_CAUTION`` (2.5) standard errors: the best of ten noisy means is
often just the luckiest.

Dice games with 1x1 boxes only, on the boards of ``LOOKAHEAD_SHARES`` (Classic, Quick, Chain
Reaction), Expert looks ahead exactly instead (``look_ahead``): every face of the opponent's roll
is played on with the turn Hard itself would play there (``hard_replies`` with ``whole_turn``),
and each candidate is scored by the mean over the faces of where it stands after that reply: the
margin by then plus the share of Expert's own mean best reply that its next turn can be expected
to net. Nothing random is left in that score, so it needs no caution and no more than one pass
(in Classic 0.1 s a turn, 0.2 s at the 95th percentile: done in-process, the pool would only add
its latency), and it has room for every turn Hard weighs (up to ``MAX_LOOKAHEAD_CANDIDATES``).
In Classic the playouts had done worse than Hard's turn with the exact endgame alone (-0.48
against -0.08 a game): their cheap policy's noise and bias outweighed what they could find.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from .context import PlanContext, Position
from .evaluation import CandidateStats, after_turn, evaluate_candidates
from .hard import (
    Hard,
    best_turn,
    candidate_turns,
    hard_dice_steps,
    hard_dice_turn,
    opening_cost,
    quiet_steps,
    square_steps,
)
from .measures import my_turn
from .playout import margin, new_shorts
from .solver_link import exact_dice_applies, exact_dice_turn, exact_standard_line, solver

# Dice games: turns weighed at most (Hard's own and the alternatives above come first).
MAX_DICE_CANDIDATES = 10
# Dice games: how many standard errors a candidate must gain over Hard's turn to replace it.
# Up to nine alternatives are each tested against Hard's turn, so at one standard error one of
# them clears the bar by luck on most turns even when none is better (multiple comparisons);
# 2.5 keeps such false alarms rare. Measured against Hard in Classic (one core, --jobs 1):
# 100 games of seed issue17 gave +0.04 +- 0.23 a game (1.0 gave -0.10 +- 0.10 over 400); on seed
# dev-expert, 1.0 gave -0.48 +- 0.21 where Hard's turn with the exact endgame alone gave -0.08.
DICE_CAUTION = 2.5
ALTERNATIVE_WIDTH = 3  # Hard's planning width for the rest of an alternative turn
MAX_SAFE_LINES = 16
MAX_OPENINGS = 6
# Dice games: the share of the budget Hard's replies to the candidates may take (about a tenth
# in Classic); where they take longer (Hard is slower on big boards) the playouts do without.
REPLY_SHARE = 0.35
# Dice games: Expert also plays exactly where the table of every set of drawn lines holds at
# most this many values, a line or two before ``solver_link`` does (19 open lines with a d6,
# about a third of the budget on this machine); when the table does not fit the time, the
# playouts choose with what is left.
EXPERT_TABLE_CELLS = 1 << 22
EXPERT_TABLE_SHARE = 0.75
# Dice games with 1x1 boxes only: (boxes per side, die, a capturing edge is free) -> the share of
# their mean best reply (``playout.reply_total`` over the faces, divided by the die) that the
# player about to roll can expect to net from there to the end of the game. A player nets only
# part of what lies on the board: what their turn leaves goes to the opponent. Fitted by least
# squares on Hard's games against itself, `boxedin ai fit-share --mode M --games 1500` (seed
# "fit"): Classic 0.60, Quick 0.60, Chain Reaction 0.65, each +- 0.05. Expert looks ahead
# exactly on these boards (see the module); Mini is played exactly from its first turns or
# nearly, and Marathon's board was not measured, so both keep the playouts. A prototype of the
# lookahead against Hard in Classic (seed issue17, 200 games) gained +0.13 a game with share 0,
# +0.38 with 0.3, +0.44 with 0.59 and +0.11 with 1.0.
LOOKAHEAD_SHARES: dict[tuple[int, int, bool], float] = {
    (7, 6, False): 0.60,  # Classic
    (5, 6, False): 0.60,  # Quick
    (7, 6, True): 0.65,  # Chain Reaction
}
LOOKAHEAD_TURNS = 1  # the cut: right after the opponent's reply
MAX_LOOKAHEAD_CANDIDATES = 48
# Of the budget: the replies are the lookahead's work; candidates whose replies do not fit are
# not weighed (they come last: Hard's turn and its plan come first).
LOOKAHEAD_REPLY_SHARE = 0.85
CUT_BOARDS = (9, 11)  # boxes per side of the 10x10- and 12x12-dot boards
CUT_OPEN_EDGES = 120
CUT_TURNS = 8


def dedupe(candidates: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    return list(dict.fromkeys(c for c in candidates if c))


def dice_candidates(pos: Position, ctx: PlanContext, limit: int = MAX_DICE_CANDIDATES) -> list[tuple[int, ...]]:
    """Hard's turn first, then Hard's one-reply plan and its prefixes (stopping after each
    step), then that plan after the best alternative first steps (a square, or a quiet edge),
    then the rest of the turns Hard weighs (``hard.candidate_turns``): one of each outcome (the
    lines drawn in another order come to the same position), at most ``limit``."""
    me = pos.to_move
    start = margin(pos, me)
    # Hard's turn first, with the context's random choices where Hard's own would be; the turns
    # it chose among are weighed too, further down.
    weighed = candidate_turns(pos.copy(), ctx)
    found: list[tuple[int, ...]] = [best_turn(pos, weighed, ctx.rules.die or 1)]
    hard = hard_dice_steps(pos.copy(), ctx)
    found.append(tuple(e for step in hard for e in step.edges))
    prefix: tuple[int, ...] = ()
    for step in hard:
        prefix += step.edges
        found.append(prefix)
    firsts = sorted(square_steps(pos, ctx, me, start), key=lambda s: -s.balance)[:3]
    if pos.drawn_this_turn == 0:
        firsts += sorted(quiet_steps(pos, ctx, me, start), key=lambda s: -s.balance)[:3]
    for step in firsts:
        after = pos.copy()
        for e in step.edges:
            after.draw(e)
        found.append(step.edges)
        if my_turn(after, me):
            rest = hard_dice_steps(after, ctx, ALTERNATIVE_WIDTH)
            found.append(step.edges + tuple(e for s in rest for e in s.edges))
    found += weighed
    return distinct_outcomes(pos, dedupe(found), ctx.rules.die)[:limit]


def distinct_outcomes(pos: Position, candidates: Sequence[tuple[int, ...]], die: int | None) -> list[tuple[int, ...]]:
    """The first candidate of each position reached after the turn: playouts cannot tell the
    others apart, and they would take the time of turns that can differ."""
    seen: set[bytes] = set()
    found = []
    for candidate in candidates:
        key = after_turn(pos, candidate, die).state_array().tobytes()
        if key not in seen:
            seen.add(key)
            found.append(candidate)
    return found


def _declines(pos: Position, ctx: PlanContext) -> list[int]:
    """Lines that decline the boxes on offer with a double-cross: a box A one edge short whose
    open edge leads to a box B two short; drawing B's other open edge completes nothing and
    leaves A and B to be taken with one line (a loop's last four: the line between its halves)."""
    geo = ctx.geo
    lines = []
    for a in range(geo.boxes * geo.boxes):  # 1x1 square ids are box ids
        if pos.missing(a) != 1 or pos.square_status(a) != 0:
            continue
        [shared] = [e for e in geo.outline_ids(a) if pos.drawn_by(e) == 0]
        for b in geo.squares_on(shared):
            if b == a or pos.missing(b) != 2:
                continue
            for f in geo.outline_ids(b):
                if f == shared or pos.drawn_by(f) != 0:
                    continue
                captured = pos.draw(f)
                pos.undo()
                if captured == 0:
                    lines.append(f)
    return lines


def standard_candidates(pos: Position, ctx: PlanContext) -> list[tuple[int, ...]]:
    """Take-all prefixes ending in a double-cross, and take-all followed by each quiet line."""
    work = pos.copy()
    found: list[tuple[int, ...]] = []
    taken: list[int] = []
    while True:
        found += [(*taken, f) for f in _declines(work, ctx)]
        e = work.capturing_edge() if not work.over else -1
        if e < 0:
            break
        work.draw(e)
        taken.append(e)
    if work.over:
        return dedupe([tuple(taken), *found])
    edges = list(work.open_edge_list())
    safe = [e for e in edges if new_shorts(work, e) == 0]
    if safe:
        ctx.rng.shuffle(safe)
        found += [(*taken, e) for e in safe[:MAX_SAFE_LINES]]
    else:
        costs = sorted((opening_cost(work, e), e) for e in edges)
        found += [(*taken, e) for _, e in costs[:MAX_OPENINGS]]
    return dedupe(found)


def best_candidate(totals: Sequence[CandidateStats], caution: float = 0.0) -> int:
    """The candidate with the best mean; among equals the first (in dice games Hard's turn).

    With ``caution`` > 0 another candidate must beat the first by that many standard errors of
    the difference to be chosen, and the one whose gain is surest wins: the best of many noisy
    means is more often lucky than best, and the first candidate is a sound turn already."""
    if caution <= 0:
        return max(range(len(totals)), key=lambda i: (totals[i].mean, -i))
    best, best_bound = 0, 0.0
    for i in range(1, len(totals)):
        gain, error = totals[i].gain_over(totals[0])
        bound = gain - caution * error
        if bound > best_bound:
            best, best_bound = i, bound
    return best


def hard_replies(
    pos: Position,
    candidates: list[tuple[int, ...]],
    ctx: PlanContext,
    seed: int,
    deadline: float,
    whole_turn: bool = False,
) -> list[list[tuple[int, ...]]] | None:
    """Hard's one-reply plan (``hard_dice_steps``) after each candidate on every face of the
    die, ``[candidate][face - 1]``: the opponent's next turn as Hard plans it (Hard's own turn,
    which also weighs the other turns it considers, is too slow to run for every face of every
    candidate on most boards); None if it is not ready by ``deadline``.

    ``whole_turn``: the turn Hard itself would play (``hard_dice_turn``), for as many candidates as
    are done by ``deadline`` (the first ones; None if not even the first)."""
    die = ctx.rules.die or 0
    began = time.perf_counter()
    found: list[list[tuple[int, ...]]] = []
    for candidate in candidates:
        start = after_turn(pos, candidate, die)
        if start.over:
            found.append([()] * die)
            continue
        faces = []
        for face in range(1, die + 1):
            done = len(found) * die + face - 1
            now = time.perf_counter()
            if whole_turn and now > deadline:
                return found or None
            # Give up as soon as the replies so far say the rest will not fit.
            if not whole_turn and done and now + (now - began) / done * (len(candidates) * die - done) > deadline:
                return None
            leaf = start.copy()
            leaf.roll(face)
            reply_ctx = PlanContext(
                rules=ctx.rules, geo=ctx.geo, seed=f"{seed}:{face}", moves_before=ctx.moves_before + len(candidate)
            )
            if whole_turn:
                faces.append(tuple(hard_dice_turn(leaf, reply_ctx)))
            else:
                faces.append(tuple(e for step in hard_dice_steps(leaf, reply_ctx) for e in step.edges))
        found.append(faces)
    return found


def early_exact_turn(pos: Position, ctx: PlanContext) -> tuple[int, ...] | None:
    """The exact best turn from the dice table where it is small enough (``EXPERT_TABLE_CELLS``)
    and the rules allow exact play (``solver_link.exact_dice_applies``); None if it does not
    apply or is not done within ``EXPERT_TABLE_SHARE`` of the time left."""
    die = ctx.rules.die
    if not die or (die + 1) << pos.open_edges > EXPERT_TABLE_CELLS or not exact_dice_applies(ctx, 0):
        return None
    module = solver()
    if module is None:
        return None
    deadline = time.perf_counter() + (ctx.deadline - time.perf_counter()) * EXPERT_TABLE_SHARE
    turn = module.best_dice_turn(pos.copy(), deadline=deadline, rules=ctx.rules)
    return None if turn is None else tuple(turn.edges)


def lookahead_share(ctx: PlanContext) -> float | None:
    """The share of ``LOOKAHEAD_SHARES`` for these rules: None where Expert does not look ahead
    exactly (no die, squares larger than 1x1, or boards not fitted)."""
    rules = ctx.rules
    if rules.die is None or rules.sizes != (1,):
        return None
    return LOOKAHEAD_SHARES.get((rules.boxes, rules.die, rules.capturing_edge_free))


def _spend(
    pos: Position,
    candidates: list[tuple[int, ...]],
    ctx: PlanContext,
    seed: int,
    horizon: int | None,
    until: float,
    replies: list[list[tuple[int, ...]]] | None,
) -> list[CandidateStats]:
    """The candidates' statistics from batches of playouts until ``until`` (perf_counter), by
    the pool (``ctx.evaluate``) when there is one, else in-process."""
    if ctx.evaluate is not None:
        seconds = max(0.0, until - time.perf_counter())
        return ctx.evaluate(pos, candidates, seed, horizon, seconds, replies)
    totals = [CandidateStats() for _ in candidates]
    # A multiple of the die, so that each batch meets every face of the reply once.
    batch = max(4, len(replies[0]) if replies else 0)
    done = 0
    # Leave room for the last batch: stop when another one would likely overrun.
    while True:
        t0 = time.perf_counter()
        stats = evaluate_candidates(
            pos,
            candidates,
            playouts=batch,
            seed=seed,
            die=ctx.rules.die,
            horizon=horizon,
            first_playout=done,
            replies=replies,
        )
        totals = [a + b for a, b in zip(totals, stats, strict=True)]
        done += batch
        spent = time.perf_counter() - t0
        if until - time.perf_counter() <= spent * 1.2:
            return totals
        if spent < 0.02:
            batch *= 2


def choose(
    pos: Position,
    candidates: list[tuple[int, ...]],
    ctx: PlanContext,
    horizon: int | None,
    caution: float = 0.0,
) -> tuple[int, ...]:
    """Evaluates the candidates in batches until the budget is spent; the best mean wins (see
    ``best_candidate`` for ``caution``). In dice games the opponent's next turn is Hard's, on
    every face of the die, where that fits in ``REPLY_SHARE`` of the budget."""
    seed = ctx.rng.getrandbits(63)
    replies = None
    if ctx.rules.die:
        share = time.perf_counter() + (ctx.deadline - time.perf_counter()) * REPLY_SHARE
        replies = hard_replies(pos, candidates, ctx, seed, share)
    totals = _spend(pos, candidates, ctx, seed, horizon, ctx.deadline, replies)
    return candidates[best_candidate(totals, caution)]


def look_ahead(pos: Position, candidates: list[tuple[int, ...]], ctx: PlanContext, share: float) -> tuple[int, ...]:
    """The candidate whose exact lookahead (see the module) is best, Hard's turn among equals;
    candidates whose replies do not fit the time are left out. Where not even the first one's
    fit, Hard's turn."""
    seed = ctx.rng.getrandbits(63)
    until = time.perf_counter() + (ctx.deadline - time.perf_counter()) * LOOKAHEAD_REPLY_SHARE
    replies = hard_replies(pos, candidates, ctx, seed, until, whole_turn=True)
    if replies is None:
        return candidates[0]
    weighed = candidates[: len(replies)]
    # One playout a face of the reply is the whole lookahead (``evaluation.exact_lookahead``):
    # in-process, as it is too quick to hand out to the pool.
    totals = evaluate_candidates(
        pos, weighed, playouts=len(replies[0]), seed=seed, die=ctx.rules.die, horizon=LOOKAHEAD_TURNS,
        replies=replies, cut_share=share,
    )  # fmt: skip
    return weighed[best_candidate(totals)]


class Expert:
    name = "expert"

    def __init__(self) -> None:
        self.hard = Hard()

    def plan(self, pos: Position, ctx: PlanContext) -> list[int]:
        # Leave headroom for the driver and the clock's coarseness.
        ctx.budget = max(0.0, ctx.budget * 0.9)
        if ctx.rules.die is None:
            line = exact_standard_line(pos, ctx)
            if line is not None:
                return list(line)
            candidates = standard_candidates(pos, ctx)
            horizon = None
            caution = 0.0
        else:
            exact = exact_dice_turn if exact_dice_applies(ctx, pos.open_edges) else early_exact_turn
            turn = exact(pos, ctx)
            if turn is not None:
                return list(turn)
            share = lookahead_share(ctx)
            if share is not None:
                candidates = dice_candidates(pos, ctx, MAX_LOOKAHEAD_CANDIDATES)
                if len(candidates) > 1:
                    return list(look_ahead(pos, candidates, ctx, share))
            else:
                candidates = dice_candidates(pos, ctx)
            cut = ctx.rules.boxes in CUT_BOARDS and pos.open_edges > CUT_OPEN_EDGES
            horizon = CUT_TURNS if cut else None
            caution = DICE_CAUTION
        if not candidates:
            return self.hard.plan(pos, ctx)
        if len(candidates) == 1:
            return list(candidates[0])
        return list(choose(pos, candidates, ctx, horizon, caution))
