"""A game's setup as the service takes it (docs/protocol.md, new_game): checked, and turned into
an engine game plus the settings the service keeps beside it (opponent, level, clock...)."""

from __future__ import annotations

import secrets
import time
from typing import Any

from boxedin.common.devices import check_device
from boxedin.common.reasons import Refusal
from boxedin.engine.actions import GameError
from boxedin.engine.dice import normalise_seed
from boxedin.engine.game import Game
from boxedin.engine.rules import Mode, Overlap, RulesError, mode_by_id

OPPONENTS = ("ai", "local", "practice")
LEVELS = ("easy", "normal", "hard", "expert")
CLOCKS = (0, 10, 20, 30, 60)
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
) -> tuple[Game, dict[str, Any]]:
    """The engine game and the service's settings for it, or a ``Refusal`` saying what is wrong."""
    check_device(device)
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
    now = time.time()
    meta: dict[str, Any] = {
        "device": device,
        "opponent": opponent,
        "level": level or None,
        "clock": clock_seconds,
        "ai_speed": ai_speed,
        "seed": clean_seed,
        "created": now,
        "updated": now,
        # The move clock: when it runs out (epoch seconds), or what is left while the game is
        # off screen (the clock stands still then).
        "deadline": None,
        "remaining_ms": None,
        "hidden": False,
    }
    return game, meta


def computer_seat(meta: dict[str, Any]) -> int | None:
    """The seat the computer plays (the AI and the practice computer are player 2), if any."""
    return 2 if meta["opponent"] in ("ai", "practice") else None


def computer_to_move(game: Game, meta: dict[str, Any]) -> bool:
    return not game.over and game.to_move == computer_seat(meta)


def new_game_id() -> str:
    return "g_" + secrets.token_urlsafe(12)
