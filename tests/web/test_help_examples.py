"""The drawn overlap examples of Help & Rules (web/src/state/helpExamples.ts) say what the engine does:
each example is played out in the engine, edge by edge, and its final score must be the one the
Help page prints under it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from boxedin.engine.board import Edge
from boxedin.engine.game import Game
from boxedin.engine.rules import Overlap, RuleSet

DIAGRAMS = Path(__file__).resolve().parents[2] / "web" / "src" / "state" / "helpExamples.ts"

Turn = tuple[int, list[str]]  # the player and the edges they draw ("h0,1": h, row 0, column 1)

# "Their box, then your 2×2 around it": they close box (0, 0); you draw the 2×2's last edge.
THEIR_BOX_THEN_YOUR_2X2: list[Turn] = [
    (1, ["h0,1", "h2,0", "h2,1", "v1,0", "v0,2"]),
    (2, ["h0,0", "h1,0", "v0,0", "v0,1"]),
    (1, ["v1,2"]),
]
# "Your box, then your 2×2 around it".
YOUR_BOX_THEN_YOUR_2X2: list[Turn] = [
    (1, ["h0,0", "h1,0", "v0,0", "v0,1"]),
    (2, ["h0,1"]),
    (1, ["h2,0", "h2,1", "v1,0", "v0,2", "v1,2"]),
]
# "Your 2×2, then your box inside it" (the box at (0, 1): any box inside does).
YOUR_2X2_THEN_YOUR_BOX: list[Turn] = [
    (1, ["h0,0", "h0,1", "h2,0", "h2,1", "v0,0", "v1,0", "v0,2", "v1,2"]),
    (2, ["h1,1"]),
    (1, ["v0,1"]),
]
# "Your box, your 2×2 over it, your 3×3 over both", on a 3×3 board.
BOX_2X2_3X3: list[Turn] = [
    (1, ["h0,0", "h1,0", "v0,0", "v0,1"]),
    (2, ["h3,2"]),
    (1, ["h0,1", "h2,0", "h2,1", "v1,0", "v0,2", "v1,2"]),
    (2, ["v2,3"]),
    (1, ["h0,2", "h3,0", "h3,1", "v2,0", "v0,3", "v1,3"]),
]

SCENARIOS: dict[str, tuple[int, list[Turn]]] = {
    "independent": (2, THEIR_BOX_THEN_YOUR_2X2),
    "consume": (2, THEIR_BOX_THEN_YOUR_2X2),
    "exclusive": (2, THEIR_BOX_THEN_YOUR_2X2),
    "takeover": (2, THEIR_BOX_THEN_YOUR_2X2),
    "protected": (2, THEIR_BOX_THEN_YOUR_2X2),
    "layered": (2, YOUR_BOX_THEN_YOUR_2X2),
    "volatile": (2, THEIR_BOX_THEN_YOUR_2X2),
    "builder": (2, YOUR_BOX_THEN_YOUR_2X2),
    "territory": (2, THEIR_BOX_THEN_YOUR_2X2),
    "majority": (2, THEIR_BOX_THEN_YOUR_2X2),
    "fortress": (2, THEIR_BOX_THEN_YOUR_2X2),
    "home_turf": (2, YOUR_2X2_THEN_YOUR_BOX),
    "capped_layered": (3, BOX_2X2_3X3),
}


def printed_scores() -> dict[str, list[tuple[int, int]]]:
    """Each rule's step scores as helpExamples.ts gives them."""
    text = DIAGRAMS.read_text(encoding="utf-8")
    body = text[text.index("OVERLAP_EXAMPLES") :]
    blocks = re.split(r"\n  (\w+): \{", body)[1:]
    return {
        rule: [(int(a), int(b)) for a, b in re.findall(r"score: \[(-?\d+), (-?\d+)\]", block)]
        for rule, block in zip(blocks[::2], blocks[1::2], strict=True)
    }


def play(rule: str, boxes: int, turns: list[Turn]) -> list[tuple[int, int]]:
    """The scores after each turn of the scenario, played in the engine."""
    game = Game(RuleSet(boxes, 12, tuple(range(1, boxes + 1)), Overlap[rule.upper()]))
    after = []
    for player, edges in turns:
        assert game.to_move == player
        game.roll(len(edges))
        for e in edges:
            row, col = e[1:].split(",")
            game.draw(Edge(e[0], int(row), int(col)))  # type: ignore[arg-type]
        if not game.over and game.to_move == player:
            game.end_turn()
        after.append(game.scores)
    return after


def test_every_rule_has_an_example() -> None:
    assert sorted(printed_scores()) == sorted(rule.id for rule in Overlap) == sorted(SCENARIOS)


@pytest.mark.parametrize("rule", sorted(SCENARIOS))
def test_the_printed_score_is_the_engines(rule: str) -> None:
    boxes, turns = SCENARIOS[rule]
    printed = printed_scores()[rule]
    played = play(rule, boxes, turns)
    # The diagram's last step is the scenario's end; its first step is the position one move earlier.
    assert printed[-1] == played[-1], f"{rule}: Help prints {printed[-1]}, the engine scores {played[-1]}"
    assert printed[0] in played[:-1], f"{rule}: Help's first step {printed[0]} is no position of the game {played}"
