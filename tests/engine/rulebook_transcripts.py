"""Building transcripts for the rule book's worked examples: the mode presets as the tests
read them from the rule book, edge and square geometry, and a turn-by-turn transcript builder.

Coordinates are those of shared/spec/rules-notes.md."""

from __future__ import annotations

from typing import Any

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
    return [h(r, c) for r in range(n + 1) for c in range(n)] + [v(r, c) for r in range(n) for c in range(n + 1)]


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

    def __init__(self, mode: str, overlap: str | None = None, first: int = 1, filler: list[Edge] | None = None) -> None:
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
