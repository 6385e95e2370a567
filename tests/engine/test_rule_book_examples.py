"""The rule book's worked examples, tested through the replay contract only.

Every "Example:" of the 13 overlap rules is played on the board as a transcript and its figures
are checked exactly, followed by the other figures the engine decides (dice caps, turn passing,
Standard's extra line, undo, the move clock, dashed edges, the end of the game, rounds) and the
point totals of whole games.

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

import random
from typing import Any

import pytest

# --------------------------------------------------------------------------------------------
# Mode presets: boxes per side, die (None: standard rules), square sizes, capture is free
# --------------------------------------------------------------------------------------------

MODES: dict[str, tuple[int, int | None, tuple[int, ...], bool]] = {
    "mini": (3, 4, (1,), False),
    "standard": (5, None, (1,), False),
    "quick": (5, 6, (1,), False),
    "classic": (7, 6, (1,), False),
    "chain_reaction": (7, 6, (1,), True),
    "marathon": (11, 8, (1,), False),
    "strategic": (9, 8, (1, 2), False),
    "big_squares": (9, 10, (1, 2, 3), False),
    "expert": (11, 12, (1, 2, 3), False),
    "practice_2x2": (2, None, (1,), False),
    "practice_3x3": (3, None, (1,), False),
    "practice_4x4": (4, None, (1,), False),
}

RULES = (
    "independent",
    "consume",
    "exclusive",
    "takeover",
    "protected",
    "layered",
    "volatile",
    "builder",
    "territory",
    "majority",
    "fortress",
    "home_turf",
    "capped_layered",
)
NON_EXCLUSIVE_RULES = tuple(rule for rule in RULES if rule != "exclusive")

Edge = list  # ["h" | "v", row, col]


# --------------------------------------------------------------------------------------------
# Geometry helpers
# --------------------------------------------------------------------------------------------


def h(r: int, c: int) -> Edge:
    return ["h", r, c]


def v(r: int, c: int) -> Edge:
    return ["v", r, c]


def outline(size: int, row: int, col: int) -> list[Edge]:
    """The 4*size outline edges of the square of that size with top-left box (row, col)."""
    k = size
    return (
        [h(row, c) for c in range(col, col + k)]
        + [h(row + k, c) for c in range(col, col + k)]
        + [v(r, col) for r in range(row, row + k)]
        + [v(r, col + k) for r in range(row, row + k)]
    )


def minus(edges: list[Edge], taken: list[Edge]) -> list[Edge]:
    return [e for e in edges if e not in taken]


def all_edges(n: int) -> list[Edge]:
    return [h(r, c) for r in range(n + 1) for c in range(n)] + [
        v(r, c) for r in range(n) for c in range(n + 1)
    ]


# The example squares: the box (2,2), the 2x2 at (2,2) around it, the 3x3 at (2,2) around both.
BOX = outline(1, 2, 2)  # h(2,2) h(3,2) v(2,2) v(2,3)
SQUARE = outline(2, 2, 2)  # h(2,2) h(2,3) h(4,2) h(4,3) v(2,2) v(3,2) v(2,4) v(3,4)
BIG = outline(3, 2, 2)
SQUARE_REST = minus(SQUARE, BOX)  # the 6 outline edges of the 2x2 that the box does not have
BOX_REST = minus(BOX, SQUARE)  # h(3,2), v(2,3): the box's two edges inside the 2x2
BIG_REST = minus(BIG, SQUARE)  # the 8 outline edges of the 3x3 that the 2x2 does not have
# Everything but h(2,2): that one edge then completes the box and the 2x2 at once.
BOTH_LAST = h(2, 2)
BOTH_PREP = minus(SQUARE, [BOTH_LAST]) + BOX_REST

# Rim edges far from the examples (bottom rim, then right rim of a 9 x 9 board).
FILLER_9 = [h(9, c) for c in range(9)] + [v(r, 9) for r in range(9)]


# --------------------------------------------------------------------------------------------
# Transcript builder
# --------------------------------------------------------------------------------------------


class Script:
    """Builds a transcript turn by turn and keeps track of whose turn it is."""

    def __init__(
        self, mode: str, overlap: str | None = None, first: int = 1, filler: list[Edge] | None = None
    ) -> None:
        self.mode = mode
        self.overlap = overlap
        self.first = first
        self.die = MODES[mode][1]
        self.to_move = first
        self.actions: list[dict[str, Any]] = []
        self.filler = list(FILLER_9 if filler is None else filler)

    def turn(self, edges: list[Edge], roll: int | None = None, end_turn: bool | None = None) -> Script:
        """One dice turn of the player to move.

        The roll defaults to the number of edges, so the last edge uses up the roll and the turn
        passes by itself; with a larger roll an explicit end_turn follows (unless end_turn=False,
        for a turn that the game itself ends)."""
        assert self.die is not None
        roll = len(edges) if roll is None else roll
        assert 1 <= len(edges) <= roll <= self.die
        self.actions.append({"roll": roll})
        self.actions += [{"draw": list(e)} for e in edges]
        if end_turn is None:
            end_turn = len(edges) < roll
        if end_turn:
            self.actions.append({"end_turn": True})
        self.to_move = 3 - self.to_move
        return self

    def filler_turn(self) -> Script:
        return self.turn([self.filler.pop(0)])

    def play(self, player: int, edges: list[Edge]) -> Script:
        """`player` draws `edges` in this order, in as many whole-roll turns as needed; the other
        player draws one far rim edge whenever they are to move in between."""
        assert self.die is not None
        for i in range(0, len(edges), self.die):
            if self.to_move != player:
                self.filler_turn()
            self.turn(edges[i : i + self.die])
        return self

    def transcript(self, extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        t: dict[str, Any] = {
            "mode": self.mode,
            "first": self.first,
            "actions": self.actions + list(extra or []),
        }
        if self.overlap is not None:
            t["overlap"] = self.overlap
        return t


def draws(*edges: Edge) -> list[dict[str, Any]]:
    return [{"draw": list(e)} for e in edges]


def in_player_order(you: int, yours: int, theirs: int) -> list[int]:
    return [yours, theirs] if you == 1 else [theirs, yours]


def ok(out: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in out, out
    return out


def error_of(out: dict[str, Any]) -> tuple[int | None, str]:
    assert "error" in out, out
    return out["error"]["index"], out["error"]["code"]


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
    assert out["squares"] == [
        {"size": k, "row": r, "col": c, "owner": owner[who]} for k, r, c, who in squares
    ]
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
        replay(
            Script("strategic").transcript(
                [{"roll": 5}] + draws(h(0, 0)) + [{"undo": True}, {"end_turn": True}]
            )
        )
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
        before
        + draws(SQUARE_REST[-1])
        + [{"undo": True}, {"end_turn": True}, {"roll": 1}]
        + draws(SQUARE_REST[-1])
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
    t = Script("strategic").transcript(
        [{"roll": 2}] + draws(h(0, 0), h(0, 1)) + [{"roll": 3}, {"undo": True}]
    )
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
                free = [
                    q for q in tracker.large if tracker.missing[q] and not tracker.boxes(q) & tracker.covered
                ]
                if free:
                    target = tracker.open_outline(rng.choice(free))
            if target:
                return target.pop(rng.randrange(len(target)))
        if tracker.covered and rng.random() < 0.9:  # mostly keep off the dashed edges
            live = [
                e
                for e in tracker.open
                if any(
                    tracker.missing[q] and not tracker.boxes(q) & tracker.covered for q in tracker.of_edge[e]
                )
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


@pytest.mark.parametrize(
    "mode", ["mini", "standard", "quick", "classic", "chain_reaction", "marathon", "practice_3x3"]
)
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
