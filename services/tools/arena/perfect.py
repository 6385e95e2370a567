"""Perfect: exact play from the first turn, a reference player for `boxedin match` only.

Issue 17 asks Expert to be as far ahead of Hard "as the dice allow". On the smallest dice board
that can be measured: Mini's 24 lines with a d4 make a dice table (``_dice_table.DiceTable``) of
every set of drawn lines, (4 + 1) << 24 values, about 0.7 GB, solved once per process in a few
seconds; with a d6 or a d8 (``boxedin match --board 3:6``, ``--board 3:8:1,2``) up to 1.2 GB.
Perfect then plays the turn with the best expected margin against best play, looked up from the
position's drawn lines. No player does better on average against a perfect opponent,
so Perfect against Hard on Mini is the yardstick of what a stronger Expert could gain there.

It applies where the dice table does: a die, and what a line scores depends on the drawn lines
alone (1x1 boxes, or the independent rule), on a board whose whole table fits
``PERFECT_TABLE_CELLS``. Without dice it plays the exact standard solver (``solve_standard``) on
boards of up to 3x3 boxes (the 3x3 practice board, whose first line takes about a second), where
issue 17 asks Expert to lose nothing against perfect play. Elsewhere ``perfect_refusal`` says why
and `boxedin match` refuses.
"""

from __future__ import annotations

from boxedin.ai._dice_table import DiceTable
from boxedin.ai.context import PlanContext, Position
from boxedin.ai.solver import dice_table, solve_standard
from boxedin.engine.game import Game
from boxedin.engine.rules import Overlap, RuleSet

PERFECT_TABLE_CELLS = 9 << 24  # 24 lines (Mini's board) with up to a d8: 1.2 GB
STANDARD_BOXES = 3  # without dice: the whole 3x3 game is solved in about a second


def perfect_refusal(rules: RuleSet) -> str | None:
    """Why Perfect cannot play under ``rules``, or None when it can."""
    if rules.die is None:
        if rules.sizes != (1,) or rules.boxes > STANDARD_BOXES:
            return f"without dice perfect plays boards of at most {STANDARD_BOXES}x{STANDARD_BOXES} boxes"
        return None
    if rules.sizes != (1,) and rules.overlap is not Overlap.INDEPENDENT:
        return "perfect needs 1x1 boxes or the independent overlap rule"
    lines = rules.edge_count
    if (rules.die + 1) << lines > PERFECT_TABLE_CELLS:
        most = "24 lines with a d8 (Mini's board)"
        return f"perfect plays boards of at most {most}, not {lines} lines with a d{rules.die}"
    return None


_TABLES: dict[RuleSet, tuple[DiceTable, list[int]]] = {}


def perfect_table(rules: RuleSet) -> tuple[DiceTable, list[int]]:
    """The solved table of the whole game under ``rules`` and the edge id of each of its lines,
    built on first use and kept for the process."""
    if rules not in _TABLES:
        refusal = perfect_refusal(rules)
        if refusal is not None:
            raise ValueError(refusal)
        table, lines = dice_table(Game(rules).position, rules.die or 0, rules)
        table.solve(0.0)
        _TABLES[rules] = (table, lines)
    return _TABLES[rules]


class Perfect:
    """The best turn by the solved table (dice), or the exact standard solver's turn (no dice)."""

    name = "perfect"

    def plan(self, pos: Position, ctx: PlanContext) -> list[int]:
        if ctx.rules.die is None:
            return self._standard_turn(pos, ctx.rules)
        table, lines = perfect_table(ctx.rules)
        mask = 0
        for i, e in enumerate(lines):
            if pos.drawn_by(e):
                mask |= 1 << i
        _, plan, _ = table.best_lines(mask, pos.edges_left, pos.drawn_this_turn > 0)
        drawn = [lines[i] for i in plan]
        for e in drawn:
            pos.draw(e)
        return drawn

    @staticmethod
    def _standard_turn(pos: Position, rules: RuleSet) -> list[int]:
        refusal = perfect_refusal(rules)
        if refusal is not None:
            raise ValueError(refusal)
        result = solve_standard(pos.copy(), rules=rules)
        assert result is not None  # no deadline and no node limit: the search always finishes
        for e in result.line:
            pos.draw(e)
        return list(result.line)
