"""The reference greedy player of `boxedin match` (issue 17): squares by points per edge within
the roll, then safe edges, then the end of the turn; never offered to players."""

from __future__ import annotations

from boxedin.ai.greedy import Greedy
from boxedin.ai.levels import LEVELS
from boxedin.engine.board import Edge
from boxedin.tools.arena.players import ARENA_LEVELS, make_player

from ai_helpers import context, dice_position_with_open_lines, new_game


def test_greedy_takes_the_best_points_per_edge_then_ends_rather_than_set_a_square_up():
    # 3x3 boxes, d6, rolled 4. Box (0,0) misses its top line (one edge for a point); boxes (0,2)
    # and (2,2) miss two rim lines each (two edges for a point). Greedy takes (0,0), then (0,2)
    # (the lower square id among equals), and with one edge left ends its turn: the only lines
    # left would leave (2,2) one edge short.
    game, pos, geo = dice_position_with_open_lines(3, 6, ["h 0 0", "h 0 2", "v 0 3", "h 3 2", "v 2 3"], 4)
    me = pos.to_move
    before = pos.score(me)
    drawn = Greedy().plan(pos, context(game))
    assert drawn[0] == geo.edge_id(Edge("h", 0, 0))
    assert set(drawn[1:]) == {geo.edge_id(Edge("h", 0, 2)), geo.edge_id(Edge("v", 0, 3))}
    assert pos.score(me) - before == 2
    assert pos.to_move == me and pos.edges_left == 1  # the turn is ended by the driver


def test_greedy_spends_the_roll_on_safe_edges_when_nothing_can_be_finished():
    game = new_game("classic", seed="g")
    pos = game.position.copy()
    pos.roll(3)  # every box misses four lines: none can be finished
    me = pos.to_move
    drawn = Greedy().plan(pos, context(game))
    assert len(drawn) == 3 and pos.to_move != me  # the whole roll
    assert pos.one_short() == 0


def test_greedy_is_a_level_for_matches_only():
    assert "greedy" not in LEVELS and "greedy" in ARENA_LEVELS
    assert make_player("greedy").name == "greedy"
