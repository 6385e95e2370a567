"""The arena's players: the levels players are offered, and the reference players kept for
measuring (never offered to players, nor by `boxedin ai turn`)."""

from __future__ import annotations

from collections.abc import Callable

from boxedin.ai import levels
from boxedin.ai.context import Player
from boxedin.ai.greedy import Greedy

from .perfect import Perfect

ARENA_LEVELS: dict[str, Callable[[], Player]] = {
    **levels.LEVELS,
    "greedy": Greedy,
    "perfect": Perfect,
}


def make_player(level: str) -> Player:
    """The player of a level, the reference players included."""
    return levels.make_player(level, ARENA_LEVELS)
