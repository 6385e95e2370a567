"""The game state a client is sent (docs/protocol.md): the engine's view of the game plus what
the service keeps beside it."""

from __future__ import annotations

import json
from typing import Any

from boxedin.engine.game import Game
from boxedin.engine.view import game_view

from . import clock
from .setup import computer_to_move

LEVEL_NAMES = {"easy": "Easy", "normal": "Normal", "hard": "Hard", "expert": "Expert"}


def players(meta: dict[str, Any]) -> list[dict[str, str]]:
    opponent = meta["opponent"]
    if opponent == "ai":
        return [
            {"name": "You", "kind": "human"},
            {"name": f"AI ({LEVEL_NAMES[meta['level']]})", "kind": "ai"},
        ]
    if opponent == "practice":
        return [{"name": "You", "kind": "human"}, {"name": "Computer", "kind": "practice"}]
    return [{"name": "Player 1", "kind": "human"}, {"name": "Player 2", "kind": "human"}]


def game_state(game_id: str, seq: int, game: Game, meta: dict[str, Any], now: float) -> dict[str, Any]:
    state: dict[str, Any] = {
        "game": game_id,
        "seq": seq,
        "opponent": meta["opponent"],
        "level": meta["level"],
        "clock": meta["clock"],
        "ai_speed": meta["ai_speed"],
        "seed": meta["seed"],
        "players": players(meta),
        "ai_thinking": computer_to_move(game, meta),
        "clock_remaining_ms": clock.remaining_ms(meta, now) if clock.applies(game, meta) else None,
    }
    state.update(game_view(game))
    return state


def frame(kind: str, seq: int, state: dict[str, Any], action: dict[str, Any] | None = None) -> str:
    body: dict[str, Any] = {"type": kind, "seq": seq}
    if action is not None:
        body["action"] = action
    body["game"] = state
    return json.dumps(body, separators=(",", ":"))


def summary(game_id: str, game: Game, meta: dict[str, Any]) -> dict[str, Any]:
    return {
        "game": game_id,
        "mode": game.mode.id if game.mode else None,
        "overlap": game.rules.overlap.id if game.rules.has_overlap else None,
        "opponent": meta["opponent"],
        "level": meta["level"],
        "scores": list(game.scores),
        "round": game.round,
        "updated": meta["updated"],
    }
