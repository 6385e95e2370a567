"""What the engine's calls take and give, beside the games: an action from its message, who
makes it, the action as its update names it, the facts a commit publishes, a finished game for
the statistics."""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter

from boxedin.common.devices import device_hash
from boxedin.common.reasons import Refusal
from boxedin.common.service_auth import calling_service
from boxedin.engine.actions import Action, Draw, EndTurn, GameError, Resign, Roll, Timeout, Undo, edge_from_json
from boxedin.engine.game import Game
from boxedin.v1 import common_pb2, engine_pb2

from .record import CLOCK, COMPUTER, Caller, GameRecord, Person

Actor = common_pb2.Actor


def action_from_proto(action: common_pb2.Action) -> Action:
    kind = action.WhichOneof("kind")
    if kind == "draw":
        try:
            return Draw(edge_from_json([action.draw.orientation, action.draw.row, action.draw.col]))
        except GameError as exc:
            raise Refusal("malformed", exc.message) from None
    simple: dict[str | None, Action] = {
        "roll": Roll(),
        "end_turn": EndTurn(),
        "undo": Undo(),
        "timeout": Timeout(),
    }
    if kind in simple:
        return simple[kind]
    if kind == "resign":
        return Resign(0)  # the seat is filled in from who resigns
    raise Refusal("malformed", "the request names no action")


def action_json(action: Action, game: Game, by: int) -> dict[str, Any]:
    if isinstance(action, Roll):
        return {"roll": game.current_roll, "by": by}
    if isinstance(action, Resign):
        return {"resign": True, "by": action.player}
    return {**action.to_json(), "by": by}


def facts(seq: int, game: Game, record: GameRecord) -> common_pb2.GameFacts:
    return common_pb2.GameFacts(
        seq=seq,
        to_move=game.to_move or 0,
        phase=game.phase,
        over=game.over,
        ai_thinking=record.computer_to_move(game),
        deadline=record.next_deadline() or 0.0,
        turn=int(game.position.turn),
        clock=record.clock,
        online=record.online is not None,
        next_game=record.online_state.next_game or "" if record.online_state is not None else "",
        via=record.online or "",
    )


def counter_by_mode(counter: Counter) -> dict[str, int]:
    """A counter labelled by mode (and more), added up by mode."""
    totals: dict[str, int] = {}
    for metric in counter.collect():
        for sample in metric.samples:
            if sample.name.endswith("_total"):
                mode = sample.labels["mode"]
                totals[mode] = totals.get(mode, 0) + int(sample.value)
    return totals


def mode_of(game: Game) -> str:
    return game.mode.id if game.mode is not None else "custom"


def finished_game(game_id: str, encoded: bytes, record: GameRecord, now: float) -> common_pb2.FinishedGame:
    """A game that just finished, as the statistics take it."""
    seats = [
        common_pb2.SeatInfo(kind=seat.kind, device=seat.device or "", level=seat.level or "", name=seat.name)
        for seat in record.seats
    ]
    return common_pb2.FinishedGame(game_id=game_id, record=encoded, seats=seats, created=record.created, ended=now)


def caller_of(request: engine_pb2.ActRequest) -> Caller:
    """Who makes an action request: a person (by the hash of the device token, which only the
    gateway vouches for), the computer (only the AI service plays it), or a deadline (only this
    service's own deadline loop, never a call)."""
    service = calling_service()
    if request.actor == Actor.ACTOR_HUMAN:
        if service != "gateway":
            raise Refusal("not_allowed", "only the gateway acts for a player")
        return Person(device_hash(request.device))
    if request.actor == Actor.ACTOR_AI:
        if service != "ai":
            raise Refusal("not_allowed", "only the AI service plays the computer's turns")
        return COMPUTER
    if request.actor == Actor.ACTOR_CLOCK:
        if service:
            raise Refusal("not_allowed", "only the engine's deadlines end a turn on time")
        return CLOCK
    raise Refusal("malformed", "the request names no actor")
