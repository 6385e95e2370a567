"""A game's id: ``g_`` and 16 URL-safe characters (96 random bits). The engine draws one for a
new game, or its caller does (boxedin.common.engine_router), so that the call creating the game
reaches the replica the game's actions will reach."""

from __future__ import annotations

import re
import secrets

_GAME_ID = re.compile(r"g_[A-Za-z0-9_-]{16}")


def new_game_id() -> str:
    return "g_" + secrets.token_urlsafe(12)


def is_game_id(text: str) -> bool:
    """Whether a caller's id has the form of one drawn by new_game_id (never a guessable one)."""
    return _GAME_ID.fullmatch(text) is not None
