"""Expert: the candidate evaluation is a pure, deterministic function; Expert plays legal turns."""

from __future__ import annotations

import time

import pytest

from boxedin.ai import solver, tasks
from boxedin.ai.context import PlanContext
from boxedin.ai.evaluation import CandidateStats, after_turn, evaluate_candidates, playout_seed
from boxedin.ai.expert import (
    DICE_CAUTION,
    MAX_DICE_CANDIDATES,
    Expert,
    _declines,
    best_candidate,
    dice_candidates,
    distinct_outcomes,
    early_exact_turn,
    hard_replies,
    standard_candidates,
)
from boxedin.ai.hard import candidate_turns, hard_dice_turn
from boxedin.ai.playout import margin, new_shorts, policy_playout
from boxedin.ai.solver_link import exact_dice_applies
from boxedin.ai.turn import take_turn
from boxedin.engine.game import Game

from ai_helpers import context, dice_position_with_open_lines, new_game, rolled


def test_same_inputs_and_seed_give_the_same_statistics():
    game = rolled("quick")
    ctx = context(game)
    candidates = dice_candidates(game.position.copy(), ctx)
    assert candidates
    first = evaluate_candidates(game.position, candidates, playouts=12, seed=99, die=6)
    again = evaluate_candidates(game.position, candidates, playouts=12, seed=99, die=6)
    assert first == again
    other = evaluate_candidates(game.position, candidates, playouts=12, seed=100, die=6)
    assert other != first
    assert all(s.playouts == 12 for s in first)


def test_batches_add_up_to_one_evaluation():
    game = rolled("mini", moves=4)
    candidates = dice_candidates(game.position.copy(), context(game))
    whole = evaluate_candidates(game.position, candidates, playouts=8, seed=5, die=4)
    halves = [
        evaluate_candidates(game.position, candidates, playouts=4, seed=5, die=4, first_playout=k) for k in (0, 4)
    ]
    summed = [a + b for a, b in zip(*halves, strict=True)]
    assert [s.total for s in summed] == [s.total for s in whole]
    assert [s.cross for s in summed] == [s.cross for s in whole]


def test_candidates_of_different_lengths_meet_the_same_dice():
    # The playouts' dice have a stream of their own, so a candidate that draws one line more
    # still meets the same rolls: the paired spread of two candidates is well below what two
    # unrelated sets of playouts would show (with one stream for dice and choices it was not).
    game = rolled("classic", moves=12)
    pos = game.position
    [hard, *_] = dice_candidates(pos.copy(), context(game))
    quiet = [e for e in pos.open_edge_list() if e not in hard and new_shorts(pos, e) == 0]
    candidates = [hard, (*hard, quiet[0])] if len(hard) < pos.edges_left else [hard, hard[:1]]
    first, other = evaluate_candidates(pos, candidates, playouts=300, seed=8, die=6)
    _, paired = other.gain_over(first)

    def variance(s: CandidateStats) -> float:
        return s.total_sq / s.playouts - s.mean**2

    unpaired = ((variance(first) + variance(other)) / 300) ** 0.5
    assert paired < 0.7 * unpaired


def stats(values: list[float], first: list[float]) -> CandidateStats:
    return CandidateStats(
        len(values),
        sum(values),
        sum(v * v for v in values),
        sum(v > 0 for v in values),
        sum(v < 0 for v in values),
        sum(v * f for v, f in zip(values, first, strict=True)),
    )


def test_gain_over_the_first_candidate_is_paired():
    first = [3.0, -1.0, 3.0, -1.0]
    same_dice = stats([4.0, 0.0, 4.0, 0.0], first)  # one point better on every playout
    gain, error = same_dice.gain_over(stats(first, first))
    assert (gain, error) == (1.0, 0.0)


def test_caution_keeps_hards_turn_unless_the_gain_is_sure():
    first = [0.0, 0.0, 0.0, 0.0]
    lucky = stats([8.0, -4.0, 8.0, -4.0], first)  # mean +2, standard error 3
    sure = stats([1.0, 1.0, 1.0, 1.0], first)  # +1 on every playout
    totals = [stats(first, first), lucky, sure]
    assert best_candidate(totals) == 1  # the best mean
    assert best_candidate(totals, caution=1.0) == 2  # the surest gain
    assert best_candidate(totals[:2], caution=1.0) == 0  # nothing sure: the first candidate


def test_dice_caution_asks_more_than_two_standard_errors():
    # Up to nine alternatives are each compared with Hard's turn: a gain of 2.3 standard errors
    # is what the luckiest of them often shows by chance, so it does not replace Hard's turn;
    # a gain on every playout (no error at all) still does.
    first = [0.0, 0.0, 0.0, 0.0]
    noisy = stats([3.0, 3.0, 3.0, -1.0], first)
    gain, error = noisy.gain_over(stats(first, first))
    assert 2.0 < gain / error < DICE_CAUTION
    totals = [stats(first, first), noisy]
    assert best_candidate(totals, caution=DICE_CAUTION) == 0
    assert best_candidate([*totals, stats([0.5] * 4, first)], caution=DICE_CAUTION) == 2


def test_a_transcript_is_as_good_as_a_position():
    game = rolled("strategic", "builder")
    transcript = {
        "mode": "strategic",
        "overlap": "builder",
        "actions": [a.to_json() for a in game.actions],
    }
    candidates = dice_candidates(game.position.copy(), context(game))
    by_position = evaluate_candidates(game.position, candidates, playouts=4, seed=1, die=8, horizon=8)
    by_transcript = evaluate_candidates(transcript, candidates, playouts=4, seed=1, horizon=8)
    assert by_position == by_transcript


def test_standard_candidates_include_the_double_cross():
    # Boxes (0,0)..(0,2) of the top row form a chain opened at (0,0); row 1 is walled off.
    game = new_game("practice_3x3")
    geo = game.geo
    from boxedin.engine.board import Edge

    walls = [Edge("h", 0, c) for c in range(3)] + [Edge("h", 1, c) for c in range(3)]
    walls += [Edge("v", 0, 0)]
    pos = game.position.copy()
    for edge in walls:
        pos.draw(geo.edge_id(edge))
    # Whoever is to move: (0,0) is one short; the chain (0,0)-(0,1)-(0,2) ends at the rim.
    ctx = PlanContext(game.rules, geo, "t", 0, 0.05)
    assert pos.missing(0) == 1
    candidates = standard_candidates(pos, ctx)
    far_end = geo.edge_id(Edge("v", 0, 3))
    assert any(c[-1] == far_end and len(c) == 2 for c in candidates), candidates
    assert far_end in _declines(_after(pos, geo.edge_id(Edge("v", 0, 1))), ctx)


def _after(pos, edge):
    pos = pos.copy()
    pos.draw(edge)
    return pos


def test_expert_plays_legal_turns_with_a_tiny_budget():
    for mode, overlap in (("mini", None), ("practice_2x2", None), ("big_squares", "fortress")):
        game = new_game(mode, overlap, seed="x")
        for _ in range(3):
            if game.over:
                break
            for action in take_turn(game, Expert(), seed="x", budget=0.03):
                game.apply(action)


def _replies_of(game: Game, candidates: list[tuple[int, ...]]) -> list[list[tuple[int, ...]]]:
    ctx = context(game)
    found = hard_replies(game.position, candidates, ctx, seed=4, deadline=time.perf_counter() + 60)
    assert found is not None
    return found


def test_hards_reply_on_every_face_is_a_legal_turn():
    game = rolled("classic", moves=12)
    pos = game.position
    candidates = dice_candidates(pos.copy(), context(game))
    replies = _replies_of(game, candidates)
    assert len(replies) == len(candidates)
    for candidate, faces in zip(candidates, replies, strict=True):
        assert len(faces) == 6
        for face, reply in enumerate(faces, start=1):
            assert 1 <= len(reply) <= face
            after = pos.copy()
            for edge in candidate:
                after.draw(edge)
            if after.to_move == pos.to_move:  # a turn that used up its roll has ended already
                after.end_turn()
            after.roll(face)
            for edge in reply:
                assert after.to_move == 1 - pos.to_move and after.drawn_by(edge) == 0
                after.draw(edge)


def test_replies_not_ready_by_the_deadline_are_given_up():
    game = rolled("classic", moves=12)
    candidates = dice_candidates(game.position.copy(), context(game))
    assert hard_replies(game.position, candidates, context(game), seed=4, deadline=0.0) is None


def test_with_replies_playout_j_starts_from_the_reply_to_face_j_mod_die():
    """Stratified over the opponent's roll: every six playouts (a d6) meet each face once, and
    a batch that starts at playout 7 starts at face 2."""
    game = rolled("classic", moves=12)
    pos = game.position
    me = pos.to_move
    candidates = dice_candidates(pos.copy(), context(game))[:3]
    replies = _replies_of(game, candidates)
    stats = evaluate_candidates(pos, candidates, playouts=8, seed=3, die=6, replies=replies, first_playout=7)
    for candidate, faces, got in zip(candidates, replies, stats, strict=True):
        values = []
        for j in range(7, 15):
            face = j % 6 + 1
            leaf = pos.copy()
            for edge in [*candidate, "end", "roll", *faces[face - 1], "end"]:
                if edge == "end":
                    if not leaf.over and leaf.phase == 1:
                        leaf.end_turn()
                elif edge == "roll":
                    leaf.roll(face)
                else:
                    leaf.draw(edge)
            policy_playout(leaf, playout_seed(3, j))
            values.append(margin(leaf, me))
        assert got.total == pytest.approx(sum(values))
        assert got.total_sq == pytest.approx(sum(v * v for v in values))


def test_replies_that_do_not_fit_are_refused():
    game = rolled("classic", moves=12)
    pos = game.position
    candidates = dice_candidates(pos.copy(), context(game))[:2]
    replies = _replies_of(game, candidates)
    some_drawn_line = next(e for e in range(112) if pos.drawn_by(e))
    wrong = {
        "a face missing": [faces[:5] for faces in replies],
        "a candidate missing": replies[:1],
        "a line already drawn": [[(some_drawn_line,)] * 6, replies[1]],
        "no line at all": [[()] * 6, replies[1]],
        "more lines than the face": [[replies[0][5]] * 6, replies[1]],
    }
    for name, bad in wrong.items():
        with pytest.raises(ValueError):
            evaluate_candidates(pos, candidates, playouts=2, seed=1, die=6, replies=bad)
        assert name
    with pytest.raises(ValueError, match="dice games"):
        evaluate_candidates(pos, candidates, playouts=2, seed=1, replies=replies)


def test_a_worker_with_replies_adds_up_like_in_process():
    game = rolled("classic", moves=12)
    pos = game.position
    candidates = dice_candidates(pos.copy(), context(game))[:3]
    replies = _replies_of(game, candidates)
    rules = game.rules
    wire = [rules.boxes, list(rules.sizes), int(rules.overlap), 6, rules.capturing_edge_free, rules.capture_owes_line]
    raw = tasks.evaluate(
        wire, list(pos.state_array()), [list(c) for c in candidates], time.time() + 0.05, 9, None, 0,
        [[list(r) for r in faces] for faces in replies],
    )  # fmt: skip
    done = raw[0]["playouts"]
    here = evaluate_candidates(pos, candidates, playouts=done, seed=9, die=6, replies=replies)
    for worker, local in zip(map(tasks.stats_from_json, raw), here, strict=True):
        assert worker.playouts == local.playouts
        assert worker.total == pytest.approx(local.total)
        assert worker.cross == pytest.approx(local.cross)


def test_dice_candidates_start_with_hards_turn_and_weigh_every_turn_hard_weighs():
    game = rolled("classic", moves=12)
    pos = game.position
    ctx = context(game)
    candidates = dice_candidates(pos.copy(), ctx)
    assert candidates[0] == tuple(hard_dice_turn(pos.copy(), context(game)))
    outcomes = {after_turn(pos, c, 6).state_array().tobytes() for c in candidates}
    assert len(outcomes) == len(candidates)  # one candidate per position reached
    # Hard's quiet one-line turns (chosen without chance) are among them, room permitting.
    quiet = [t for t in candidate_turns(pos.copy(), context(game)) if len(t) == 1]
    assert quiet
    assert len(candidates) == MAX_DICE_CANDIDATES or all(
        after_turn(pos, turn, 6).state_array().tobytes() in outcomes for turn in quiet
    )


def test_the_same_lines_in_another_order_are_one_candidate():
    game = rolled("classic", moves=12)
    pos = game.position
    quiet = [e for e in pos.open_edge_list() if new_shorts(pos, e) == 0 and pos.edges_left >= 2]
    a, b, c = quiet[:3]
    assert distinct_outcomes(pos, [(a, b), (b, a), (a, c)], 6) == [(a, b), (a, c)]


def test_expert_plays_exactly_a_line_earlier_where_the_table_is_small():
    """19 open lines on the Classic board (7x7, d6): more than the rule book's 14 and the
    shared early threshold (18), but the table of every set of drawn lines still fits."""
    open_lines = [f"h {r} {c}" for r in range(3) for c in range(7)][:19]
    game, pos, _ = dice_position_with_open_lines(7, 6, open_lines, roll=3)
    ctx = PlanContext(game.rules, game.geo, "t", 0, 30.0)
    assert pos.open_edges == 19 and not exact_dice_applies(ctx, pos.open_edges)
    turn = early_exact_turn(pos, ctx)
    best = solver.best_dice_turn(pos.copy(), rules=game.rules)
    assert best is not None and turn == best.edges
    assert early_exact_turn(pos, PlanContext(game.rules, game.geo, "t", 0, 0.0)) is None  # no time
    open_lines.append("h 2 5")  # 20 lines: the table is too big for the turn
    game, pos, _ = dice_position_with_open_lines(7, 6, open_lines, roll=3)
    assert early_exact_turn(pos, PlanContext(game.rules, game.geo, "t", 0, 30.0)) is None
