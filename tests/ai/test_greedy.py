"""The reference greedy player of `boxedin match` (issue 17): squares by points per edge within
the roll, then safe edges, then the end of the turn; never offered to players."""

from __future__ import annotations

from boxedin.ai.greedy import Greedy
from boxedin.ai.levels import LEVELS, MATCH_LEVELS, make_player
from boxedin.engine.board import Edge, geometry
from boxedin.engine.game import Game
from boxedin.engine.rules import RuleSet

from ai_helpers import context, new_game


def position_with_open_lines(boxes: int, die: int, open_lines: list[str], roll: int):
    """A dice position on a ``boxes`` board where exactly ``open_lines`` are open, rolled."""
    rules = RuleSet(boxes, die)
    geo = geometry(boxes, (1,))
    keep = {geo.edge_id(Edge(kind, int(r), int(c))) for kind, r, c in (line.split() for line in open_lines)}
    game = Game(rules)
    pos = game.position.copy()
    for e in range(geo.edge_count):
        if e in keep:
            continue
        if pos.phase == 0:
            pos.roll(die)
        pos.draw(e)
    if pos.phase == 1:
        pos.end_turn()
    pos.roll(roll)
    return game, pos, geo


def test_greedy_takes_the_best_points_per_edge_then_ends_rather_than_set_a_square_up():
    # 3x3 boxes, d6, rolled 4. Box (0,0) misses its top line (one edge for a point); boxes (0,2)
    # and (2,2) miss two rim lines each (two edges for a point). Greedy takes (0,0), then (0,2)
    # (the lower square id among equals), and with one edge left ends its turn: the only lines
    # left would leave (2,2) one edge short.
    game, pos, geo = position_with_open_lines(3, 6, ["h 0 0", "h 0 2", "v 0 3", "h 3 2", "v 2 3"], 4)
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
    assert "greedy" not in LEVELS and "greedy" in MATCH_LEVELS
    assert make_player("greedy", match=True).name == "greedy"
