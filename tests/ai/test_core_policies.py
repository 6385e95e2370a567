"""The AI's playout policies (``boxedin.ai._playout``) give the same results compiled and as
plain Python, and each position is handled by the build of its own core."""

from __future__ import annotations

import pytest

from boxedin.ai import playout
from boxedin.ai.turn import take_turn
from boxedin.engine.backend import BackendUnavailable, load
from boxedin.engine.board import geometry
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap

from ai_helpers import dice_position_with_open_lines

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


def compiled_builds():
    """The compiled core and policies, or a skip when they are not built."""
    try:
        return load("compiled"), playout.load("compiled")
    except BackendUnavailable:
        pytest.skip("the compiled core and policies are not built")


@pytest.mark.parametrize(("mode", "overlap"), CASES)
def test_compiled_and_plain_python_agree(mode, overlap):
    compiled, fast = compiled_builds()
    plain, slow = load("python"), playout.load("python")
    for seed in range(3):
        a, b = position(compiled, mode, overlap), position(plain, mode, overlap)
        a.playout(seed, 5)
        b.playout(seed, 5)
        for p in (0, 1):
            assert fast.reply_total(a, p) == slow.reply_total(b, p)
            assert fast.margin(a, p) == slow.margin(b, p)
        for e in a.open_edge_list()[:20]:
            assert fast.new_shorts(a, e) == slow.new_shorts(b, e)
            assert fast.new_twos(a, e) == slow.new_twos(b, e)
        assert list(a.state_array()) == list(b.state_array()), "helpers leave the state as it was"
        fast.policy_playout(a, seed + 11, 3)
        slow.policy_playout(b, seed + 11, 3)
        assert list(a.state_array()) == list(b.state_array())
        fast.policy_playout(a, seed + 12)
        slow.policy_playout(b, seed + 12)
        assert list(a.state_array()) == list(b.state_array())
        assert a.over


def test_each_position_gets_the_policies_of_its_own_core(monkeypatch):
    compiled, fast = compiled_builds()
    plain, slow = load("python"), playout.load("python")
    assert str(fast.__file__).endswith((".so", ".pyd"))
    assert slow.__name__ == "boxedin.ai._playout_python"
    a, b = position(compiled, "classic", None), position(plain, "classic", None)
    a.playout(4, 6)
    b.playout(4, 6)
    # The compiled build hands a plain-Python position to the plain-Python build.
    seen = []
    monkeypatch.setattr(slow, "reply_total", lambda pos, player: seen.append(pos) or -999)
    assert playout.reply_total(b, 0) == -999 and seen == [b]
    assert playout.reply_total(a, 0) == fast.reply_total(a, 0) >= 0 and seen == [b]
    playout.policy_playout(a, 9)
    playout.policy_playout(b, 9)
    assert a.over and list(a.state_array()) == list(b.state_array())
    with pytest.raises(AttributeError):
        slow.margin(a, 0)  # the plain-Python build reads a plain-Python Position's attributes


@pytest.mark.parametrize(("mode", "overlap"), [("quick", None), ("strategic", Overlap.CONSUME), ("mini", None)])
def test_hard_plays_the_same_turns_on_either_core(mode, overlap):
    """Hard leans on the policies' estimates (margin, reply_total, new_shorts): on a plain-Python
    game it uses the plain-Python policies, and plays exactly what it plays on a compiled one."""
    compiled_builds()
    games = [Game.from_mode(MODES[mode], overlap, seed="same", backend=kind) for kind in ("compiled", "python")]
    for _ in range(4):
        if games[0].over:
            break
        turns = [take_turn(game, "hard", seed="same") for game in games]
        assert turns[0] == turns[1]
        for game in games:
            for action in turns[0]:
                game.apply(action)
        assert games[0].position.state_array() == games[1].position.state_array()


def test_playout_policy_takes_the_chain_and_leaves_no_square_one_short():
    # 4x4 boxes, d6, rolled 6. A lone box two lines short in the top right corner (its top and
    # right lines open) and the bottom row a chain of four boxes, each missing its left and right
    # lines. Both cost two lines for the first box, but the chain's first box lets the turn take
    # the next ones at a line each: the policy follows the chain to its end (5 lines, 4 boxes),
    # and then ends its turn rather than leave the lone box one line short.
    chain = [f"v 3 {c}" for c in range(5)]
    _, pos, geo = dice_position_with_open_lines(4, 6, ["h 0 3", "v 0 4", *chain], 6)
    me = pos.to_move
    before = pos.score(me)
    playout.policy_playout(pos, 7, 1)
    assert pos.score(me) - before == 4
    assert pos.open_edges == 2
    assert all(pos.missing(q) != 1 for q in range(geo.square_count))
