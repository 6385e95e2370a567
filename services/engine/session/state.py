"""The game state a client is sent (docs/protocol.md): the engine's view of the game plus what
the table keeps beside it. Previews of every open edge go only to games that show them
(practice): computing them is most of the cost of a state."""

from __future__ import annotations

from typing import Any

import orjson

from boxedin.engine.game import Game
from boxedin.engine.view import game_view

from . import clock, online
from .table import Table


def shows_previews(game: Game) -> bool:
    return game.mode is not None and game.mode.practice


def players(table: Table) -> list[dict[str, str]]:
    return [{"name": seat.name, "kind": seat.kind} for seat in table.seats]


def game_state(game_id: str, seq: int, game: Game, table: Table, now: float) -> dict[str, Any]:
    state: dict[str, Any] = {
        "game": game_id,
        "seq": seq,
        "opponent": table.opponent,
        "level": table.level,
        "clock": table.clock,
        "ai_speed": table.ai_speed,
        "seed": table.seed,
        "players": players(table),
        "ai_thinking": table.computer_to_move(game),
        "clock_remaining_ms": clock.remaining_ms(table, now) if clock.applies(game, table) else None,
        "online": online.view(table, game, now),
    }
    state.update(game_view(game, previews=shows_previews(game)))
    return state


def to_json(value: Any) -> str:
    # orjson: compact, and UTF-8 as it is (json.dumps would escape a name's accents).
    return orjson.dumps(value).decode()


def update_frame(seq: int, action: dict[str, Any], changes_json: str) -> str:
    """The update frame of docs/protocol.md: the action and what it changed in the state
    (changes.py), never the whole state."""
    return f'{{"type":"update","seq":{seq},"action":{to_json(action)},"changes":{changes_json}}}'
