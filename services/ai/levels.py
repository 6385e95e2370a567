"""The levels by name."""

from __future__ import annotations

from collections.abc import Callable

from boxedin.common import choices

from .context import Player
from .easy import Easy
from .expert import Expert
from .greedy import Greedy
from .hard import Hard
from .normal import Normal
from .perfect import Perfect
from .practice import Practice

# Each level of boxedin.common.choices by its player (every player class names its level), then
# the practice computer: a level without a player fails here, at import.
_PLAYERS: dict[str, Callable[[], Player]] = {player.name: player for player in (Easy, Normal, Hard, Expert)}
LEVELS: dict[str, Callable[[], Player]] = {level: _PLAYERS[level] for level in choices.LEVELS} | {"practice": Practice}

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
