"""The core's AI section (``# --- playout policies (AI) ---``) gives the same results compiled
and as plain Python."""

from __future__ import annotations

import pytest

from boxedin.engine.backend import BackendUnavailable, load
from boxedin.engine.board import geometry
from boxedin.engine.rules import MODES, Overlap

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
