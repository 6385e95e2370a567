"""The engine service's gRPC handlers: every action is load, check, apply, compare-and-set."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from typing import Any

import grpc
import redis.asyncio as redis

from boxedin.common.devices import check_device
from boxedin.common.metrics import ACTION_LATENCY, ACTIONS, CAS_CONFLICTS, GAMES_CREATED, RULE_ERRORS
from boxedin.common.reasons import Refusal, abort
from boxedin.engine import codec
from boxedin.engine.actions import (
    Action,
    Draw,
    EndTurn,
    GameError,
    Resign,
    Roll,
    Timeout,
    Undo,
    edge_from_json,
)
from boxedin.engine.game import Game
from boxedin.v1 import ai_pb2, ai_pb2_grpc, common_pb2, engine_pb2, engine_pb2_grpc

from . import clock
from .setup import computer_seat, computer_to_move, new_game, new_game_id
from .state import frame, game_state, summary
from .store import GameStore, StoredGame

log = logging.getLogger("boxedin.engine")
Actor = common_pb2.Actor
_CACHED_GAMES = 2048


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


class EngineService(engine_pb2_grpc.EngineServicer):
    def __init__(self, store: GameStore, ai_address: str | None) -> None:
        self.store = store
        self.ai_address = ai_address
        self._ai_channel: grpc.aio.Channel | None = None
        # Decoded games by id, with the seq they stand at: consecutive actions on one game
        # skip replaying its record. An entry is taken out while an action uses it.
        self._games: OrderedDict[str, tuple[int, Game]] = OrderedDict()
        self._background: set[asyncio.Task[Any]] = set()

    # --- plumbing ---------------------------------------------------------------------------

    async def _load(self, game_id: str) -> tuple[StoredGame, Game]:
        try:
            stored = await self.store.load(game_id)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached; the game is unchanged") from exc
        if stored is None:
            raise Refusal("no_game", "there is no such game (it may have finished or been replaced)")
        cached = self._games.pop(game_id, None)
        if cached is not None and cached[0] == stored.seq:
            return stored, cached[1]
        return stored, codec.decode(stored.record)

    def _remember(self, game_id: str, seq: int, game: Game) -> None:
        self._games[game_id] = (seq, game)
        self._games.move_to_end(game_id)
        while len(self._games) > _CACHED_GAMES:
            self._games.popitem(last=False)

    def _snapshot(
        self, game_id: str, seq: int, game: Game, meta: dict[str, Any], state: dict[str, Any], update: str = ""
    ) -> Any:
        return common_pb2.GameSnapshot(
            update_json=update,
            game_id=game_id,
            seq=seq,
            state_json=json.dumps(state, separators=(",", ":")),
            device=meta["device"],
            opponent=meta["opponent"],
            level=meta["level"] or "",
            to_move=game.to_move or 0,
            over=game.over,
            computer_to_move=computer_to_move(game, meta),
            ai_speed=meta["ai_speed"],
            record=codec.encode(game),
        )

    async def _commit(
        self,
        stored: StoredGame,
        game: Game,
        meta: dict[str, Any],
        action: dict[str, Any],
        now: float,
        *,
        by_computer: bool = False,
    ) -> Any:
        """Stores the changed game if nobody else changed it first, and publishes the update.
        When the computer is to move next, the AI service is asked to play (unless this was the
        computer's own move: it plays its turn to the end by itself)."""
        meta["updated"] = now
        seq = stored.seq + 1
        state = game_state(stored.game_id, seq, game, meta, now)
        update = frame("update", seq, state, action)
        try:
            stored_ok = await self.store.compare_and_set(stored, codec.encode(game), meta, update, finished=game.over)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached; the game is unchanged") from exc
        if not stored_ok:
            CAS_CONFLICTS.inc()
            raise Refusal("busy", "another action on this game was applied at the same moment; try again")
        self._remember(stored.game_id, seq, game)
        if computer_to_move(game, meta) and not by_computer:
            self._start_computer_turn(stored.game_id)
        return self._snapshot(stored.game_id, seq, game, meta, state, update)

    def _start_computer_turn(self, game_id: str) -> None:
        """Asks the AI service to play the computer's turn; it plays through Act like anyone."""
        if not self.ai_address:
            return
        if self._ai_channel is None:
            self._ai_channel = grpc.aio.insecure_channel(self.ai_address)
        stub = ai_pb2_grpc.AiStub(self._ai_channel)

        async def ask() -> None:
            try:
                await stub.PlayTurn(ai_pb2.PlayTurnRequest(game_id=game_id), timeout=5)
            except grpc.RpcError as exc:
                log.warning(
                    "AI service did not take the turn", extra={"game": game_id, "error": str(exc.code())}
                )

        task = asyncio.create_task(ask())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def close(self) -> None:
        if self._background:
            await asyncio.wait(self._background, timeout=2)
        if self._ai_channel is not None:
            await self._ai_channel.close()

    async def _guard(self, context: grpc.aio.ServicerContext, work: Any) -> Any:
        try:
            return await work
        except Refusal as refusal:
            RULE_ERRORS.labels(refusal.reason).inc()
            await abort(context, refusal)

    # --- the calls --------------------------------------------------------------------------

    async def CreateGame(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._guard(context, self._create(request))

    async def _create(self, request: Any) -> Any:
        setup = request.setup
        game, meta = new_game(
            request.device,
            mode=setup.mode,
            overlap=setup.overlap,
            opponent=setup.opponent or "ai",
            level=setup.level,
            first=setup.first,
            clock_seconds=setup.clock_seconds,
            ai_speed=setup.ai_speed,
            seed=setup.seed,
        )
        now = time.time()
        clock.restart(game, meta, now)
        game_id = new_game_id()
        try:
            # The practice game is a tool beside the game list: it never replaces the saved game.
            saved = not (game.mode is not None and game.mode.practice)
            await self.store.create(game_id, codec.encode(game), meta, request.device, saved=saved)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        GAMES_CREATED.labels(setup.mode, meta["opponent"]).inc()
        self._remember(game_id, 0, game)
        if computer_to_move(game, meta):
            self._start_computer_turn(game_id)
        return self._snapshot(game_id, 0, game, meta, game_state(game_id, 0, game, meta, now))

    async def GetGame(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._guard(context, self._get(request.game_id, request.device))

    async def _get(self, game_id: str, device: str) -> Any:
        stored, game = await self._load(game_id)
        if device and stored.meta["device"] != device:
            raise Refusal("not_your_game", "this game belongs to another device")
        self._remember(game_id, stored.seq, game)
        state = game_state(game_id, stored.seq, game, stored.meta, time.time())
        return self._snapshot(game_id, stored.seq, game, stored.meta, state)

    async def Act(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._guard(context, self._act(request))

    async def _act(self, request: Any) -> Any:
        started = time.perf_counter()
        action = action_from_proto(request.action)
        stored, game = await self._load(request.game_id)
        try:
            snapshot = await self._apply(request, action, stored, game)
        except Refusal as refusal:
            # A refused action leaves the game as loaded, so it can be kept for the next one;
            # after a lost race or a failed write it holds an action that was not stored.
            if refusal.reason not in ("busy", "unavailable", "time_up"):
                self._remember(stored.game_id, stored.seq, game)
            raise
        name = type(action).__name__.lower()
        ACTIONS.labels(name, Actor.Name(request.actor).removeprefix("ACTOR_").lower()).inc()
        ACTION_LATENCY.labels(name).observe(time.perf_counter() - started)
        return snapshot

    async def _apply(self, request: Any, action: Action, stored: StoredGame, game: Game) -> Any:
        meta = stored.meta
        actor = request.actor
        if actor == Actor.ACTOR_HUMAN and stored.meta["device"] != request.device:
            raise Refusal("not_your_game", "this game belongs to another device")
        if actor not in (Actor.ACTOR_HUMAN, Actor.ACTOR_AI, Actor.ACTOR_CLOCK):
            raise Refusal("malformed", "the request names no actor")
        if request.expected_seq >= 0 and request.expected_seq != stored.seq:
            raise Refusal(
                "stale", f"the game has moved on (it is at {stored.seq}, not {request.expected_seq})"
            )
        if game.over:
            raise Refusal("game_over", "the game is over: no more actions are possible")
        now = time.time()
        computer = computer_to_move(game, meta)
        mover = game.to_move or 0
        if isinstance(action, Resign):
            if actor != Actor.ACTOR_HUMAN:
                raise Refusal("malformed", "only a player can resign")
            # Against the computer the person resigns; in a local game, the player to move.
            action = Resign(1 if computer_seat(meta) else mover)
        elif actor == Actor.ACTOR_HUMAN and computer:
            raise Refusal("not_your_turn", "the computer is playing its turn")
        elif actor == Actor.ACTOR_AI and not computer:
            raise Refusal("not_your_turn", "it is not the computer's turn")
        elif actor == Actor.ACTOR_CLOCK and not isinstance(action, Timeout):
            raise Refusal("malformed", "the clock can only end a turn")
        time_up = False
        if isinstance(action, Timeout):
            if not (clock.applies(game, meta) and clock.expired(meta, now)):
                raise Refusal("clock_running", "the move clock still has time left")
        elif actor == Actor.ACTOR_HUMAN and clock.applies(game, meta) and clock.expired(meta, now):
            # Too late: the turn ended when the clock ran out, whatever this action was.
            action, time_up = Timeout(), True
        try:
            game.apply(action)
        except GameError as exc:
            raise Refusal(exc.code, exc.message) from None
        clock.restart(game, meta, now)
        snapshot = await self._commit(
            stored, game, meta, action_json(action, game, mover), now, by_computer=actor == Actor.ACTOR_AI
        )
        if time_up:
            raise Refusal("time_up", "the move clock ran out before that: the turn has ended")
        return snapshot

    async def GetSavedGame(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._guard(context, self._saved(request.device))

    async def _saved_game(self, device: str) -> tuple[StoredGame, Game]:
        check_device(device)
        try:
            game_id = await self.store.saved_game_id(device)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        if game_id is None:
            raise Refusal("no_game", "this device has no saved game")
        return await self._load(game_id)

    async def _saved(self, device: str) -> Any:
        stored, game = await self._saved_game(device)
        self._remember(stored.game_id, stored.seq, game)
        info = summary(stored.game_id, game, stored.meta)
        return common_pb2.SavedGameSummary(
            game_id=stored.game_id,
            mode=info["mode"] or "",
            overlap=info["overlap"] or "",
            opponent=info["opponent"],
            level=info["level"] or "",
            score1=info["scores"][0],
            score2=info["scores"][1],
            round=info["round"],
            updated=info["updated"],
        )

    async def ResumeGame(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._guard(context, self._resume(request.device))

    async def _resume(self, device: str) -> Any:
        stored, game = await self._saved_game(device)
        now = time.time()
        game.resume()
        clock.set_visible(stored.meta, True, now)
        if clock.applies(game, stored.meta) and stored.meta["deadline"] is None:
            clock.restart(game, stored.meta, now)
        return await self._commit(stored, game, stored.meta, {"resume": True}, now)

    async def DiscardSavedGame(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._guard(context, self._discard(request.device))

    async def _discard(self, device: str) -> Any:
        check_device(device)
        try:
            discarded = await self.store.discard(device)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        return engine_pb2.DiscardReply(discarded=discarded)

    async def SetVisibility(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._guard(context, self._visibility(request))

    async def _visibility(self, request: Any) -> Any:
        stored, game = await self._load(request.game_id)
        if stored.meta["device"] != request.device:
            self._remember(stored.game_id, stored.seq, game)
            raise Refusal("not_your_game", "this game belongs to another device")
        now = time.time()
        if not stored.meta["clock"] or game.over:
            # Nothing runs while the game is off screen but the move clock: nothing to store.
            self._remember(stored.game_id, stored.seq, game)
            state = game_state(stored.game_id, stored.seq, game, stored.meta, now)
            return self._snapshot(stored.game_id, stored.seq, game, stored.meta, state)
        clock.set_visible(stored.meta, request.visible, now)
        return await self._commit(stored, game, stored.meta, {"visibility": request.visible}, now)

    async def GetUpdates(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._guard(context, self._updates(request))

    async def _updates(self, request: Any) -> Any:
        stored, game = await self._load(request.game_id)
        self._remember(stored.game_id, stored.seq, game)
        if request.device and stored.meta["device"] != request.device:
            raise Refusal("not_your_game", "this game belongs to another device")
        entries = await self.store.updates_after(request.game_id, request.after_seq)
        complete = request.after_seq <= stored.seq and (
            (entries and entries[0][0] == request.after_seq + 1)
            or (not entries and request.after_seq == stored.seq)
        )
        return engine_pb2.UpdatesReply(
            updates=[
                common_pb2.Update(game_id=request.game_id, seq=seq, frame_json=body) for seq, body in entries
            ],
            complete=bool(complete),
        )
