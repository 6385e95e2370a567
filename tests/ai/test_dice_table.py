"""The dice table (exact dice endgames where scoring depends on the drawn lines alone) against the
general expectimax search, ``DiceSearch``, which plays every line on the engine's own position."""

from __future__ import annotations

import random
import time

import pytest
from test_solver import check_dice, dice_cases, fresh, random_position

from boxedin.ai._dice_search import DiceSearch
from boxedin.ai.context import PlanContext
from boxedin.ai.solver import best_dice_turn, dice_table
from boxedin.ai.solver_link import EXACT_OPEN_EDGES, exact_dice_applies, exact_dice_turn
from boxedin.engine.board import geometry
from boxedin.engine.rules import MODES, Overlap, RuleSet

DICE_RULES = {
    "classic": MODES["classic"].rules,
    "chain_reaction": MODES["chain_reaction"].rules,
    "strategic_independent": RuleSet(9, 8, (1, 2), Overlap.INDEPENDENT),
    "big_squares_independent": RuleSet(9, 10, (1, 2, 3), Overlap.INDEPENDENT),
}


@pytest.mark.parametrize("name", list(DICE_RULES))
def test_table_matches_the_general_search(name: str) -> None:
    rules = DICE_RULES[name]
    die = rules.die
    assert die is not None
    for pos in dice_cases(rules, 40, 12, 11):
        table, _ = dice_table(pos, die, rules)
        assert table.solve()
        general = DiceSearch(pos.copy(), die, True).best_turn(0.0)
        assert general is not None
        if pos.phase == 0:
            assert table.roll_value(0) == pytest.approx(general[0], abs=1e-9)
        else:
            value, _, _ = table.best_lines(0, pos.edges_left, pos.drawn_this_turn > 0)
            assert value == pytest.approx(general[0], abs=1e-9)


def test_the_planned_turn_is_worth_its_value() -> None:
    rules = MODES["classic"].rules
    for pos in dice_cases(rules, 41, 10, 9):
        turn = best_dice_turn(pos, rules=rules)
        assert turn is not None
        check_dice(pos, rules, turn, {})


def test_a_box_one_line_short_is_taken_whatever_the_roll() -> None:
    rules = RuleSet(1, 6)
    pos = fresh(rules)
    geo = geometry(1, (1,))
    for e in geo.outline_ids(0)[:3]:
        if pos.phase == 0:
            pos.roll(6)
        pos.draw(e)
    pos.end_turn()
    turn = best_dice_turn(pos, rules=rules)
    assert turn is not None and turn.value == 1.0  # before the roll: every face takes it
    pos.roll(1)
    turn = best_dice_turn(pos, rules=rules)
    assert turn is not None and turn.value == 1.0 and turn.edges == (geo.outline_ids(0)[3],)


def test_a_lone_box_goes_to_who_draws_its_fourth_line() -> None:
    # One box, four open lines, d2: the mover draws 1 or 2. The values follow by hand: with one
    # line open the mover takes it (1); with two open the mover draws both on a 2 (1) and on a 1
    # leaves one to the opponent (-1): 0 before the roll.
    rules = RuleSet(1, 2)
    pos = fresh(rules)
    geo = geometry(1, (1,))
    pos.roll(2)
    for e in geo.outline_ids(0)[:2]:
        pos.draw(e)
    turn = best_dice_turn(pos, rules=rules)
    assert turn is not None and turn.value == 0.0


def test_expert_plays_exactly_from_fourteen_open_lines_within_its_budget() -> None:
    rules = MODES["classic"].rules
    pos = random_position(rules, EXACT_OPEN_EDGES, random.Random(7))
    if pos.phase == 0:
        pos.roll(3)
    ctx = PlanContext(rules=rules, geo=geometry(rules.boxes, rules.sizes), seed="t", moves_before=0, budget=0.7)
    turn = exact_dice_turn(pos, ctx)
    assert turn is not None
    exact = best_dice_turn(pos, rules=rules)
    assert exact is not None and turn == exact.edges


def test_table_gives_up_at_its_deadline() -> None:
    rules = MODES["classic"].rules
    pos = random_position(rules, 20, random.Random(8))
    assert best_dice_turn(pos, rules=rules, deadline=time.perf_counter() + 0.001) is None


def test_table_needs_open_lines_and_a_die() -> None:
    rules = MODES["classic"].rules
    pos = random_position(rules, 10, random.Random(9))
    table, lines = dice_table(pos, 6, rules)
    assert len(lines) == 10
    with pytest.raises(ValueError):
        type(table)(0, 6, False, [0], [], [])
    with pytest.raises(ValueError):
        type(table)(4, 0, False, [0] * 5, [], [])


def _applies(rules: RuleSet, open_lines: int) -> bool:
    ctx = PlanContext(rules=rules, geo=geometry(rules.boxes, rules.sizes), seed="t", moves_before=0)
    return exact_dice_applies(ctx, open_lines)


def test_where_expert_plays_exactly() -> None:
    # The rule book's 14 open lines in every 1x1 dice mode but chain_reaction, and in the larger
    # modes under independent; earlier where the table is small (18 lines with a d6, 17 above).
    assert _applies(MODES["classic"].rules, EXACT_OPEN_EDGES)
    assert _applies(MODES["classic"].rules, 18) and not _applies(MODES["classic"].rules, 19)
    assert _applies(MODES["marathon"].rules, 17) and not _applies(MODES["marathon"].rules, 18)
    assert not _applies(MODES["chain_reaction"].rules, 10)
    assert not _applies(MODES["standard"].rules, 10)
    big = MODES["big_squares"].rules
    assert _applies(big, 10)  # Big Squares starts on independent
    assert _applies(RuleSet(big.boxes, big.die, big.sizes, Overlap.INDEPENDENT), 17)
    assert not _applies(RuleSet(big.boxes, big.die, big.sizes, Overlap.CONSUME), 10)
