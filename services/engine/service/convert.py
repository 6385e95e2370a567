"""Proto conversion for the engine's calls: an action from its message, who makes it, the
facts a commit publishes, a saved game's summary, a finished game for the statistics."""

from __future__ import annotations

from prometheus_client import Counter

from boxedin.common.devices import device_hash
from boxedin.common.reasons import Refusal
from boxedin.common.service_auth import calling_service
from boxedin.engine.actions import Action
from boxedin.engine.game import Game
from boxedin.engine.session.pipeline import action_of
from boxedin.engine.session.seats import COMPUTER, Caller, Person
from boxedin.engine.session.table import Table
from boxedin.v1 import common_pb2, engine_pb2

Actor = common_pb2.Actor


def action_from_proto(action: common_pb2.Action) -> Action:
    """The action an engine request names, parsed as every action is (the session pipeline)."""
    kind = action.WhichOneof("kind")
    edge = [action.draw.orientation, action.draw.row, action.draw.col] if kind == "draw" else None
    return action_of(kind, edge)


def facts(seq: int, game: Game, table: Table) -> common_pb2.GameFacts:
    return common_pb2.GameFacts(
        seq=seq,
        to_move=game.to_move or 0,
        phase=game.phase,
        over=game.over,
        ai_thinking=table.computer_to_move(game),
        deadline=table.next_deadline() or 0.0,
        turn=int(game.position.turn),
        clock=table.clock,
        online=table.online is not None,
        next_game=table.online_state.next_game or "" if table.online_state is not None else "",
        via=table.online or "",
    )


def counter_by_mode(counter: Counter) -> dict[str, int]:
    """A counter labelled by mode (and more), added up by mode: the modes counted in (the
    children exported at 0 are left out)."""
    totals: dict[str, int] = {}
    for metric in counter.collect():
        for sample in metric.samples:
            if sample.name.endswith("_total"):
                mode = sample.labels["mode"]
                totals[mode] = totals.get(mode, 0) + int(sample.value)
    return {mode: total for mode, total in totals.items() if total}


def mode_of(game: Game) -> str:
    return game.mode.id if game.mode is not None else "custom"


def finished_game(game_id: str, encoded: bytes, table: Table, now: float) -> common_pb2.FinishedGame:
    """A game that just finished, as the statistics take it."""
    seats = [
        common_pb2.SeatInfo(kind=seat.kind, device=seat.device or "", level=seat.level or "", name=seat.name)
        for seat in table.seats
    ]
    return common_pb2.FinishedGame(game_id=game_id, record=encoded, seats=seats, created=table.created, ended=now)


def caller_of(request: engine_pb2.ActRequest) -> Caller:
    """Who makes an action request: a person (by the hash of the device token, which only the
    gateway vouches for) or the computer (only the AI service plays it); never a deadline, which
    only this service's own deadline loop fires, never a call."""
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
        # The deadline loop calls the session pipeline itself, with a caller of its own.
        raise Refusal("not_allowed", "only the engine's deadlines end a turn on time")
    raise Refusal("malformed", "the request names no actor")


def saved_summary(game_id: str, game: Game, table: Table) -> common_pb2.SavedGameSummary:
    """A device's saved game, as its welcome names it (docs/protocol.md)."""
    return common_pb2.SavedGameSummary(
        game_id=game_id,
        mode=game.mode.id if game.mode else "",
        overlap=game.rules.overlap.id if game.rules.has_overlap else "",
        opponent=table.opponent,
        level=table.level or "",
        score1=game.scores[0],
        score2=game.scores[1],
        round=game.round,
        updated=table.updated,
    )
