"""The die: reproducible from a seed string, cryptographic without one, every face as likely."""

from __future__ import annotations

from collections import Counter

import pytest

from boxedin.engine.actions import GameError
from boxedin.engine.dice import Dice
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES


def test_a_seed_gives_the_same_rolls_and_surrounding_spaces_are_ignored() -> None:
    a, b = Dice("  river stone "), Dice("river stone")
    assert [a.face(i, 6) for i in range(50)] == [b.face(i, 6) for i in range(50)]
    assert [Dice("other").face(i, 6) for i in range(50)] != [a.face(i, 6) for i in range(50)]


@pytest.mark.parametrize("seed", ["", "   ", "x" * 97])
def test_a_seed_has_1_to_96_characters(seed: str) -> None:
    with pytest.raises(GameError) as info:
        Dice(seed)
    assert info.value.code == "bad_seed"


def test_96_characters_are_allowed() -> None:
    assert Dice(" " + "x" * 96 + " ").seed == "x" * 96


@pytest.mark.parametrize("sides", [4, 6, 8, 10, 12])
def test_every_face_is_about_equally_likely(sides: int) -> None:
    rolls = 6000
    counts = Counter(Dice("fairness").face(i, sides) for i in range(rolls))
    assert set(counts) == set(range(1, sides + 1))
    expected = rolls / sides
    chi_square = sum((counts[f] - expected) ** 2 / expected for f in counts)
    # The 99.9th percentile of chi-square with 11 degrees of freedom is 31.3.
    assert chi_square < 32


def test_without_a_seed_rolls_still_cover_the_die() -> None:
    dice = Dice()
    assert {dice.face(0, 4) for _ in range(400)} == {1, 2, 3, 4}


def test_a_game_rolls_its_own_dice_and_records_the_face() -> None:
    seeded = [Game.from_mode(MODES["quick"], seed="abc") for _ in range(2)]
    for game in seeded:
        for _ in range(5):
            game.roll()
            game.draw(game.geo.edges[game.position.open_edge_list()[0]])
            if game.phase == "draw":
                game.end_turn()
    assert seeded[0].actions == seeded[1].actions
