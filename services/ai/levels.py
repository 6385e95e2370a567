"""The levels by name: the ones players are offered (the arena adds its reference players)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from boxedin.common import choices

from .context import Player
from .easy import Easy
from .expert import Expert
from .hard import Hard
from .normal import Normal
from .practice import Practice

# Each level of boxedin.common.choices by its player (every player class names its level), then
# the practice computer: a level without a player fails here, at import.
_PLAYERS: dict[str, Callable[[], Player]] = {player.name: player for player in (Easy, Normal, Hard, Expert)}
LEVELS: dict[str, Callable[[], Player]] = {level: _PLAYERS[level] for level in choices.LEVELS} | {"practice": Practice}


def make_player(level: str, levels: Mapping[str, Callable[[], Player]] = LEVELS) -> Player:
    """The player of a level, looked up in ``levels`` (the players' levels unless told)."""
    try:
        return levels[level]()
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}; the levels are {', '.join(levels)}") from None
