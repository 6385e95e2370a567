"""The rule book's worked figures about turns, tested through the replay contract only: dice
caps, turn passing, chain_reaction's free edge, Standard's extra line, undo, the move clock,
dashed edges, the end of the game, rounds, and the point totals of whole games.

Coordinates are those of shared/spec/rules-notes.md: ``["h", r, c]`` joins dot (r, c) to
(r, c+1), ``["v", r, c]`` joins dot (r, c) to (r+1, c); box (r, c) is bounded by h(r,c), h(r+1,c),
v(r,c), v(r,c+1).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rulebook_transcripts import (
    BOX,
    FILLER_9,
    MODES,
    NON_EXCLUSIVE_RULES,
    RULES,
    SQUARE_REST,
    Edge,
    Script,
    all_edges,
    draws,
    error_of,
    h,
    minus,
    ok,
    outline,
    v,
)

# --------------------------------------------------------------------------------------------
# Dice turns
# --------------------------------------------------------------------------------------------


def all_but_last(mode: str, keep_open: int) -> Script:
    """Draws every edge of the board in row-major order except the last `keep_open`, in turns
    of a whole die (a 1x1-only mode: no game ends before the last edge). In chain_reaction an
    edge that captures is not counted, so the turn goes on after it; the last turn is ended
    with end_turn if it does not use up its roll."""
    n, die, _, free_capture = MODES[mode]
    assert die is not None
    edges = all_edges(n)[: len(all_edges(n)) - keep_open]
    tracker = Tracker(mode, None)
    script = Script(mode)
    i = 0
    while i < len(edges):
        roll = min(die, len(tracker.open))
        script.actions.append({"roll": roll})
        counted = 0
        while i < len(edges) and counted < roll:
            captured = tracker.draw(tuple(edges[i]))
            script.actions += draws(edges[i])
            i += 1
            if not (free_capture and captured):
                counted += 1
        if counted < roll:
            script.actions.append({"end_turn": True})
        script.to_move = 3 - script.to_move
    return script


def test_dice_roll_is_capped_at_the_open_edges_mini_roll_4_with_2_left(replay):
    script = all_but_last("mini", 2)
    out = ok(replay(script.transcript()))
    assert out["open_edges"] == 2 and out["phase"] == "roll" and out["over"] is False
    player = out["to_move"]
    last_two = all_edges(3)[-2:]
    out = ok(replay(script.transcript([{"roll": 4}])))
    assert out["edges_left"] == 2 and out["phase"] == "draw" and out["to_move"] == player
    out = ok(replay(script.transcript([{"roll": 4}] + draws(last_two[0]))))
    assert out["edges_left"] == 1 and out["to_move"] == player
    out = ok(replay(script.transcript([{"roll": 4}] + draws(*last_two))))
    assert out["over"] is True and out["phase"] == "over" and out["to_move"] is None
    assert sum(out["scores"]) == 9 and out["open_edges"] == 0


def test_dice_roll_is_capped_quick_with_4_edges_left_no_roll_gives_more_than_4(replay):
    script = all_but_last("quick", 4)
    for face in (4, 5, 6):
        out = ok(replay(script.transcript([{"roll": face}])))
        assert out["edges_left"] == 4
    out = ok(replay(script.transcript([{"roll": 3}])))
    assert out["edges_left"] == 3


def test_dice_roll_sets_edges_left_and_each_edge_counts(replay):
    out = ok(replay(Script("strategic").transcript([{"roll": 5}])))
    assert (out["phase"], out["edges_left"], out["to_move"]) == ("draw", 5, 1)
    out = ok(replay(Script("strategic").transcript([{"roll": 5}] + draws(h(0, 0), h(9, 8)))))
    assert (out["phase"], out["edges_left"], out["to_move"]) == ("draw", 3, 1)
    # The roll used up: the turn passes by itself, the next action is the other player's roll.
    t = Script("strategic").transcript([{"roll": 2}] + draws(h(0, 0), h(9, 8)))
    out = ok(replay(t))
    assert (out["phase"], out["edges_left"], out["to_move"]) == ("roll", None, 2)
    t["actions"] += draws(h(0, 1))
    assert error_of(replay(t)) == (3, "roll_due")


def test_dice_turn_at_least_one_edge_before_end_turn(replay):
    assert error_of(replay(Script("strategic").transcript([{"end_turn": True}]))) == (0, "nothing_drawn")
    assert error_of(replay(Script("strategic").transcript([{"roll": 5}, {"end_turn": True}]))) == (
        1,
        "nothing_drawn",
    )
    # After the only edge is taken back, nothing is drawn in the turn again.
    assert error_of(
        replay(Script("strategic").transcript([{"roll": 5}] + draws(h(0, 0)) + [{"undo": True}, {"end_turn": True}]))
    ) == (3, "nothing_drawn")
    out = ok(replay(Script("strategic").transcript([{"roll": 5}] + draws(h(0, 0)) + [{"end_turn": True}])))
    assert (out["to_move"], out["phase"], out["edges_left"]) == (2, "roll", None)
    assert out["open_edges"] == 179


def test_dice_a_capture_gives_no_extra_edge_in_classic(replay):
    three_sides = [h(0, 0), v(0, 0), h(1, 0)]
    script = Script("classic").turn(three_sides)  # player 1; box (0,0) is three-sided
    out = ok(replay(script.transcript([{"roll": 2}] + draws(v(0, 1)))))
    assert out["scores"] == [0, 1]
    assert (out["to_move"], out["edges_left"]) == (2, 1)
    out = ok(replay(script.transcript([{"roll": 2}] + draws(v(0, 1), h(7, 6)))))
    assert (out["to_move"], out["phase"]) == (1, "roll")


def test_chain_reaction_an_edge_that_captures_does_not_count_against_the_roll(replay):
    three_sides = [h(0, 0), v(0, 0), h(1, 0)]
    script = Script("chain_reaction").turn(three_sides)
    out = ok(replay(script.transcript([{"roll": 2}] + draws(v(0, 1)))))
    assert out["scores"] == [0, 1]
    assert (out["to_move"], out["edges_left"], out["phase"]) == (2, 2, "draw")
    out = ok(replay(script.transcript([{"roll": 2}] + draws(v(0, 1), h(7, 6)))))
    assert (out["to_move"], out["edges_left"]) == (2, 1)
    # A three-sided box costs nothing to take, even with a roll of 1.
    out = ok(replay(script.transcript([{"roll": 1}] + draws(v(0, 1)))))
    assert (out["to_move"], out["edges_left"], out["scores"]) == (2, 1, [0, 1])


def test_chain_reaction_a_row_of_boxes_falls_with_a_roll_of_1(replay):
    # Player 1 draws the tops and bottoms of boxes (0,0), (0,1), (0,2); player 2 gives box (0,0)
    # its third side; player 1 then takes the whole row with a roll of 1.
    rows = [h(0, 0), h(0, 1), h(0, 2), h(1, 0), h(1, 1), h(1, 2)]
    script = Script("chain_reaction").turn(rows).turn([v(0, 0)])
    take = [{"roll": 1}] + draws(v(0, 1), v(0, 2), v(0, 3))
    out = ok(replay(script.transcript(take)))
    assert out["scores"] == [3, 0]
    assert (out["to_move"], out["edges_left"], out["phase"]) == (1, 1, "draw")
    out = ok(replay(script.transcript(take + draws(h(7, 6)))))
    assert (out["to_move"], out["phase"]) == (2, "roll")


# --------------------------------------------------------------------------------------------
# Standard: one line, another after every capture; no die, no End Turn
# --------------------------------------------------------------------------------------------


def standard(actions: list[dict[str, Any]], mode: str = "standard", first: int = 1) -> dict[str, Any]:
    return {"mode": mode, "first": first, "actions": actions}


def test_standard_a_line_that_completes_a_box_keeps_the_turn(replay):
    # 1: h(0,0)  2: v(0,0)  1: h(1,0) (box (0,0) three-sided)  2: v(0,1) takes it and goes on.
    setup = draws(h(0, 0), v(0, 0), h(1, 0))
    out = ok(replay(standard(setup)))
    assert (out["to_move"], out["phase"], out["edges_left"]) == (2, "draw", None)
    out = ok(replay(standard(setup + draws(v(0, 1)))))
    assert out["scores"] == [0, 1]
    assert (out["to_move"], out["phase"], out["edges_left"], out["round"]) == (2, "draw", None, 2)
    out = ok(replay(standard(setup + draws(v(0, 1), h(5, 4)))))
    assert (out["to_move"], out["round"]) == (1, 3)


def test_standard_a_line_that_completes_nothing_passes_the_turn(replay):
    out = ok(replay(standard(draws(h(0, 0)))))
    assert (out["to_move"], out["phase"], out["scores"]) == (2, "draw", [0, 0])
    out = ok(replay(standard(draws(h(0, 0), h(5, 4)))))
    assert (out["to_move"], out["round"]) == (1, 2)


def test_standard_has_no_die(replay):
    assert error_of(replay(standard([{"roll": 3}]))) == (0, "roll_not_due")
    assert error_of(replay(standard(draws(h(0, 0)) + [{"roll": 1}]))) == (1, "roll_not_due")
    assert error_of(replay(standard([{"roll": 1}], mode="practice_3x3"))) == (0, "roll_not_due")


def test_standard_has_no_end_turn(replay):
    assert error_of(replay(standard([{"end_turn": True}]))) == (0, "no_end_turn")
    assert error_of(replay(standard(draws(h(0, 0)) + [{"end_turn": True}]))) == (1, "no_end_turn")
    setup = draws(h(0, 0), v(0, 0), h(1, 0), v(0, 1))  # player 2 owes a line
    assert error_of(replay(standard(setup + [{"end_turn": True}]))) == (4, "no_end_turn")


# --------------------------------------------------------------------------------------------
# Undo
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES)
def test_undo_takes_back_the_last_edge_and_its_capture_exactly(replay, rule):
    # Player 2 ("they") takes the box (2,2); player 1 ("you") rolls 8 and draws the 2x2 around
    # it with 6 edges, so the turn goes on; undo of the 6th edge restores everything.
    script = Script("strategic", rule, first=2).play(2, BOX)
    before = [{"roll": 8}] + draws(*SQUARE_REST[:-1])
    last = draws(SQUARE_REST[-1])
    out_before = ok(replay(script.transcript(before)))
    out_after = ok(replay(script.transcript(before + last)))
    assert out_after != out_before
    assert out_after["to_move"] == 1 and out_after["edges_left"] == 2
    undone = ok(replay(script.transcript(before + last + [{"undo": True}])))
    assert undone == out_before
    # Drawn again, it does exactly the same.
    assert ok(replay(script.transcript(before + last + [{"undo": True}] + last))) == out_after


@pytest.mark.parametrize("rule", ["consume", "takeover", "volatile", "territory", "majority"])
def test_undo_restores_removed_and_handed_over_squares(replay, rule):
    script = Script("strategic", rule, first=2).play(2, BOX)
    before = [{"roll": 8}] + draws(*SQUARE_REST[:-1])
    out_before = ok(replay(script.transcript(before)))
    assert out_before["scores"] == [0, 1]
    assert out_before["squares"] == [{"size": 1, "row": 2, "col": 2, "owner": 2}]
    undone = ok(replay(script.transcript(before + draws(SQUARE_REST[-1]) + [{"undo": True}])))
    assert undone == out_before


def test_undo_fortress_square_lost_to_both_comes_back(replay):
    # Their box (player 2) inside; your (player 1) last edge of the 2x2 captures nothing and
    # would kill the 2x2. Undone, the 2x2 is open again: player 2 then takes it (1 + 4).
    script = Script("strategic", "fortress", first=2).play(2, BOX)
    before = [{"roll": 8}] + draws(*SQUARE_REST[:-1])
    after_undo = (
        before + draws(SQUARE_REST[-1]) + [{"undo": True}, {"end_turn": True}, {"roll": 1}] + draws(SQUARE_REST[-1])
    )
    direct = before + [{"end_turn": True}, {"roll": 1}] + draws(SQUARE_REST[-1])
    out = ok(replay(script.transcript(after_undo)))
    assert out == ok(replay(script.transcript(direct)))
    assert out["scores"] == [0, 5]
    assert out["squares"] == [
        {"size": 1, "row": 2, "col": 2, "owner": 2},
        {"size": 2, "row": 2, "col": 2, "owner": 2},
    ]


def test_undo_goes_back_to_the_start_of_the_turn_but_not_the_roll(replay):
    s = Script("strategic")
    rolled = [{"roll": 5}]
    two = rolled + draws(h(0, 0), h(0, 1))
    out_rolled = ok(replay(s.transcript(rolled)))
    out_one = ok(replay(s.transcript(rolled + draws(h(0, 0)))))
    assert ok(replay(s.transcript(two + [{"undo": True}]))) == out_one
    assert ok(replay(s.transcript(two + [{"undo": True}] * 2))) == out_rolled
    assert out_rolled["edges_left"] == 5 and out_rolled["phase"] == "draw"
    assert error_of(replay(s.transcript(two + [{"undo": True}] * 3))) == (5, "nothing_to_undo")
    # Never the roll: undo right after a roll has nothing to take back.
    assert error_of(replay(s.transcript(rolled + [{"undo": True}]))) == (1, "nothing_to_undo")
    assert error_of(replay(s.transcript([{"undo": True}]))) == (0, "nothing_to_undo")


def test_undo_cannot_take_back_the_edge_that_used_up_the_roll(replay):
    t = Script("strategic").transcript([{"roll": 2}] + draws(h(0, 0), h(0, 1)) + [{"undo": True}])
    assert error_of(replay(t)) == (3, "nothing_to_undo")
    # Not in the next turn either, after its roll.
    t = Script("strategic").transcript([{"roll": 2}] + draws(h(0, 0), h(0, 1)) + [{"roll": 3}, {"undo": True}])
    assert error_of(replay(t)) == (4, "nothing_to_undo")


def test_undo_cannot_take_back_a_finished_turn(replay):
    t = Script("strategic").transcript([{"roll": 3}] + draws(h(0, 0)) + [{"end_turn": True}, {"undo": True}])
    assert error_of(replay(t)) == (3, "nothing_to_undo")


def test_undo_cannot_take_back_the_edge_that_ended_the_game(replay):
    script = all_but_last("mini", 1)
    t = script.transcript([{"roll": 4}] + draws(all_edges(3)[-1]))
    assert ok(replay(t))["over"] is True
    t["actions"].append({"undo": True})
    assert error_of(replay(t)) == (len(t["actions"]) - 1, "game_over")


def test_undo_in_standard_only_after_a_capture(replay):
    setup = draws(h(0, 0), v(0, 0), h(1, 0))
    out_before = ok(replay(standard(setup)))
    captured = setup + draws(v(0, 1))
    assert ok(replay(standard(captured + [{"undo": True}]))) == out_before
    # A line that completes nothing ends the turn: nothing to take back.
    assert error_of(replay(standard(draws(h(0, 0)) + [{"undo": True}]))) == (1, "nothing_to_undo")
    assert error_of(replay(standard(captured + draws(h(5, 4)) + [{"undo": True}]))) == (5, "nothing_to_undo")
    assert error_of(replay(standard([{"undo": True}]))) == (0, "nothing_to_undo")


# --------------------------------------------------------------------------------------------
# Move clock
# --------------------------------------------------------------------------------------------


def test_timeout_before_the_roll_passes_the_turn_with_nothing_drawn(replay):
    out = ok(replay(Script("strategic").transcript([{"timeout": True}])))
    assert (out["to_move"], out["phase"], out["edges_left"]) == (2, "roll", None)
    assert (out["scores"], out["open_edges"], out["round"]) == ([0, 0], 180, 1)


def test_timeout_mid_turn_ends_the_turn_as_it_stands(replay):
    actions = [{"roll": 5}] + draws(h(0, 0)) + [{"timeout": True}]
    out = ok(replay(Script("strategic").transcript(actions)))
    assert (out["to_move"], out["phase"], out["edges_left"], out["open_edges"]) == (2, "roll", None, 179)
    assert error_of(replay(Script("strategic").transcript(actions + [{"undo": True}]))) == (
        3,
        "nothing_to_undo",
    )
    # With the roll made but nothing drawn yet, the turn passes all the same.
    out = ok(replay(Script("strategic").transcript([{"roll": 5}, {"timeout": True}])))
    assert (out["to_move"], out["phase"], out["open_edges"]) == (2, "roll", 180)


def test_timeout_in_standard_passes_the_turn(replay):
    out = ok(replay(standard([{"timeout": True}])))
    assert (out["to_move"], out["phase"]) == (2, "draw")
    # Owing a line after a capture: the turn ends as it stands.
    setup = draws(h(0, 0), v(0, 0), h(1, 0), v(0, 1))
    out = ok(replay(standard(setup + [{"timeout": True}])))
    assert (out["to_move"], out["scores"], out["open_edges"]) == (1, [0, 1], 56)


# --------------------------------------------------------------------------------------------
# The end of the game: dashed edges under Exclusive, over mid-turn, winner, rounds
# --------------------------------------------------------------------------------------------

# The 9 x 9 board tiled with sixteen 2x2s (top-left boxes at even rows and columns 0..6), the
# last row and column of boxes left as 1x1s.
TILES = [(2, r, c) for r in range(0, 8, 2) for c in range(0, 8, 2)]
TILE_EDGES = []
for _q in TILES:
    TILE_EDGES += minus(outline(*_q), TILE_EDGES)
TILE_INSIDE = sorted(
    [h(r + 1, c) for _, r, c in TILES]
    + [h(r + 1, c + 1) for _, r, c in TILES]
    + [v(r, c + 1) for _, r, c in TILES]
    + [v(r + 1, c + 1) for _, r, c in TILES],
    key=lambda e: (e[0], e[1], e[2]),
)
RIM_BOXES = [(8, c) for c in range(9)] + [(r, 8) for r in range(8)]


def tiled_game(rule: str) -> tuple[Script, list[Edge]]:
    """Player 1 draws all 16 tile outlines (player 2 drawing rim edges of the last row and
    column in between); player 2 then draws the 17 boxes of the last row and column (player 1
    drawing edges inside the tiles in between). Returns the script up to player 2's last turn
    and the one edge still to be drawn in it."""
    script = Script("strategic", rule, first=1)
    script.play(1, TILE_EDGES)
    box_edges: list[Edge] = []
    for r, c in RIM_BOXES:
        box_edges += minus(outline(1, r, c), box_edges + TILE_EDGES)
    box_edges = minus(box_edges, FILLER_9[: 18 - len(script.filler)])
    script.filler = list(TILE_INSIDE)
    script.play(2, box_edges[:-1])
    if script.to_move != 2:
        script.filler_turn()
    return script, box_edges[-1:]


def test_exclusive_the_game_ends_with_dashed_edges_still_open(replay):
    script, last = tiled_game("exclusive")
    out = ok(replay(script.transcript()))
    assert out["over"] is False and out["to_move"] == 2
    # Every edge inside a captured tile can only complete blocked squares.
    open_inside = [e for e in TILE_INSIDE if {"draw": e} not in script.actions]
    assert out["dead_edges"] == open_inside
    # Player 2's last box: roll 8, the first edge ends the game, 7 edges of the roll unused.
    out = ok(replay(script.transcript([{"roll": 8}] + draws(*last))))
    assert out["over"] is True and out["phase"] == "over" and out["to_move"] is None
    assert out["open_edges"] == len(open_inside) > 0
    assert out["dead_edges"] == open_inside
    # Points, not squares: 16 tiles (64) beat 17 boxes (17).
    assert out["scores"] == [64, 17] and out["winner"] == 1
    assert sorted((q["size"], q["owner"]) for q in out["squares"]) == ([(1, 2)] * 17 + [(2, 1)] * 16)
    t = script.transcript([{"roll": 8}] + draws(*last) + [{"end_turn": True}])
    assert error_of(replay(t)) == (len(t["actions"]) - 1, "game_over")


@pytest.mark.parametrize("rule", NON_EXCLUSIVE_RULES)
def test_no_dashed_edges_without_exclusive(replay, rule):
    script, last = tiled_game(rule)
    out = ok(replay(script.transcript([{"roll": 8}] + draws(*last))))
    assert out["over"] is False and out["dead_edges"] == []
    assert out["open_edges"] > 0
    assert (out["phase"], out["to_move"], out["edges_left"]) == ("draw", 2, 7)


def test_game_over_mid_turn_with_edges_left_in_the_roll(replay):
    # Chain reaction: the last edge always captures, so it is never counted.
    script = all_but_last("chain_reaction", 2)
    last_two = all_edges(7)[-2:]
    out = ok(replay(script.transcript([{"roll": 6}] + draws(*last_two))))
    assert out["over"] is True and out["phase"] == "over" and out["to_move"] is None
    assert sum(out["scores"]) == 49 and out["winner"] in (1, 2)


def test_tie_and_winner_reporting_practice_2x2_ends_2_to_2(replay):
    moves = draws(
        h(0, 0),
        h(0, 1),
        v(0, 0),
        v(0, 2),  # 1, 2, 1, 2
        v(0, 1),  # 1: boxes (0,0), (0,1) three-sided
        h(1, 0),
        h(1, 1),
        h(2, 0),  # 2 takes both, then a line that completes nothing
        h(2, 1),  # 1
        v(1, 0),  # 2: box (1,0) three-sided
        v(1, 1),
        v(1, 2),
    )  # 1 takes (1,0) and (1,1)
    out = ok(replay(standard(moves[:-1], mode="practice_2x2")))
    assert out["scores"] == [1, 2] and out["to_move"] == 1 and out["winner"] is None
    out = ok(replay(standard(moves, mode="practice_2x2")))
    assert out["scores"] == [2, 2]
    assert (out["over"], out["winner"], out["to_move"], out["phase"]) == (True, 0, None, "over")
    out = ok(replay(standard(moves, mode="practice_2x2", first=2)))
    assert out["scores"] == [2, 2] and out["winner"] == 0
    # Player 1 opens the chain of four instead: player 2 takes all of it.
    moves = draws(
        h(0, 0),
        h(0, 1),
        h(2, 0),
        h(2, 1),
        v(0, 0),
        v(1, 2),
        v(0, 2),
        v(1, 0),
        v(0, 1),
        h(1, 0),
        h(1, 1),
        v(1, 1),
    )
    out = ok(replay(standard(moves, mode="practice_2x2")))
    assert (out["scores"], out["over"], out["winner"]) == ([0, 4], True, 2)


@pytest.mark.parametrize("first", [1, 2])
def test_rounds_count_from_the_first_mover(replay, first):
    second = 3 - first
    script = Script("strategic", first=first)
    out = ok(replay(script.transcript()))
    assert (out["round"], out["to_move"], out["phase"]) == (1, first, "roll")
    script.turn([h(0, 0)])
    out = ok(replay(script.transcript()))
    assert (out["round"], out["to_move"]) == (1, second)
    script.turn([h(0, 1), h(0, 2)], roll=3)  # ended early
    out = ok(replay(script.transcript()))
    assert (out["round"], out["to_move"]) == (2, first)
    out = ok(replay(script.transcript([{"timeout": True}])))
    assert (out["round"], out["to_move"]) == (2, second)
    out = ok(replay(script.transcript([{"timeout": True}] * 2)))
    assert (out["round"], out["to_move"]) == (3, first)
    # Standard: the extra line after a capture stays in the same turn and round.
    setup = draws(h(0, 0), v(0, 0), h(1, 0), v(0, 1))
    out = ok(replay(standard(setup, first=first)))
    assert (out["round"], out["to_move"]) == (2, second)


# --------------------------------------------------------------------------------------------
# Whole games: how many points are in a game
# --------------------------------------------------------------------------------------------


class Tracker:
    """Just enough of the rules to write a legal random transcript: which edges are open, which
    edge captures (only needed in 1x1 modes, where every completed box is captured, and under
    Exclusive), and when the game is over (all edges drawn; under Exclusive: no incomplete
    square shares no box with a captured one)."""

    def __init__(self, mode: str, rule: str | None) -> None:
        n, _, sizes, _ = MODES[mode]
        self.exclusive = rule == "exclusive"
        self.open = [tuple(e) for e in all_edges(n)]
        self.missing: dict[tuple[int, int, int], int] = {}
        self.of_edge: dict[tuple, list[tuple[int, int, int]]] = {e: [] for e in self.open}
        for k in sizes:
            for r in range(n - k + 1):
                for c in range(n - k + 1):
                    q = (k, r, c)
                    self.missing[q] = 4 * k
                    for e in outline(k, r, c):
                        self.of_edge[tuple(e)].append(q)
        self.covered: set[tuple[int, int]] = set()
        self.open_set = set(self.open)
        self.large = [q for q in self.missing if q[0] > 1]

    @staticmethod
    def boxes(q: tuple[int, int, int]) -> set[tuple[int, int]]:
        k, r, c = q
        return {(y, x) for y in range(r, r + k) for x in range(c, c + k)}

    def open_outline(self, q: tuple[int, int, int]) -> list[tuple]:
        return [tuple(e) for e in outline(*q) if self.missing[q] and tuple(e) in self.open_set]

    def draw(self, e: tuple) -> bool:
        self.open.remove(e)
        self.open_set.discard(e)
        done = []
        for q in self.of_edge[e]:
            self.missing[q] -= 1
            if self.missing[q] == 0:
                done.append(q)
        if not self.exclusive:
            return bool(done)
        captured = False
        for q in sorted(done, key=lambda q: (-q[0], q[1], q[2])):
            if not self.boxes(q) & self.covered:
                self.covered |= self.boxes(q)
                captured = True
        return captured

    def over(self) -> bool:
        if not self.exclusive:
            return not self.open
        return not any(m > 0 and not self.boxes(q) & self.covered for q, m in self.missing.items())


def random_game(mode: str, rule: str | None, seed: int) -> tuple[dict[str, Any], Tracker]:
    """A whole game of random legal actions: random faces, random open edges, turns ended early
    at random, a random first mover. With squares larger than 1x1, most edges go to the outline
    of a randomly chosen larger square, so that many of them are completed (and under Exclusive
    the game ends with edges open)."""
    rng = random.Random(f"{mode}/{rule}/{seed}")
    _, die, _, free_capture = MODES[mode]
    tracker = Tracker(mode, rule)
    actions: list[dict[str, Any]] = []
    over = False
    target: list[tuple] = []

    def pick() -> tuple:
        nonlocal target
        if tracker.large and rng.random() < 0.8:
            target = [e for e in target if e in tracker.open_set]
            if not target:
                free = [q for q in tracker.large if tracker.missing[q] and not tracker.boxes(q) & tracker.covered]
                if free:
                    target = tracker.open_outline(rng.choice(free))
            if target:
                return target.pop(rng.randrange(len(target)))
        if tracker.covered and rng.random() < 0.9:  # mostly keep off the dashed edges
            live = [
                e
                for e in tracker.open
                if any(tracker.missing[q] and not tracker.boxes(q) & tracker.covered for q in tracker.of_edge[e])
            ]
            if live:
                return rng.choice(live)
        return rng.choice(tracker.open)

    while not over:
        if die is None:  # standard rules: one line, another after every capture
            while True:
                e = pick()
                actions.append({"draw": list(e)})
                captured = tracker.draw(e)
                over = tracker.over()
                if over or not captured:
                    break
            continue
        face = rng.randint(1, die)
        roll = min(face, len(tracker.open))
        want = rng.randint(1, roll)
        actions.append({"roll": face})
        counted = 0
        while True:
            e = pick()
            actions.append({"draw": list(e)})
            captured = tracker.draw(e)
            over = tracker.over()
            if over:
                break
            if not (free_capture and captured):
                counted += 1
            if counted == roll:
                break
            if counted >= want:
                actions.append({"end_turn": True})
                break
    transcript: dict[str, Any] = {"mode": mode, "first": rng.choice([1, 2]), "actions": actions}
    if rule is not None:
        transcript["overlap"] = rule
    return transcript, tracker


def check_whole_game(replay, mode: str, rule: str | None, seed: int, total: int) -> None:
    transcript, tracker = random_game(mode, rule, seed)
    out = ok(replay(transcript))
    assert out["over"] is True and out["phase"] == "over" and out["to_move"] is None
    assert sum(out["scores"]) == total
    s1, s2 = out["scores"]
    assert out["winner"] == (1 if s1 > s2 else 2 if s2 > s1 else 0)
    assert out["open_edges"] == len(tracker.open)
    if rule == "exclusive":
        # These games end with edges still open (the generator stays off dashed edges), and
        # every open edge is dashed then.
        assert out["open_edges"] > 0
        assert len(out["dead_edges"]) == out["open_edges"]  # every open edge is dashed
    else:
        assert out["open_edges"] == 0 and out["dead_edges"] == []
        # No dashed edges at any time of the game either.
        for cut in (len(transcript["actions"]) // 3, 2 * len(transcript["actions"]) // 3):
            part = dict(transcript, actions=transcript["actions"][:cut])
            mid = ok(replay(part))
            assert mid["over"] is False and mid["dead_edges"] == []


@pytest.mark.parametrize(
    "mode,total",
    [
        ("mini", 9),
        ("standard", 25),
        ("quick", 25),
        ("classic", 49),
        ("chain_reaction", 49),
        ("marathon", 121),
        ("practice_2x2", 4),
        ("practice_3x3", 9),
        ("practice_4x4", 16),
    ],
)
def test_points_in_a_game_1x1_modes(replay, mode, total):
    for seed in range(2):
        check_whole_game(replay, mode, None, seed, total)


@pytest.mark.parametrize("mode", ["mini", "standard", "quick", "classic", "chain_reaction", "marathon", "practice_3x3"])
def test_a_game_with_1x1_boxes_only_can_never_end_in_a_tie(replay, mode):
    for seed in range(2, 5):
        transcript, _ = random_game(mode, None, seed)
        out = ok(replay(transcript))
        assert out["over"] is True and out["winner"] in (1, 2)
        assert sum(out["scores"]) % 2 == 1


TOTALS = {
    # rule: (strategic, big_squares, expert)
    "independent": (337, 778, 1250),
    "takeover": (337, 778, 1250),
    "majority": (337, 778, 1250),
    "consume": (256, 441, 729),
    "exclusive": (81, 81, 121),
    "territory": (81, 81, 121),
}


@pytest.mark.parametrize("rule", list(TOTALS))
@pytest.mark.parametrize("mode", ["strategic", "big_squares", "expert"])
def test_is_the_total_fixed(replay, mode, rule):
    total = TOTALS[rule][["strategic", "big_squares", "expert"].index(mode)]
    for seed in range(2):
        check_whole_game(replay, mode, rule, seed, total)
