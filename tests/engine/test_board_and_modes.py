"""The modes' boards as the rule book lists them, and the coordinates of the rules notes."""

from __future__ import annotations

import pytest

from boxedin.engine.board import Edge, EdgeError, Square, geometry
from boxedin.engine.rules import MODES, Overlap, RulesError, RuleSet, mode_by_id


@pytest.mark.parametrize(
    ("mode", "dots", "boxes", "edges", "die", "sizes", "overlap"),
    [
        ("mini", 4, 9, 24, 4, (1,), "independent"),
        ("standard", 6, 25, 60, None, (1,), "independent"),
        ("quick", 6, 25, 60, 6, (1,), "independent"),
        ("classic", 8, 49, 112, 6, (1,), "independent"),
        ("chain_reaction", 8, 49, 112, 6, (1,), "independent"),
        ("marathon", 12, 121, 264, 8, (1,), "independent"),
        ("strategic", 10, 81, 180, 8, (1, 2), "independent"),
        ("big_squares", 10, 81, 180, 10, (1, 2, 3), "independent"),
        ("expert", 12, 121, 264, 12, (1, 2, 3), "consume"),
        ("practice_2x2", 3, 4, 12, None, (1,), "independent"),
        ("practice_3x3", 4, 9, 24, None, (1,), "independent"),
        ("practice_4x4", 5, 16, 40, None, (1,), "independent"),
    ],
)
def test_mode_presets(mode: str, dots: int, boxes: int, edges: int, die: int | None,
                      sizes: tuple[int, ...], overlap: str) -> None:  # fmt: skip
    rules = mode_by_id(mode).rules
    assert (rules.dots, rules.boxes**2, rules.edge_count, rules.die, rules.sizes, rules.overlap.id) == (
        dots, boxes, edges, die, sizes, overlap
    )  # fmt: skip
    geo = geometry(rules.boxes, rules.sizes)
    assert len(geo.edges) == edges


def test_only_chain_reaction_has_free_capturing_edges_and_only_dieless_games_owe_a_line() -> None:
    assert [m.id for m in MODES.values() if m.rules.capturing_edge_free] == ["chain_reaction"]
    assert [m.id for m in MODES.values() if m.rules.capture_owes_line] == [
        "standard", "practice_2x2", "practice_3x3", "practice_4x4"
    ]  # fmt: skip


def test_square_counts_match_the_rule_book() -> None:
    for mode, twos, threes in (("strategic", 64, 0), ("big_squares", 64, 49), ("expert", 100, 81)):
        squares = geometry(MODES[mode].rules.boxes, MODES[mode].rules.sizes).squares
        assert sum(sq.size == 2 for sq in squares) == twos
        assert sum(sq.size == 3 for sq in squares) == threes


def test_a_box_is_bounded_by_its_four_edges() -> None:
    geo = geometry(5, (1,))
    outline = {geo.edges[e] for e in geo.outline_ids(geo.square_id(Square(1, 2, 3)))}
    assert outline == {Edge("h", 2, 3), Edge("h", 3, 3), Edge("v", 2, 3), Edge("v", 2, 4)}


def test_a_square_outline_is_4k_edges_and_excludes_the_inside() -> None:
    geo = geometry(9, (1, 2, 3))
    outline = [geo.edges[e] for e in geo.outline_ids(geo.square_id(Square(3, 1, 2)))]
    assert len(outline) == 12
    assert Edge("h", 1, 2) in outline and Edge("h", 4, 4) in outline and Edge("v", 3, 5) in outline
    assert Edge("h", 2, 3) not in outline and Edge("v", 2, 3) not in outline


def test_edges_are_numbered_in_the_replay_contracts_sort_order() -> None:
    geo = geometry(3, (1,))
    assert list(geo.edges) == sorted(geo.edges, key=lambda e: (e.orientation, e.row, e.col))
    assert [geo.edge_id(e) for e in geo.edges] == list(range(24))


@pytest.mark.parametrize(
    "edge", [Edge("h", 4, 0), Edge("h", 0, 3), Edge("v", 3, 0), Edge("v", 0, 4), Edge("h", -1, 0)]
)
def test_edges_off_the_board(edge: Edge) -> None:
    with pytest.raises(EdgeError):
        geometry(3, (1,)).edge_id(edge)


def test_one_edge_lies_on_at_most_two_boxes_four_2x2s_and_six_3x3s() -> None:
    geo = geometry(11, (1, 2, 3))
    counts = [[geo.squares[q].size for q in geo.squares_on(e)] for e in range(geo.edge_count)]
    assert max(c.count(1) for c in counts) == 2
    assert max(c.count(2) for c in counts) == 4
    assert max(c.count(3) for c in counts) == 6


def test_overlap_ids_and_order_of_the_menu() -> None:
    assert [r.id for r in Overlap] == [
        "independent", "consume", "exclusive", "takeover", "protected", "layered", "volatile",
        "builder", "territory", "majority", "fortress", "home_turf", "capped_layered",
    ]  # fmt: skip
    assert Overlap.from_id("home_turf") is Overlap.HOME_TURF
    with pytest.raises(RulesError):
        Overlap.from_id("HOME_TURF")
    assert {r.id for r in Overlap if r.smallest_first} == {"builder", "majority"}


def test_rule_sets_refuse_what_cannot_be_played() -> None:
    with pytest.raises(RulesError):
        RuleSet(5, 6, (1,), Overlap.CONSUME)
    with pytest.raises(RulesError):
        RuleSet(5, None, capturing_edge_free=True)
    with pytest.raises(RulesError):
        RuleSet(2, 6, (1, 2, 3))
    with pytest.raises(RulesError):
        mode_by_id("classic").rules_with(Overlap.LAYERED)
    with pytest.raises(RulesError, match="unknown mode"):
        mode_by_id("giant")
