"""The move clock, kept by the server: it counts down the seconds for the next roll or edge of
a person (the computer is not timed), starts again with every roll and every edge, and stands
still while the game is off screen. When it runs out the engine's deadline loop ends the turn."""

from __future__ import annotations

from boxedin.engine.game import Game

from .record import GameRecord

# A timeout sent by a browser may arrive a little before the server's own deadline.
GRACE_SECONDS = 0.25


def applies(game: Game, record: GameRecord) -> bool:
    return bool(record.clock) and not game.over and not record.computer_to_move(game)


def restart(game: Game, record: GameRecord, now: float) -> None:
    """After any change: a full clock for whoever is to move now, if they are timed."""
    record.deadline = record.remaining_ms = None
    if applies(game, record):
        if record.hidden:
            record.remaining_ms = record.clock * 1000
        else:
            record.deadline = now + record.clock


def remaining_ms(record: GameRecord, now: float) -> int | None:
    if record.deadline is not None:
        return max(0, round((record.deadline - now) * 1000))
    return record.remaining_ms


def expired(record: GameRecord, now: float) -> bool:
    return record.deadline is not None and now >= record.deadline - GRACE_SECONDS


def set_visible(record: GameRecord, visible: bool, now: float) -> None:
    if visible and record.hidden:
        record.hidden = False
        if record.remaining_ms is not None:
            record.deadline = now + record.remaining_ms / 1000
            record.remaining_ms = None
    elif not visible and not record.hidden:
        record.hidden = True
        if record.deadline is not None:
            record.remaining_ms = remaining_ms(record, now)
            record.deadline = None
