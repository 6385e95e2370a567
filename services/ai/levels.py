"""The levels by name: the ones players are offered (the arena adds its reference players)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .context import Player
from .easy import Easy
from .expert import Expert
from .hard import Hard
from .normal import Normal
from .practice import Practice

LEVELS: dict[str, Callable[[], Player]] = {
    "easy": Easy,
    "normal": Normal,
    "hard": Hard,
    "expert": Expert,
    "practice": Practice,
}


def make_player(level: str, levels: Mapping[str, Callable[[], Player]] = LEVELS) -> Player:
    """The player of a level, looked up in ``levels`` (the players' levels unless told)."""
    try:
        return levels[level]()
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}; the levels are {', '.join(levels)}") from None
