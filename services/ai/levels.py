"""The levels by name."""

from __future__ import annotations

from collections.abc import Callable

from .context import Player
from .easy import Easy
from .expert import Expert
from .greedy import Greedy
from .hard import Hard
from .normal import Normal
from .perfect import Perfect
from .practice import Practice

LEVELS: dict[str, Callable[[], Player]] = {
    "easy": Easy,
    "normal": Normal,
    "hard": Hard,
    "expert": Expert,
    "practice": Practice,
}

# Reference players for `boxedin match` only: never offered to players, nor by `boxedin ai turn`.
MATCH_LEVELS: dict[str, Callable[[], Player]] = {
    **LEVELS,
    "greedy": Greedy,
    "perfect": Perfect,
}


def make_player(level: str, *, match: bool = False) -> Player:
    """The player of a level; ``match``: the reference players of `boxedin match` as well."""
    levels = MATCH_LEVELS if match else LEVELS
    try:
        return levels[level]()
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}; the levels are {', '.join(levels)}") from None
