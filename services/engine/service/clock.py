"""The move clock, kept by the server: it counts down the seconds for the next roll or edge of
a person (the AI is not timed), starts again with every roll and every edge, and stands still
while the game is off screen."""

from __future__ import annotations

from typing import Any

from boxedin.engine.game import Game

from .setup import computer_seat

# A timeout sent by a browser may arrive a little before the server's own deadline.
GRACE_SECONDS = 0.25


def applies(game: Game, meta: dict[str, Any]) -> bool:
    return bool(meta["clock"]) and not game.over and game.to_move != computer_seat(meta)


def restart(game: Game, meta: dict[str, Any], now: float) -> None:
    """After any change: a full clock for whoever is to move now, if they are timed."""
    meta["deadline"] = meta["remaining_ms"] = None
    if applies(game, meta):
        if meta["hidden"]:
            meta["remaining_ms"] = meta["clock"] * 1000
        else:
            meta["deadline"] = now + meta["clock"]


def remaining_ms(meta: dict[str, Any], now: float) -> int | None:
    if meta["deadline"] is not None:
        return max(0, round((meta["deadline"] - now) * 1000))
    return meta["remaining_ms"]


def expired(meta: dict[str, Any], now: float) -> bool:
    return meta["deadline"] is not None and now >= meta["deadline"] - GRACE_SECONDS


def set_visible(meta: dict[str, Any], visible: bool, now: float) -> None:
    if visible and meta["hidden"]:
        meta["hidden"] = False
        if meta["remaining_ms"] is not None:
            meta["deadline"] = now + meta["remaining_ms"] / 1000
            meta["remaining_ms"] = None
    elif not visible and not meta["hidden"]:
        meta["hidden"] = True
        if meta["deadline"] is not None:
            meta["remaining_ms"] = remaining_ms(meta, now)
            meta["deadline"] = None
