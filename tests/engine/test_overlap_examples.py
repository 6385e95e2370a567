"""The rule book's worked examples of the 13 overlap rules, tested through the replay contract only.

Every "Example:" of the 13 overlap rules is played on the board as a transcript and its figures
are checked exactly.

Coordinates are those of shared/spec/rules-notes.md: ``["h", r, c]`` joins dot (r, c) to
(r, c+1), ``["v", r, c]`` joins dot (r, c) to (r+1, c); box (r, c) is bounded by h(r,c), h(r+1,c),
v(r,c), v(r,c+1).

"Scores are yours first" in the rule book.  Each overlap example runs twice, with "you" as
player 1 and as player 2 (the ``you`` fixture); "they" are the other player.  Expected scores are
written yours first and turned into the output's player order by ``in_player_order``.

The examples are played in the middle of the 9 x 9 board (boxes 2..4 x 2..4).  When a player has
to move without drawing an example edge (a "filler" turn), they draw one edge of the bottom or
the right rim, far away: rim edges never complete a square on their own, and none of them touches
an example's square.
"""

from __future__ import annotations

from typing import Any

import pytest

from rulebook_transcripts import (
    BIG,
    BIG_REST,
    BOTH_LAST,
    BOTH_PREP,
    BOX,
    BOX_REST,
    SQUARE,
    SQUARE_REST,
    Script,
    h,
    in_player_order,
    ok,
    v,
)

# --------------------------------------------------------------------------------------------
# The overlap examples: a 1x1 box (2,2) and the 2x2 at (2,2) around it (3x3 for two of them)
# --------------------------------------------------------------------------------------------


# In every example below, `you` is the player the rule book calls "you" (player 1 in one run,
# player 2 in the other) and `3 - you` is "they"; `first` is whoever draws the example's first
# edge, so no filler turn comes before it.


@pytest.fixture(params=[1, 2], ids=["you_are_player_1", "you_are_player_2"])
def you(request: pytest.FixtureRequest) -> int:
    """Which player is "you" in the rule book's example; "they" are 3 - you."""
    return request.param


def box_then_square(rule: str, box_by: int, square_by: int, mode: str = "strategic") -> Script:
    """`box_by` completes the box (2,2); then `square_by` completes the 2x2 at (2,2)."""
    return Script(mode, rule, first=box_by).play(box_by, BOX).play(square_by, SQUARE_REST)


def square_then_box(rule: str, square_by: int, box_by: int, mode: str = "strategic") -> Script:
    """`square_by` completes the 2x2 at (2,2) (roll 8); then `box_by` completes the box (2,2)."""
    return Script(mode, rule, first=square_by).play(square_by, SQUARE).play(box_by, BOX_REST)


def both_at_once(rule: str, by: int) -> Script:
    """`by` draws everything but h(2,2), then h(2,2) completes the box and the 2x2 together."""
    return Script("strategic", rule, first=by).play(by, BOTH_PREP + [BOTH_LAST])


def check(
    replay, script: Script, you: int, yours: int, theirs: int, squares: list[tuple[int, int, int, str]]
) -> dict[str, Any]:
    """Replays and checks the scores (yours first) and every held square: (size, row, col,
    "you" | "they")."""
    out = ok(replay(script.transcript()))
    assert out["scores"] == in_player_order(you, yours, theirs)
    owner = {"you": you, "they": 3 - you}
    assert out["squares"] == [{"size": k, "row": r, "col": c, "owner": owner[who]} for k, r, c, who in squares]
    assert out["over"] is False and out["winner"] is None
    if script.overlap != "exclusive":
        assert out["dead_edges"] == []
    return out


YOUR_BOX = (1, 2, 2, "you")
THEIR_BOX = (1, 2, 2, "they")
YOUR_SQUARE = (2, 2, 2, "you")
THEIR_SQUARE = (2, 2, 2, "they")
YOUR_BIG = (3, 2, 2, "you")


# ---- Independent ---------------------------------------------------------------------------


def test_independent_your_box_then_your_square_score_1_plus_4(replay, you):
    check(replay, box_then_square("independent", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_independent_your_square_then_your_box_score_1_plus_4(replay, you):
    check(replay, square_then_box("independent", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_independent_their_box_then_your_square_you_4_they_1(replay, you):
    check(replay, box_then_square("independent", 3 - you, you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


def test_independent_your_square_then_their_box_inside_you_4_they_1(replay, you):
    check(replay, square_then_box("independent", you, 3 - you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


# ---- Consume -------------------------------------------------------------------------------


def test_consume_their_box_then_your_square_absorbs_it(replay, you):
    check(replay, box_then_square("consume", 3 - you, you), you, 4, 0, [YOUR_SQUARE])


def test_consume_your_own_box_then_your_square_you_lose_the_1_and_score_4(replay, you):
    check(replay, box_then_square("consume", you, you), you, 4, 0, [YOUR_SQUARE])


def test_consume_your_square_first_blocks_the_box_inside_for_them(replay, you):
    check(replay, square_then_box("consume", you, 3 - you), you, 4, 0, [YOUR_SQUARE])


def test_consume_your_square_first_blocks_the_box_inside_for_you(replay, you):
    check(replay, square_then_box("consume", you, you), you, 4, 0, [YOUR_SQUARE])


# ---- Exclusive -----------------------------------------------------------------------------


def test_exclusive_box_first_scores_1_and_the_square_around_it_is_never_captured(replay, you):
    # They draw the square's last edge: nobody gets it.
    check(replay, box_then_square("exclusive", you, 3 - you), you, 1, 0, [YOUR_BOX])


def test_exclusive_box_first_blocks_the_square_for_its_owner_too(replay, you):
    check(replay, box_then_square("exclusive", you, you), you, 1, 0, [YOUR_BOX])


def test_exclusive_square_first_scores_4_and_the_boxes_inside_are_never_captured(replay, you):
    inner = [h(3, 2), h(3, 3), v(2, 3), v(3, 3)]  # completes all four boxes inside the 2x2
    script = Script("strategic", "exclusive", first=you).play(you, SQUARE)
    out = ok(replay(script.transcript()))
    assert out["scores"] == in_player_order(you, 4, 0)
    # The edges inside the captured 2x2 can only complete blocked squares: dashed.
    assert out["dead_edges"] == [h(3, 2), h(3, 3), v(2, 3), v(3, 3)]
    assert out["over"] is False
    script.play(3 - you, inner)
    out = check(replay, script, you, 4, 0, [YOUR_SQUARE])
    assert out["dead_edges"] == []
    # Also when you draw them yourself.
    script = Script("strategic", "exclusive", first=you).play(you, SQUARE).play(you, inner)
    check(replay, script, you, 4, 0, [YOUR_SQUARE])


def test_exclusive_one_edge_completing_both_counts_only_the_square(replay, you):
    check(replay, both_at_once("exclusive", you), you, 4, 0, [YOUR_SQUARE])


# ---- Takeover ------------------------------------------------------------------------------


def test_takeover_their_box_then_your_square_you_5_they_0(replay, you):
    check(replay, box_then_square("takeover", 3 - you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_takeover_both_yours_box_first_scores_5(replay, you):
    check(replay, box_then_square("takeover", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_takeover_both_yours_square_first_scores_5(replay, you):
    check(replay, square_then_box("takeover", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_takeover_your_square_first_then_their_box_is_not_taken(replay, you):
    check(replay, square_then_box("takeover", you, 3 - you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


# ---- Protected -----------------------------------------------------------------------------


def test_protected_box_first_scores_1_and_blocks_the_square_for_them(replay, you):
    check(replay, box_then_square("protected", you, 3 - you), you, 1, 0, [YOUR_BOX])


def test_protected_box_first_blocks_the_square_for_you_too(replay, you):
    check(replay, box_then_square("protected", you, you), you, 1, 0, [YOUR_BOX])


def test_protected_square_first_then_the_box_inside_scores_4_plus_1(replay, you):
    check(replay, square_then_box("protected", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_protected_one_edge_completing_both_counts_the_square_first_and_both_score(replay, you):
    check(replay, both_at_once("protected", you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


# ---- Layered -------------------------------------------------------------------------------


def test_layered_your_box_then_your_square_score_1_plus_4_plus_1_bonus(replay, you):
    check(replay, box_then_square("layered", you, you), you, 6, 0, [YOUR_BOX, YOUR_SQUARE])


def test_layered_your_square_then_your_box_score_6(replay, you):
    check(replay, square_then_box("layered", you, you), you, 6, 0, [YOUR_BOX, YOUR_SQUARE])


def test_layered_their_box_and_your_square_no_bonus_for_overlapping_them(replay, you):
    check(replay, box_then_square("layered", 3 - you, you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])
    check(replay, square_then_box("layered", you, 3 - you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


def box_square_big(rule: str, by: int) -> Script:
    """In big_squares (d10): `by` completes the box (edge 4 of a roll of 10) and the 2x2 around
    it (edge 10), and in their next turn the 3x3 around both (roll 8)."""
    return Script("big_squares", rule, first=by).play(by, BOX + SQUARE_REST).play(by, BIG_REST)


def test_layered_box_square_and_3x3_all_yours_score_1_plus_5_plus_14(replay, you):
    check(replay, box_square_big("layered", you), you, 20, 0, [YOUR_BOX, YOUR_SQUARE, YOUR_BIG])


# ---- Volatile ------------------------------------------------------------------------------


def test_volatile_their_box_then_your_square_erases_it_you_4_they_0(replay, you):
    check(replay, box_then_square("volatile", 3 - you, you), you, 4, 0, [YOUR_SQUARE])


def test_volatile_your_own_box_then_your_square_both_stay_5(replay, you):
    check(replay, box_then_square("volatile", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_volatile_your_square_first_then_their_box_inside_stays_you_4_they_1(replay, you):
    check(replay, square_then_box("volatile", you, 3 - you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


# ---- Builder -------------------------------------------------------------------------------


def test_builder_your_box_then_your_square_score_1_plus_4_plus_1_bonus(replay, you):
    check(replay, box_then_square("builder", you, you), you, 6, 0, [YOUR_BOX, YOUR_SQUARE])


def test_builder_your_square_then_your_box_score_5_no_bonus(replay, you):
    check(replay, square_then_box("builder", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_builder_one_edge_completing_both_counts_the_box_first_and_pays_the_bonus(replay, you):
    check(replay, both_at_once("builder", you), you, 6, 0, [YOUR_BOX, YOUR_SQUARE])


def test_builder_their_box_inside_your_square_you_4_they_1(replay, you):
    check(replay, box_then_square("builder", 3 - you, you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])
    check(replay, square_then_box("builder", you, 3 - you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


# ---- Territory -----------------------------------------------------------------------------


def test_territory_your_box_then_your_square_score_4_the_box_not_counted_twice(replay, you):
    check(replay, box_then_square("territory", you, you), you, 4, 0, [YOUR_BOX, YOUR_SQUARE])


def test_territory_your_square_then_your_box_score_4(replay, you):
    check(replay, square_then_box("territory", you, you), you, 4, 0, [YOUR_BOX, YOUR_SQUARE])


def test_territory_their_box_then_your_square_you_4_they_0(replay, you):
    # Squares keep their capturer: the box is still listed as theirs, its box is yours.
    check(replay, box_then_square("territory", 3 - you, you), you, 4, 0, [THEIR_BOX, YOUR_SQUARE])


def test_territory_your_square_then_their_box_inside_you_3_they_1(replay, you):
    check(replay, square_then_box("territory", you, 3 - you), you, 3, 1, [THEIR_BOX, YOUR_SQUARE])


# ---- Majority ------------------------------------------------------------------------------


def test_majority_their_box_then_you_close_the_square_they_get_it_you_0_they_5(replay, you):
    check(replay, box_then_square("majority", 3 - you, you), you, 0, 5, [THEIR_BOX, THEIR_SQUARE])


def test_majority_you_close_the_empty_square_then_they_take_the_box_you_4_they_1(replay, you):
    check(replay, square_then_box("majority", you, 3 - you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


def test_majority_both_yours_score_5(replay, you):
    check(replay, box_then_square("majority", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])
    check(replay, square_then_box("majority", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_majority_one_edge_completing_both_counts_the_box_first_for_you(replay, you):
    check(replay, both_at_once("majority", you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


# ---- Fortress ------------------------------------------------------------------------------


def test_fortress_your_box_then_your_square_score_5(replay, you):
    check(replay, box_then_square("fortress", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_fortress_their_box_then_you_close_the_square_nobody_captures_it(replay, you):
    check(replay, box_then_square("fortress", 3 - you, you), you, 0, 1, [THEIR_BOX])


def test_fortress_your_square_first_then_their_box_inside_you_4_they_1(replay, you):
    check(replay, square_then_box("fortress", you, 3 - you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


# ---- Home Turf -----------------------------------------------------------------------------


def test_home_turf_your_square_then_your_box_inside_doubles_4_plus_2(replay, you):
    check(replay, square_then_box("home_turf", you, you), you, 6, 0, [YOUR_BOX, YOUR_SQUARE])


def test_home_turf_your_box_then_your_square_score_1_plus_4(replay, you):
    check(replay, box_then_square("home_turf", you, you), you, 5, 0, [YOUR_BOX, YOUR_SQUARE])


def test_home_turf_your_square_then_their_box_inside_scores_nothing(replay, you):
    # The box still is theirs, worth 0.
    check(replay, square_then_box("home_turf", you, 3 - you), you, 4, 0, [THEIR_BOX, YOUR_SQUARE])


def test_home_turf_their_box_then_your_square_you_4_they_1(replay, you):
    check(replay, box_then_square("home_turf", 3 - you, you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


def test_home_turf_one_edge_completing_both_counts_the_square_first_and_the_box_doubles(replay, you):
    check(replay, both_at_once("home_turf", you), you, 6, 0, [YOUR_BOX, YOUR_SQUARE])


# ---- Capped Layered ------------------------------------------------------------------------


def test_capped_layered_your_box_then_your_square_score_6(replay, you):
    check(replay, box_then_square("capped_layered", you, you), you, 6, 0, [YOUR_BOX, YOUR_SQUARE])


def test_capped_layered_your_square_then_your_box_score_6(replay, you):
    check(replay, square_then_box("capped_layered", you, you), you, 6, 0, [YOUR_BOX, YOUR_SQUARE])


def test_capped_layered_their_box_and_your_square_you_4_they_1(replay, you):
    check(replay, box_then_square("capped_layered", 3 - you, you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])
    check(replay, square_then_box("capped_layered", you, 3 - you), you, 4, 1, [THEIR_BOX, YOUR_SQUARE])


def test_capped_layered_box_square_and_3x3_all_yours_score_1_plus_5_plus_13(replay, you):
    check(replay, box_square_big("capped_layered", you), you, 19, 0, [YOUR_BOX, YOUR_SQUARE, YOUR_BIG])


# --------------------------------------------------------------------------------------------
# Scoring: size x size, only the outline counts, whoever drew the other edges
# --------------------------------------------------------------------------------------------


def test_scoring_a_3x3_outline_alone_scores_9(replay, you):
    # Nothing inside the 3x3 is complete: its inner edges stay open.
    script = Script("big_squares", None, first=you).play(you, BIG)
    check(replay, script, you, 9, 0, [YOUR_BIG])


def test_scoring_a_2x2_needs_only_its_outline_and_the_last_edge_takes_it(replay, you):
    # They draw 7 edges of the outline, you draw the 8th: the 2x2 is yours, 4 points.
    script = Script("strategic", None, first=3 - you).play(3 - you, SQUARE[:-1])
    script.play(you, SQUARE[-1:])
    out = check(replay, script, you, 4, 0, [YOUR_SQUARE])
    assert out["open_edges"] == 180 - 8


def test_scoring_one_edge_completes_two_boxes_that_share_it(replay, you):
    # Boxes (2,2) and (2,3) share v(2,3).
    others = [h(2, 2), h(3, 2), v(2, 2), h(2, 3), h(3, 3), v(2, 4)]
    script = Script("strategic", "independent", first=you).play(you, others + [v(2, 3)])
    check(replay, script, you, 2, 0, [(1, 2, 2, "you"), (1, 2, 3, "you")])
