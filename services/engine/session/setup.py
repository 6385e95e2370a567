"""A game's setup as the service takes it (docs/protocol.md, new_game): checked, and turned into
an engine game plus its table: the seats, the move clock and the settings."""

from __future__ import annotations

import secrets
import time

from boxedin.common.choices import CLOCKS, LEVELS
from boxedin.common.game_ids import is_game_id, new_game_id
from boxedin.common.reasons import Refusal
from boxedin.engine.actions import GameError
from boxedin.engine.dice import normalise_seed
from boxedin.engine.game import Game
from boxedin.engine.rules import Mode, Overlap, RulesError, mode_by_id

from .seats import Seat
from .table import Table

OPPONENTS = ("ai", "local", "practice")
AI_SPEEDS = ("normal", "fast")


def _bad(message: str) -> Refusal:
    return Refusal("bad_setup", message)


def new_game(
    device: str,
    *,
    mode: str,
    overlap: str = "",
    opponent: str = "ai",
    level: str = "",
    first: int = 1,
    clock_seconds: int = 0,
    ai_speed: str = "",
    seed: str = "",
) -> tuple[Game, Table]:
    """The engine game and its table (seats, clock, settings), or a ``Refusal`` saying what is
    wrong. ``device`` is the hash of the device token that starts the game."""
    try:
        chosen_mode: Mode = mode_by_id(mode)
        rule = Overlap.from_id(overlap) if overlap else None
        rules = chosen_mode.rules_with(rule)
    except RulesError as exc:
        raise _bad(str(exc)) from None
    if opponent not in OPPONENTS:
        raise _bad(f"the opponent is one of {', '.join(OPPONENTS)}, not {opponent!r}")
    allowed = ("practice", "local") if chosen_mode.practice else ("ai", "local")
    if opponent not in allowed:
        raise _bad(f"{chosen_mode.name} is played against {' or '.join(allowed)}, not {opponent}")
    if opponent == "ai":
        level = level or "normal"
        if level not in LEVELS:
            raise _bad(f"the AI level is one of {', '.join(LEVELS)}, not {level!r}")
    elif level:
        raise _bad("an AI level is chosen only against the AI")
    if clock_seconds not in CLOCKS:
        raise _bad(f"the move clock is one of {', '.join(map(str, CLOCKS))} seconds, not {clock_seconds}")
    if chosen_mode.practice and clock_seconds:
        raise _bad("practice games have no move clock")
    if first not in (0, 1, 2):
        raise _bad(f"the first player is 1, 2 or 0 for random, not {first}")
    if chosen_mode.practice and opponent == "practice":
        first = 1  # The person always moves first against the practice computer.
    if first == 0:
        first = secrets.choice((1, 2))
    ai_speed = ai_speed or "normal"
    if ai_speed not in AI_SPEEDS:
        raise _bad(f"the AI speed is normal or fast, not {ai_speed!r}")
    try:
        clean_seed = normalise_seed(seed) if seed or chosen_mode.practice else None
    except GameError as exc:
        raise Refusal("bad_seed", exc.message) from None
    game = Game(
        rules,
        mode=chosen_mode,
        first=first,
        seed=clean_seed,
        undo_allowed=clock_seconds == 0 and not chosen_mode.practice,
    )
    seats: tuple[Seat, Seat]
    if opponent == "ai":
        seats = (Seat.person(device, "You"), Seat.ai(level))
    elif opponent == "practice":
        seats = (Seat.person(device, "You"), Seat.practice_computer())
    else:
        seats = (Seat.person(device, "Player 1"), Seat.person(device, "Player 2"))
    now = time.time()
    table = Table(
        seats=seats,
        clock=clock_seconds,
        ai_speed=ai_speed,
        seed=clean_seed,
        created=now,
        updated=now,
        # The practice game is a tool beside the game list: it never replaces the saved game.
        saved=not chosen_mode.practice,
    )
    return game, table


def game_id_for(chosen: str) -> str:
    """A new game's id: the one its caller drew (the engine router draws it to pick the replica
    the game's calls go to), or a new one when it chose none."""
    if not chosen:
        return new_game_id()
    if not is_game_id(chosen):
        raise Refusal("malformed", "a new game's id is g_ and 16 URL-safe characters")
    return chosen
