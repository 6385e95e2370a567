"""The move clock, kept by the server: it counts down the seconds for the next roll or edge of
a person (the computer is not timed), starts again with every roll and every edge, and stands
still while the game is off screen. When it runs out the engine's deadline loop ends the turn."""

from __future__ import annotations

from boxedin.engine.game import Game

from .table import Table

# A timeout sent by a browser may arrive a little before the server's own deadline.
GRACE_SECONDS = 0.25


def applies(game: Game, table: Table) -> bool:
    return bool(table.clock) and not game.over and not table.computer_to_move(game)


def restart(game: Game, table: Table, now: float) -> None:
    """After any change: a full clock for whoever is to move now, if they are timed."""
    table.deadline = table.remaining_ms = None
    if applies(game, table):
        if table.hidden:
            table.remaining_ms = table.clock * 1000
        else:
            table.deadline = now + table.clock


def remaining_ms(table: Table, now: float) -> int | None:
    if table.deadline is not None:
        return max(0, round((table.deadline - now) * 1000))
    return table.remaining_ms


def expired(table: Table, now: float) -> bool:
    return table.deadline is not None and now >= table.deadline - GRACE_SECONDS


def set_visible(table: Table, visible: bool, now: float) -> None:
    if visible and table.hidden:
        table.hidden = False
        if table.remaining_ms is not None:
            table.deadline = now + table.remaining_ms / 1000
            table.remaining_ms = None
    elif not visible and not table.hidden:
        table.hidden = True
        if table.deadline is not None:
            table.remaining_ms = remaining_ms(table, now)
            table.deadline = None
