"""Expert's exact lookahead in dice games with 1x1 boxes: every candidate turn, then the turn Hard
would play in reply on every face of the die, then the share of Expert's own best reply that
its next turn can be expected to net (the fit of that share, `boxedin ai fit-share`:
tests/tools/test_share_fit.py)."""

from __future__ import annotations

import time

import pytest

from boxedin.ai import tasks
from boxedin.ai.context import PlanContext
from boxedin.ai.evaluation import after_turn, evaluate_candidates, exact_lookahead, score_cut_playout
from boxedin.ai.expert import (
    LOOKAHEAD_SHARES,
    LOOKAHEAD_TURNS,
    Expert,
    dice_candidates,
    hard_replies,
    look_ahead,
    lookahead_share,
)
from boxedin.ai.hard import Hard
from boxedin.ai.playout import margin, reply_total
from boxedin.ai.turn import take_turn
from boxedin.engine.game import Game

from ai_helpers import context, new_game, rolled

Turns = list[tuple[int, ...]]


def classic_replies(count: int, seed: int) -> tuple[Game, Turns, list[Turns]]:
    """A Classic position, its first ``count`` candidate turns and Hard's whole-turn replies to
    them on every face (time enough for all)."""
    game = rolled("classic", moves=12, seed="look")
    candidates = dice_candidates(game.position.copy(), context(game))[:count]
    replies = hard_replies(game.position, candidates, context(game), seed, time.perf_counter() + 60, whole_turn=True)
    assert replies is not None and len(replies) == len(candidates)
    return game, candidates, replies


def lookahead_value(game: Game, candidate: tuple[int, ...], replies: list[tuple[int, ...]], share: float) -> float:
    """The lookahead of one candidate worked out by hand: the mean over the faces of the margin
    after Hard's reply plus the share of the mover's mean best reply there."""
    pos = game.position
    me = pos.to_move
    die = game.rules.die
    assert die is not None
    values = []
    for face, reply in enumerate(replies, start=1):
        leaf = after_turn(pos, candidate, die)
        if leaf.over:
            values.append(float(margin(leaf, me)))
            continue
        leaf.roll(face)
        for edge in reply:
            leaf.draw(edge)
        if not leaf.over and leaf.to_move != me:
            leaf.end_turn()
        value = float(margin(leaf, me))
        if not leaf.over:
            value += share * reply_total(leaf, me) / die
        values.append(value)
    return sum(values) / die


def test_expert_looks_ahead_exactly_on_the_boards_of_1x1_boxes_whose_share_was_fitted():
    modes = ("classic", "quick", "chain_reaction", "mini", "marathon", "strategic", "standard")
    shares = {mode: lookahead_share(context(new_game(mode, None, seed="s"))) for mode in modes}
    assert shares == {
        "classic": LOOKAHEAD_SHARES[(7, 6, False)],
        "quick": LOOKAHEAD_SHARES[(5, 6, False)],
        # The Classic board with free captures is another game, with a share of its own.
        "chain_reaction": LOOKAHEAD_SHARES[(7, 6, True)],
        "mini": None,
        "marathon": None,
        "strategic": None,  # squares of two sizes: the playouts
        "standard": None,  # no die
    }
    assert all(0 < share < 1 for share in LOOKAHEAD_SHARES.values())


def test_the_reply_on_every_face_is_the_turn_hard_would_play_there():
    game, candidates, replies = classic_replies(3, seed=5)
    pos = game.position
    for candidate, faces in zip(candidates, replies, strict=True):
        start = after_turn(pos, candidate, 6)
        for face, reply in enumerate(faces, start=1):
            leaf = start.copy()
            leaf.roll(face)
            reply_ctx = PlanContext(game.rules, game.geo, f"5:{face}", len(game.history) + len(candidate))
            assert list(reply) == Hard().plan(leaf.copy(), reply_ctx)


def test_whole_turn_replies_keep_the_first_candidates_that_fit_the_time():
    game = rolled("classic", moves=12, seed="look")
    pos = game.position
    ctx = context(game)
    candidates = dice_candidates(pos.copy(), ctx)
    assert hard_replies(pos, candidates, ctx, seed=5, deadline=0.0, whole_turn=True) is None
    # With time for a few, the first candidates are kept whole (six faces each), in order.
    one = time.perf_counter()
    hard_replies(pos, candidates[:1], ctx, seed=5, deadline=one + 60, whole_turn=True)
    each = time.perf_counter() - one
    some = hard_replies(pos, candidates, ctx, seed=5, deadline=time.perf_counter() + 2.5 * each, whole_turn=True)
    assert some is not None and 1 <= len(some) < len(candidates)
    assert all(len(faces) == 6 for faces in some)


def test_a_playout_cut_after_the_reply_credits_the_share_of_the_best_reply():
    game = rolled("classic", moves=12, seed="look")
    pos = game.position
    leaf = after_turn(pos, dice_candidates(pos.copy(), context(game))[0], 6)
    mover = leaf.to_move
    best = reply_total(leaf, mover) / 6
    assert best > 0
    assert score_cut_playout(leaf, mover, 6, 0.59) == pytest.approx(0.59 * best)
    assert score_cut_playout(leaf, 1 - mover, 6, 0.59) == pytest.approx(-0.59 * best)


def test_the_lookahead_is_exact_and_one_batch_is_all_of_it():
    game, candidates, replies = classic_replies(4, seed=2)
    pos = game.position
    assert exact_lookahead(LOOKAHEAD_TURNS, replies) and not exact_lookahead(None, replies)
    assert not exact_lookahead(LOOKAHEAD_TURNS, None)
    six = evaluate_candidates(pos, candidates, playouts=6, seed=2, die=6, horizon=1, replies=replies, cut_share=0.59)
    twelve = evaluate_candidates(
        pos, candidates, playouts=12, seed=8, die=6, horizon=1, replies=replies, cut_share=0.59
    )
    for candidate, faces, a, b in zip(candidates, replies, six, twelve, strict=True):
        assert a.mean == pytest.approx(lookahead_value(game, candidate, list(faces), 0.59))
        assert b.mean == pytest.approx(a.mean)  # more playouts repeat the same six
    # A worker asked for an exact lookahead plays it once, however long it is given.
    rules = game.rules
    wire = [rules.boxes, list(rules.sizes), int(rules.overlap), 6, rules.capturing_edge_free, rules.capture_owes_line]
    raw = tasks.evaluate(
        wire, list(pos.state_array()), [list(c) for c in candidates], time.time() + 0.2, 2, 1, 0,
        [[list(r) for r in faces] for faces in replies], 0.59,
    )  # fmt: skip
    assert [tasks.stats_from_json(r).playouts for r in raw] == [6] * len(candidates)
    assert [tasks.stats_from_json(r).mean for r in raw] == pytest.approx([s.mean for s in six])


def test_expert_plays_the_candidate_whose_lookahead_is_best():
    game = rolled("classic", moves=20, seed="look")
    pos = game.position
    candidates = dice_candidates(pos.copy(), context(game, budget=30.0), 48)
    assert len(candidates) > 10  # more than the playouts could weigh
    share = LOOKAHEAD_SHARES[(7, 6, False)]
    chosen = look_ahead(pos, candidates, context(game, budget=30.0), share)
    # The same replies as Expert's: Hard's tie-breaks are seeded by the turn's first random number.
    seed = context(game, budget=30.0).rng.getrandbits(63)
    replies = hard_replies(pos, candidates, context(game), seed, time.perf_counter() + 60, whole_turn=True)
    assert replies is not None
    values = [lookahead_value(game, c, list(f), share) for c, f in zip(candidates, replies, strict=True)]
    first_best = next(c for c, v in zip(candidates, values, strict=True) if v >= max(values) - 1e-9)
    assert chosen == first_best
    assert len(set(round(v, 6) for v in values)) > 1  # the candidates differ: the choice means something


def test_expert_plays_legal_classic_turns_by_lookahead_within_its_budget():
    game = new_game("classic", None, seed="legal")
    expert = Expert()
    slowest = 0.0
    while not game.over:
        seat = game.to_move
        started = time.perf_counter()
        level = expert if seat == 1 else "hard"
        for action in take_turn(game, level, seed=f"legal:{len(game.history)}", budget=0.7):
            game.apply(action)  # the game refuses anything the rules do not allow
        if seat == 1:
            slowest = max(slowest, time.perf_counter() - started)
    assert sum(game.scores) == 49
    assert slowest < 5.0  # a generous bound: the budget is a target, checked by `boxedin match`
