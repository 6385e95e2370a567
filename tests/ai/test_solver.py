"""The exact solvers against plain brute force, and against values known from the literature.

The brute-force references below search every line (and, in dice games, every face and the choice
to end a turn) on the engine's own position. They keep a memo of exact values (a position reached
twice is not searched twice) but nothing else: no bounds, no pruning, no move reductions, no
chain analysis, so they are slow but obviously right.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from boxedin.ai.chains import components, controlled_value, loony_value, sizes_of
from boxedin.ai.solver import (
    DiceTurn,
    SolveResult,
    best_dice_turn,
    board_shape,
    solve_standard,
    standard_endgame_small_enough,
)
from boxedin.engine.board import Edge, geometry
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap, RuleSet

Position = Any


# --- building positions -------------------------------------------------------------------


def standard_rules(boxes: int) -> RuleSet:
    return RuleSet(boxes, None, capture_owes_line=True)


def fresh(rules: RuleSet) -> Position:
    return Game(rules).position.copy()


def random_position(rules: RuleSet, open_lines: int, rng: random.Random) -> Position:
    """Random legal play (random rolls too) until ``open_lines`` lines are left."""
    pos = fresh(rules)
    while pos.open_edges > open_lines and not pos.over:
        if pos.phase == 0:
            pos.roll(rng.randint(1, rules.die or 1))
        else:
            pos.draw(rng.choice(pos.open_edge_list()))
    pos.forget_history()
    return pos


def with_open_lines(boxes: int, open_lines: list[str]) -> Position:
    """A standard position where exactly the given lines ("h r c" / "v r c") are still open."""
    geo = geometry(boxes, (1,))
    keep = set()
    for line in open_lines:
        kind, row, col = line.split()
        keep.add(geo.edge_id(Edge("h" if kind == "h" else "v", int(row), int(col))))
    pos = fresh(standard_rules(boxes))
    for e in range(geo.edge_count):
        if e not in keep:
            pos.draw(e)
    assert not pos.over and pos.open_edges == len(keep)
    pos.forget_history()
    return pos


# --- brute force ----------------------------------------------------------------------------


def brute_standard(pos: Position, memo: dict[tuple[int, ...], int] | None = None) -> int:
    """Minimax over every line: the mover's boxes minus the opponent's from here on. The value
    depends only on which lines are open, whoever is to move."""
    memo = {} if memo is None else memo
    if pos.over:
        return 0
    key = tuple(pos.open_edge_list())
    if key in memo:
        return memo[key]
    me = pos.to_move
    best = -1000
    for e in pos.open_edge_list():
        before = pos.score(me) - pos.score(1 - me)
        pos.draw(e)
        gain = pos.score(me) - pos.score(1 - me) - before
        if pos.over:
            value = gain
        elif pos.to_move == me:
            value = gain + brute_standard(pos, memo)
        else:
            value = gain - brute_standard(pos, memo)
        pos.undo()
        best = max(best, value)
    memo[key] = best
    return best


def _dice_key(pos: Position) -> bytes:
    # The engine's state without the scores (slots 4, 5) and the turn count (slot 7), which cannot
    # change what happens from here on (checked in test_state_layout_assumed_by_brute_force).
    state = pos.state_array()
    state[4] = state[5] = state[7] = 0
    return state.tobytes()


def brute_dice(pos: Position, die: int, memo: dict[bytes, float] | None = None) -> float:
    """Expectimax: the mover's expected points minus the opponent's from here on."""
    memo = {} if memo is None else memo
    if pos.over:
        return 0.0
    key = _dice_key(pos)
    known = memo.get(key)
    if known is not None:
        return known
    me = pos.to_move
    if pos.phase == 0:
        total = 0.0
        for face in range(1, die + 1):
            pos.roll(face)
            total += brute_dice(pos, die, memo)
            pos.undo()
        value = total / die
    else:
        options = []
        if pos.drawn_this_turn > 0:
            pos.end_turn()
            options.append(-brute_dice(pos, die, memo))
            pos.undo()
        before = pos.score(me) - pos.score(1 - me)  # each line is drawn from here and undone
        for e in pos.open_edge_list():
            pos.draw(e)
            gain = pos.score(me) - pos.score(1 - me) - before
            if pos.over:
                options.append(gain)
            elif pos.to_move == me:
                options.append(gain + brute_dice(pos, die, memo))
            else:
                options.append(gain - brute_dice(pos, die, memo))
            pos.undo()
        value = max(options)
    memo[key] = value
    return value


# --- standard rules: against brute force ------------------------------------------------------


def check_line(pos: Position, result: SolveResult, memo: dict[tuple[int, ...], int]) -> None:
    """The line is one legal turn, and playing it is worth the value the solver claims."""
    pos = pos.copy()
    me = pos.to_move
    start = pos.score(me) - pos.score(1 - me)
    assert result.line, "a running game always has a line to draw"
    for i, e in enumerate(result.line):
        assert pos.drawn_by(e) == 0, f"line {e} is already drawn"
        assert pos.to_move == me and not pos.over, "the line goes on after the turn has ended"
        pos.draw(e)
        if i < len(result.line) - 1:
            assert pos.to_move == me, "only the last line of the turn may pass it"
    assert pos.over or pos.to_move != me, "the turn has not ended"
    gained = pos.score(me) - pos.score(1 - me) - start
    rest = 0 if pos.over else brute_standard(pos, memo)
    assert gained - rest == result.value


@pytest.mark.parametrize("boxes", [2, 3, 4])
def test_standard_solver_matches_brute_force(boxes: int) -> None:
    rng = random.Random(1000 + boxes)
    rules = standard_rules(boxes)
    checked = 0
    for _ in range(60):
        pos = random_position(rules, rng.randint(1, 12), rng)
        if pos.over:
            continue
        memo: dict[tuple[int, ...], int] = {}
        result = solve_standard(pos)
        assert result is not None
        assert result.value == brute_standard(pos.copy(), memo), pos.open_edge_list()
        check_line(pos, result, memo)
        checked += 1
    assert checked >= 50


def test_standard_solver_from_safe_play_positions() -> None:
    """Positions as games reach them (nobody gives a box away while they can help it), where the
    capture rules and the chain leaves do most of the work."""
    rng = random.Random(7)
    geo = geometry(4, (1,))
    for _ in range(25):
        pos = fresh(standard_rules(4))
        target = rng.randint(6, 12)
        while pos.open_edges > target and not pos.over:
            lines = pos.open_edge_list()
            takes = [e for e in lines if any(pos.missing(q) == 1 for q in geo.squares_on(e))]
            safe = [e for e in lines if all(pos.missing(q) > 2 for q in geo.squares_on(e))]
            pos.draw(rng.choice(takes or safe or lines))
        pos.forget_history()
        if pos.over:
            continue
        result = solve_standard(pos)
        assert result is not None
        memo: dict[tuple[int, ...], int] = {}
        assert result.value == brute_standard(pos.copy(), memo)
        check_line(pos, result, memo)


def test_solver_leaves_the_position_alone() -> None:
    pos = random_position(standard_rules(3), 10, random.Random(3))
    before = pos.state_array()
    solve_standard(pos)
    standard_endgame_small_enough(pos)
    assert pos.state_array() == before


def test_game_over_is_worth_nothing() -> None:
    pos = random_position(standard_rules(2), 0, random.Random(1))
    assert pos.over
    assert solve_standard(pos) == SolveResult(0, ())


def test_budget_runs_out() -> None:
    pos = fresh(standard_rules(4))
    assert solve_standard(pos, max_nodes=2000) is None
    assert solve_standard(pos, deadline=time.perf_counter() + 0.05) is None


def test_rejects_positions_that_are_not_standard() -> None:
    pos = fresh(MODES["mini"].rules)  # a dice game: it waits for a roll
    with pytest.raises(ValueError):
        solve_standard(pos)
    with pytest.raises(ValueError):
        solve_standard(fresh(standard_rules(3)), rules=MODES["mini"].rules)


# --- standard rules: known values -------------------------------------------------------------

# Chains and loops, each alone on a board whose other boxes are all taken, or together.
TOP_ROW_3 = ["v 0 0", "v 0 1", "v 0 2", "v 0 3"]
BOTTOM_ROW_3 = ["v 2 0", "v 2 1", "v 2 2", "v 2 3"]
L_CHAIN_5 = ["v 0 0", "v 0 1", "v 0 2", "h 1 2", "h 2 2", "h 3 2"]  # (0,0)-(0,2) then down
LOOP_2X2 = ["h 1 0", "h 1 1", "v 0 1", "v 1 1"]  # the four boxes of a 2x2 board, around its centre
LOOP_TOP_LEFT = LOOP_2X2
CHAIN_AROUND_5 = ["h 0 2", "h 1 2", "h 2 2", "v 2 2", "v 2 1", "v 2 0"]  # right column, bottom row


@pytest.mark.parametrize(
    ("boxes", "lines", "value", "chains", "loops"),
    [
        (3, TOP_ROW_3, -3, (3,), ()),
        (4, ["v 0 0", "v 0 1", "v 0 2", "v 0 3", "v 0 4"], -4, (4,), ()),
        (3, L_CHAIN_5, -5, (5,), ()),
        # Along the bottom row, then up the right-hand column to the rim.
        (4, ["v 3 0", "v 3 1", "v 3 2", "v 3 3", "h 3 3", "h 2 3", "v 1 4"], -6, (6,), ()),
        # Two chains of 3: the controller takes 1 and declines 2, then takes the other 3.
        (3, TOP_ROW_3 + BOTTOM_ROW_3, -2, (3, 3), ()),
        # 3 (round the top-left corner) and 4 (the bottom row): whichever is opened first, the
        # controller declines 2 of it and takes the other chain whole: 5 boxes to 2.
        (4, ["h 0 1", "v 0 1", "h 1 0", "v 1 0", "v 3 0", "v 3 1", "v 3 2", "v 3 3", "v 3 4"], -3, (3, 4), ()),
        # A loop of 4 alone: all four go to the player who does not open it.
        (2, LOOP_2X2, -4, (), (4,)),
        # A loop of 4 and a chain of 5: the loop goes first; the controller declines its last 4
        # boxes (4 to 0 for the opener) and takes all 5 of the chain: 1 up.
        (3, LOOP_TOP_LEFT + CHAIN_AROUND_5, -1, (5,), (4,)),
        # The same with a chain of 6 on a 4x4 board: 6 to 4.
        (4, LOOP_TOP_LEFT + ["v 3 0", "v 3 1", "v 3 2", "v 3 3", "h 3 3", "h 2 3", "v 1 4"], -2, (6,), (4,)),
        # Short chains (two corner boxes and a 2 down the right rim) change hands whole: the
        # opener gives 1, gets 2 (given by the middle line), gives 1: 2 boxes to... 1 + 1 + ... -2.
        (3, ["h 0 0", "v 0 0", "h 3 2", "v 2 3", "h 0 2", "h 1 2", "v 1 3"], -2, (1, 1, 2), ()),
    ],
)
def test_known_chain_and_loop_values(
    boxes: int, lines: list[str], value: int, chains: tuple[int, ...], loops: tuple[int, ...]
) -> None:
    pos = with_open_lines(boxes, lines)
    found = components(pos, boxes)
    assert found is not None
    assert sizes_of(found) == (chains, loops)
    assert loony_value(chains, loops) == value
    memo: dict[tuple[int, ...], int] = {}
    result = solve_standard(pos)
    assert result is not None and result.value == value
    assert brute_standard(pos.copy(), memo) == value
    check_line(pos, result, memo)
    # Every way of opening a component: the opponent's choices (take all, or decline the end of a
    # chain or loop) are the solver's own search, not the chain formula.
    for e in pos.open_edge_list():
        child = pos.copy()
        child.draw(e)
        reply = solve_standard(child)
        assert reply is not None and reply.value == brute_standard(child.copy(), memo)
        check_line(child, reply, memo)


@pytest.mark.parametrize(
    ("boxes", "open_ids"),
    [
        (4, [1, 3, 4, 8, 11, 12, 14, 17, 21, 23, 28, 32, 36, 38]),
        (5, [0, 2, 3, 7, 9, 10, 13, 15, 16, 34, 39, 46, 47, 49]),
    ],
)
def test_several_runs_on_offer(boxes: int, open_ids: list[int]) -> None:
    """Positions from a random search where the mover is offered boxes in more than one place and
    must choose which run to leave for last (to decline it): the order of taking matters."""
    geo = geometry(boxes, (1,))
    pos = fresh(standard_rules(boxes))
    for e in range(geo.edge_count):
        if e not in open_ids:
            pos.draw(e)
    pos.forget_history()
    memo: dict[tuple[int, ...], int] = {}
    result = solve_standard(pos)
    assert result is not None and result.value == brute_standard(pos.copy(), memo)
    check_line(pos, result, memo)


def test_chain_values_by_the_formulas() -> None:
    # One closed chain of length i is worth -i to the player who must open it.
    for i in range(1, 12):
        assert loony_value((i,), ()) == -i
    # Long chains only: the controller keeps control to the end; each chain but the last costs 4.
    assert loony_value((3, 3, 3), ()) == -(9 - 4 * 3 + 4)
    assert loony_value((4, 5, 6), ()) == -(15 - 4 * 3 + 4)
    # A loop of 4 and a chain of 3: open the loop; the controller takes it and opens the chain.
    assert loony_value((3,), (4,)) == -1
    # Loops and chains against the controlled value, which the controller can always get.
    rng = random.Random(5)
    for _ in range(300):
        chains = tuple(sorted(rng.randint(3, 9) for _ in range(rng.randint(0, 4))))
        loops = tuple(sorted(rng.choice((4, 6, 8)) for _ in range(rng.randint(0, 3))))
        if chains or loops:
            assert -loony_value(chains, loops) >= controlled_value(chains, loops)
    with pytest.raises(ValueError):
        controlled_value((2, 3), ())


def test_components_need_a_simple_loony_endgame() -> None:
    assert components(fresh(standard_rules(3)), 3) is None


def test_2x2_opening_first_player_wins() -> None:
    pos = fresh(standard_rules(2))
    result = solve_standard(pos)
    assert result is not None
    # 3 boxes to 1 for the first player (margins are even on 4 boxes).
    assert result.value == brute_standard(pos.copy()) == 2
    check_line(pos, result, {})


@pytest.mark.slow
def test_3x3_opening_second_player_wins_by_3() -> None:
    # About 1.5 s of CPU on the project machine; the table is cleared so the time is honest.
    from boxedin.ai.solver import _standard_search

    _standard_search(3).clear()
    pos = fresh(standard_rules(3))
    result = solve_standard(pos)
    assert result is not None and result.value == -3


def test_small_enough_for_small_endgames() -> None:
    rng = random.Random(11)
    pos = random_position(standard_rules(5), 14, rng)
    assert standard_endgame_small_enough(pos)
    assert not standard_endgame_small_enough(fresh(standard_rules(5)))
    start = time.process_time()
    assert solve_standard(pos) is not None
    assert time.process_time() - start < 0.5


# --- dice games ---------------------------------------------------------------------------------


def test_state_layout_assumed_by_brute_force() -> None:
    pos = random_position(MODES["mini"].rules, 10, random.Random(2))
    state = pos.state_array()
    assert (state[4], state[5]) == (pos.score(0), pos.score(1))
    assert state[7] == pos.turn
    assert all(state[8 + e] == pos.drawn_by(e) for e in range(24))


def check_dice(pos: Position, rules: RuleSet, turn: DiceTurn, memo: dict[bytes, float]) -> None:
    die = rules.die
    assert die is not None
    me = pos.to_move
    assert turn.value == pytest.approx(brute_dice(pos.copy(), die, memo), abs=1e-9)
    assert turn.margin == pytest.approx(pos.score(me) - pos.score(1 - me) + turn.value, abs=1e-9)
    if pos.phase == 0:
        assert turn.edges == ()
        return
    # Playing the planned turn (then End Turn if the roll is not used up) is worth the value.
    play = pos.copy()
    start = play.score(me) - play.score(1 - me)
    # Nothing to draw means End Turn now, which needs a line already drawn this turn.
    assert turn.edges or play.drawn_this_turn > 0
    for e in turn.edges:
        assert play.to_move == me and play.phase == 1 and play.drawn_by(e) == 0
        play.draw(e)
    if not play.over and play.to_move == me:
        play.end_turn()
    gained = play.score(me) - play.score(1 - me) - start
    rest = 0.0 if play.over else brute_dice(play, die, memo)
    assert gained - rest == pytest.approx(turn.value, abs=1e-9)


def dice_cases(rules: RuleSet, seed: int, count: int, max_open: int) -> list[Position]:
    rng = random.Random(seed)
    cases: list[Position] = []
    while len(cases) < count:
        pos = random_position(rules, rng.randint(1, max_open), rng)
        if pos.over:
            continue
        if pos.phase == 0 and rng.random() < 0.7:
            pos.roll(rng.randint(1, rules.die or 1))
            if rng.random() < 0.4 and pos.open_edges > 1 and not pos.over:
                pos.draw(rng.choice(pos.open_edge_list()))  # part of the turn is already played
            pos.forget_history()
        if not pos.over:
            cases.append(pos)
    return cases


def test_dice_mini_matches_brute_force() -> None:
    rules = MODES["mini"].rules
    for pos in dice_cases(rules, 21, 30, 8):
        turn = best_dice_turn(pos)  # the die comes from the mini preset's board shape
        assert turn is not None
        check_dice(pos, rules, turn, {})


def test_dice_chain_reaction_free_captures() -> None:
    rules = RuleSet(3, 4, capturing_edge_free=True)
    for pos in dice_cases(rules, 22, 12, 7):
        turn = best_dice_turn(pos, rules=rules)
        assert turn is not None
        check_dice(pos, rules, turn, {})


@pytest.mark.parametrize(
    "overlap",
    [
        Overlap.INDEPENDENT,
        Overlap.CONSUME,
        Overlap.EXCLUSIVE,
        Overlap.TAKEOVER,
        Overlap.LAYERED,
        Overlap.BUILDER,
        Overlap.TERRITORY,
        Overlap.MAJORITY,
        Overlap.FORTRESS,
        Overlap.HOME_TURF,
    ],
)
def test_dice_overlap_rules_match_brute_force(overlap: Overlap) -> None:
    boxes = 3 if overlap in (Overlap.CONSUME, Overlap.HOME_TURF) else 2
    sizes = (1, 2, 3) if boxes == 3 else (1, 2)
    rules = RuleSet(boxes, 4, sizes, overlap)
    for pos in dice_cases(rules, 30 + int(overlap), 6, 7):
        turn = best_dice_turn(pos, rules=rules)
        assert turn is not None
        check_dice(pos, rules, turn, {})


def test_dice_shape_and_die_inference() -> None:
    assert board_shape(fresh(MODES["strategic"].rules)) == (9, (1, 2))
    assert board_shape(fresh(MODES["expert"].rules)) == (11, (1, 2, 3))
    pos = random_position(RuleSet(4, 5), 5, random.Random(1))
    with pytest.raises(ValueError):
        best_dice_turn(pos)  # no preset dice mode has a 4x4 board: the die is unknown
    assert best_dice_turn(pos, die=5) is not None


def test_dice_deadline_gives_up() -> None:
    pos = random_position(MODES["classic"].rules, 20, random.Random(4))
    if pos.phase == 0:
        pos.roll(6)
    assert best_dice_turn(pos, deadline=time.perf_counter() + 0.02) is None
