"""The levels by name."""

from __future__ import annotations

from collections.abc import Callable

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


def make_player(level: str) -> Player:
    try:
        return LEVELS[level]()
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}; the levels are {', '.join(LEVELS)}") from None
