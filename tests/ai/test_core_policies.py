"""The core's AI section (``# --- playout policies (AI) ---``) gives the same results compiled
and as plain Python."""

from __future__ import annotations

import pytest

from boxedin.engine.backend import BackendUnavailable, load
from boxedin.engine.board import Edge, geometry
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap, RuleSet

CASES = [
    ("standard", None),
    ("classic", None),
    ("chain_reaction", None),
    ("strategic", Overlap.MAJORITY),
    ("big_squares", Overlap.CONSUME),
    ("big_squares", Overlap.TERRITORY),
]


def position(module, mode, overlap):
    rules = MODES[mode].rules_with(overlap)
    return module.Position(
        geometry(rules.boxes, rules.sizes),
        int(rules.overlap),
        rules.die or 0,
        rules.capturing_edge_free,
        rules.capture_owes_line,
        0,
    )


@pytest.mark.parametrize(("mode", "overlap"), CASES)
def test_compiled_and_plain_python_agree(mode, overlap):
    try:
        compiled = load("compiled")
    except BackendUnavailable:
        pytest.skip("the compiled core is not built")
    plain = load("python")
    for seed in range(3):
        a, b = position(compiled, mode, overlap), position(plain, mode, overlap)
        a.playout(seed, 5)
        b.playout(seed, 5)
        for p in (0, 1):
            assert a.reply_total(p) == b.reply_total(p)
            assert a.margin(p) == b.margin(p)
        for e in a.open_edge_list()[:20]:
            assert a.new_shorts(e) == b.new_shorts(e)
            assert a.new_twos(e) == b.new_twos(e)
        assert list(a.state_array()) == list(b.state_array()), "helpers leave the state as it was"
        a.policy_playout(seed + 11, 3)
        b.policy_playout(seed + 11, 3)
        assert list(a.state_array()) == list(b.state_array())
        a.policy_playout(seed + 12)
        b.policy_playout(seed + 12)
        assert list(a.state_array()) == list(b.state_array())
        assert a.over


def dice_position_with_open_lines(boxes: int, die: int, open_lines: list[str], roll: int):
    """A dice position on a ``boxes`` board where exactly ``open_lines`` are open, rolled."""
    rules = RuleSet(boxes, die)
    geo = geometry(boxes, (1,))
    keep = {geo.edge_id(Edge(kind, int(r), int(c))) for kind, r, c in (line.split() for line in open_lines)}
    pos = Game(rules).position.copy()
    for e in range(geo.edge_count):
        if e in keep:
            continue
        if pos.phase == 0:
            pos.roll(die)
        pos.draw(e)
    if pos.phase == 1:
        pos.end_turn()
    pos.roll(roll)
    return pos, geo


def test_playout_policy_takes_the_chain_and_leaves_no_square_one_short():
    # 4x4 boxes, d6, rolled 6. A lone box two lines short in the top right corner (its top and
    # right lines open) and the bottom row a chain of four boxes, each missing its left and right
    # lines. Both cost two lines for the first box, but the chain's first box lets the turn take
    # the next ones at a line each: the policy follows the chain to its end (5 lines, 4 boxes),
    # and then ends its turn rather than leave the lone box one line short.
    chain = [f"v 3 {c}" for c in range(5)]
    pos, geo = dice_position_with_open_lines(4, 6, ["h 0 3", "v 0 4", *chain], 6)
    me = pos.to_move
    before = pos.score(me)
    pos.policy_playout(7, 1)
    assert pos.score(me) - before == 4
    assert pos.open_edges == 2
    assert all(pos.missing(q) != 1 for q in range(geo.square_count))
