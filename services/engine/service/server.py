"""The engine service's gRPC handlers: every change is load, authorize, check, apply,
compare-and-set. The engine calls no other service: a computer turn it leaves to play goes to a
work stream with the commit, and its deadlines to a sorted set that its deadline loop reads."""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

import grpc
import redis.asyncio as redis

from boxedin.common.devices import check_device, device_hash
from boxedin.common.metrics import (
    ACTION_LATENCY,
    ACTIONS,
    CAS_CONFLICTS,
    GAMES_CREATED,
    GAMES_FINISHED,
    RULE_ERRORS,
)
from boxedin.common.reasons import Refusal, abort
from boxedin.common.service_auth import calling_service
from boxedin.engine import codec
from boxedin.engine.actions import Action, GameError, Resign, Timeout
from boxedin.engine.game import Game
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

from . import clock, online
from .changes import LastStates, update_changes
from .copies import GameCopies
from .figures import FiguresLoop
from .messages import action_from_proto, action_json, caller_of, counter_by_mode, facts, finished_game, mode_of
from .record import CLOCK, COMPUTER, Caller, GameRecord, Person, View, authorize
from .setup import new_game, new_game_id
from .state import game_state, summary, to_json, update_frame
from .store import Commit, GameStore, StoredGame

CONNECTED_ATTEMPTS = 5
log = logging.getLogger("boxedin.engine")
Actor = common_pb2.Actor
_CACHED_GAMES = 2048
_REPEAT_KEY = re.compile(r"[0-9a-f]{16,64}")
_Request = TypeVar("_Request")
_Reply = TypeVar("_Reply")


@functools.lru_cache(maxsize=64)
def _action_metrics(kind: str, actor: Actor.ValueType) -> tuple[Any, Any]:
    """An action's counter and latency histogram, by the action's kind and who made it (found
    once: prometheus_client's labels() costs a few microseconds a call)."""
    name = kind.lower()
    return ACTIONS.labels(name, Actor.Name(actor).removeprefix("ACTOR_").lower()), ACTION_LATENCY.labels(name)


class EngineService(engine_pb2_grpc.EngineServicer):
    def __init__(
        self,
        store: GameStore,
        *,
        move_limit: int = 120,
        grace: int = 90,
        lease: float = 30.0,
        act_from_copy: bool = True,
    ) -> None:
        self.store = store
        # Online games: the move limit of Find Match games, an away player's grace and how long
        # a gateway's word that a player is connected holds (seconds).
        self.move_limit = move_limit
        self.grace = grace
        self.lease = lease
        self.figures = FiguresLoop(store)
        # Decoded games: consecutive actions on one game skip reading and replaying it.
        # act_from_copy False: every action reads the game first (`boxedin bench actions`
        # measures that path beside today's).
        self.copies = GameCopies(_CACHED_GAMES, act_from_copy=act_from_copy)
        # The last state of each recent game: an update carries the changes from it.
        self._states = LastStates(_CACHED_GAMES)

    # --- plumbing ---------------------------------------------------------------------------

    async def _load(self, game_id: str) -> tuple[StoredGame, Game]:
        try:
            stored = await self.store.load(game_id)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached; the game is unchanged") from exc
        if stored is None:
            raise Refusal("no_game", "there is no such game (it may have finished or been replaced)")
        return stored, self.copies.game_as_read(stored)

    async def _load_for(self, game_id: str, device: str, what: View) -> tuple[StoredGame, Game, int]:
        """Loads a game a device may see, with the device's seat. Only the AI service reads a
        game without a device: one where the computer has a seat (the seat is then 0)."""
        if not device and calling_service() == "ai":
            caller: Caller = COMPUTER
        else:
            caller = Person(device_hash(device))
        stored, game = await self._load(game_id)
        self.copies.keep(stored, game)
        seat = authorize(stored.record, game, caller, what)
        return stored, game, seat if isinstance(caller, Person) else 0

    def _snapshot(
        self,
        game_id: str,
        seq: int,
        game: Game,
        record: GameRecord,
        state_json: str,
        *,
        update: str = "",
        encoded: bytes | None = None,
        game_facts: common_pb2.GameFacts | None = None,
    ) -> common_pb2.GameSnapshot:
        return common_pb2.GameSnapshot(
            update_json=update,
            game_id=game_id,
            seq=seq,
            state_json=state_json,
            opponent=record.opponent,
            level=record.level or "",
            to_move=game.to_move or 0,
            over=game.over,
            ai_speed=record.ai_speed,
            record=encoded if encoded is not None else codec.encode(game),
            facts=game_facts if game_facts is not None else facts(seq, game, record),
        )

    def _read(self, stored: StoredGame, game: Game, seat: int = 0) -> common_pb2.GameSnapshot:
        """A game as it stands, for a call that changes nothing."""
        state = game_state(stored.game_id, stored.seq, game, stored.record, time.time())
        self._states.keep(stored.game_id, stored.seq, state)
        snapshot = self._snapshot(stored.game_id, stored.seq, game, stored.record, to_json(state))
        snapshot.seat = seat
        return snapshot

    def _computer_turn(
        self, game_id: str, seq: int, game: Game, record: GameRecord, caller: Caller | None
    ) -> common_pb2.ComputerTurn | None:
        """The computer turn a change leaves to play: when the computer is to move after it and
        the change was not the computer's own (it plays its turn to the end by itself)."""
        if caller is COMPUTER or not record.computer_to_move(game):
            return None
        return common_pb2.ComputerTurn(game_id=game_id, seq=seq, turn=int(game.position.turn))

    async def _commit(
        self,
        stored: StoredGame,
        game: Game,
        action: dict[str, Any],
        now: float,
        caller: Caller | None,
        *,
        finishes: bool | None = None,
        whole_state: bool = True,
        repeat_key: str = "",
    ) -> common_pb2.GameSnapshot:
        """Stores the changed game if nobody else changed it first, with its update, the
        computer turn it leaves to play and its next deadline. ``finishes``: the change ended
        the game (by default, when the game is over; a change after the end, such as a rematch
        ask, does not finish it again). ``whole_state``: the snapshot carries the whole state
        (an action's caller passes on the update and needs it only when it asks). ``repeat_key``:
        the action's identity, under which the commit keeps the seq it makes."""
        record = stored.record
        if finishes is None:
            finishes = game.over
        record.updated = now
        seq = stored.seq + 1
        before = self._states.at(stored.game_id, stored.seq)
        recomputed = before is None
        if before is None:
            if stored.kept:
                raise Refusal("busy", "this process's copy of the game was forgotten meanwhile; try again")
            before = game_state(stored.game_id, stored.seq, codec.decode(stored.game), record, now)
        state = game_state(stored.game_id, seq, game, record, now)
        state_json = to_json(state) if whole_state else ""
        body = update_frame(seq, action, to_json(update_changes(before, state, recomputed=recomputed)))
        game_facts = facts(seq, game, record)
        encoded = codec.encode(game)
        record_json = record.to_json()
        change = Commit(
            update=common_pb2.Update(game_id=stored.game_id, seq=seq, frame_json=body, facts=game_facts),
            computer_turn=self._computer_turn(stored.game_id, seq, game, record, caller),
            finished_game=finished_game(stored.game_id, encoded, record, now) if finishes else None,
            over=game.over,
            online=record.online is not None,
        )
        try:
            rev = await self.store.commit(
                stored.game_id, mode_of(game), stored.seq, encoded, record, change,
                expected_rev=stored.rev if stored.kept else None, record_json=record_json,
                repeat_key=repeat_key,
            )  # fmt: skip
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached; the game is unchanged") from exc
        if not rev:
            if not stored.kept:
                CAS_CONFLICTS.inc()
            raise Refusal("busy", "another action on this game was applied at the same moment; try again")
        self.copies.keep(StoredGame(stored.game_id, seq, b"", record, rev, record_json), game)
        self._states.keep(stored.game_id, seq, state)
        if finishes:
            GAMES_FINISHED.labels(mode_of(game), record.opponent).inc()
        return self._snapshot(
            stored.game_id, seq, game, record, state_json, update=body, encoded=encoded, game_facts=game_facts
        )

    async def _store_new(self, game_id: str, game: Game, record: GameRecord, change: Commit) -> None:
        """Stores a new game (one that must not exist yet) and keeps this process's copy of it."""
        record_json = record.to_json()
        rev = await self.store.commit(
            game_id, mode_of(game), -1, codec.encode(game), record, change, record_json=record_json
        )
        self.copies.keep(StoredGame(game_id, 0, b"", record, rev, record_json), game)

    async def _guard(self, context: grpc.aio.ServicerContext[_Request, _Reply], work: Awaitable[_Reply]) -> _Reply:
        try:
            return await work
        except Refusal as refusal:
            RULE_ERRORS.labels(refusal.reason).inc()
            await abort(context, refusal)

    # --- the calls --------------------------------------------------------------------------

    async def CreateGame(
        self,
        request: engine_pb2.CreateGameRequest,
        context: grpc.aio.ServicerContext[engine_pb2.CreateGameRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._create(request))

    async def _create(self, request: engine_pb2.CreateGameRequest) -> common_pb2.GameSnapshot:
        setup = request.setup
        device = device_hash(request.device)
        game, record = new_game(
            device,
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
        clock.restart(game, record, now)
        game_id = new_game_id()
        change = Commit(computer_turn=self._computer_turn(game_id, 0, game, record, None))
        try:
            await self._store_new(game_id, game, record, change)
            if record.saved:
                await self.store.make_saved(device, game_id)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        GAMES_CREATED.labels(setup.mode, record.opponent).inc()
        state = game_state(game_id, 0, game, record, now)
        self._states.keep(game_id, 0, state)
        return self._snapshot(game_id, 0, game, record, to_json(state))

    async def GetGame(
        self,
        request: engine_pb2.GetGameRequest,
        context: grpc.aio.ServicerContext[engine_pb2.GetGameRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._get(request.game_id, request.device))

    async def _get(self, game_id: str, device: str) -> common_pb2.GameSnapshot:
        stored, game, seat = await self._load_for(game_id, device, "view")
        return self._read(stored, game, seat)

    async def Act(
        self,
        request: engine_pb2.ActRequest,
        context: grpc.aio.ServicerContext[engine_pb2.ActRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self.act(request))

    async def act(self, request: engine_pb2.ActRequest) -> common_pb2.GameSnapshot:
        """One action, from a call or from the deadline loop."""
        started = time.perf_counter()
        action = action_from_proto(request.action)
        caller = caller_of(request)
        if request.repeat_key and not _REPEAT_KEY.fullmatch(request.repeat_key):
            raise Refusal("malformed", "a repeat key is 16 to 64 lowercase hexadecimal digits")
        # Judging an action again is safe only when it names its seq or has a repeat key: a
        # commit whose reply was lost on the way (redis-py sends it again) is then found out as
        # stale or as the repeat, never applied twice. An action with neither is read first and
        # never tried again, as before copies were kept.
        again_safe = request.expected_seq >= 0 or bool(request.repeat_key)
        kept = self.copies.take(request.game_id, request.expected_seq, self._states) if again_safe else None
        from_copy = kept is not None
        try:
            if kept is None:
                kept = await self._load(request.game_id)
            snapshot = await self._apply_or_keep(request, caller, action, *kept)
        except Refusal as refusal:
            if refusal.reason in ("time_up", "unavailable"):
                raise  # stored, or perhaps stored: never applied a second time
            if not from_copy and (refusal.reason != "busy" or not again_safe):
                raise
            if from_copy and refusal.reason == "busy":
                self.copies.found_behind(request.game_id)
            # Judged on this process's copy, which may be behind, or lost a race with another
            # change: the game as stored decides (an action that names its seq is then refused
            # as stale, or answered as the repeat of one applied meanwhile).
            snapshot = await self._apply_or_keep(request, caller, action, *await self._load(request.game_id))
        if snapshot.repeat_of:
            return snapshot  # nothing was applied
        counted, timed = _action_metrics(type(action).__name__, request.actor)
        counted.inc()
        timed.observe(time.perf_counter() - started)
        return snapshot

    async def _apply_or_keep(
        self, request: engine_pb2.ActRequest, caller: Caller, action: Action, stored: StoredGame, game: Game
    ) -> common_pb2.GameSnapshot:
        try:
            return await self._apply(request, caller, action, stored, game)
        except Refusal as refusal:
            # A refused action leaves the game as loaded, so it can be kept for the next one;
            # after a lost race or a failed write it holds an action that was not stored.
            if refusal.reason not in ("busy", "unavailable", "time_up"):
                self.copies.keep(stored, game)
            raise

    async def _apply(
        self, request: engine_pb2.ActRequest, caller: Caller, action: Action, stored: StoredGame, game: Game
    ) -> common_pb2.GameSnapshot:
        record = stored.record
        if request.repeat_key and (request.expected_seq < 0 or request.expected_seq != stored.seq):
            # Perhaps this very action, sent again: it was applied if its seq was kept. Asked
            # before the action is judged, as the game has moved on since (after a player's
            # last edge it is the computer's turn): only that the caller holds a seat counts.
            repeated = await self._repeated(request, stored, game, authorize(record, game, caller, "view"))
            if repeated is not None:
                return repeated
        seat = authorize(record, game, caller, action)
        if request.expected_seq >= 0 and request.expected_seq != stored.seq:
            raise Refusal("stale", f"the game has moved on (it is at {stored.seq}, not {request.expected_seq})")
        if game.over:
            raise Refusal("game_over", "the game is over: no more actions are possible")
        now = time.time()
        mover = game.to_move or 0
        if isinstance(action, Resign):
            action = Resign(seat)
        time_up = False
        if isinstance(action, Timeout):
            if not (clock.applies(game, record) and clock.expired(record, now)):
                raise Refusal("clock_running", "the move clock still has time left")
        elif caller is not COMPUTER and clock.applies(game, record) and clock.expired(record, now):
            # Too late: the turn ended when the clock ran out, whatever this action was.
            action, time_up = Timeout(), True
        if record.online is not None and isinstance(action, Resign):
            # Resigning an online game is leaving it: it goes to the other player.
            return await self._leave_running(stored, game, seat, now)
        try:
            game.apply(action)
        except GameError as exc:
            raise Refusal(exc.code, exc.message) from None
        clock.restart(game, record, now)
        if record.online_state is not None:
            online.restart_move_limit(game, record, now)
            # A player who acts is connected, whatever their last connection said.
            online.set_connected(record, seat, True, now)
            if game.over:
                online.settle_after_end(record)
        snapshot = await self._commit(
            stored, game, action_json(action, game, mover), now, caller,
            whole_state=request.whole_state, repeat_key=request.repeat_key,
        )  # fmt: skip
        snapshot.seat = seat if isinstance(caller, Person) else 0
        if time_up:
            raise Refusal("time_up", "the move clock ran out before that: the turn has ended")
        return snapshot

    async def _repeated(
        self, request: engine_pb2.ActRequest, stored: StoredGame, game: Game, seat: int
    ) -> common_pb2.GameSnapshot | None:
        """The game as it stands, marked as the answer to a repeat, when the action with this
        repeat key was applied within the last minute."""
        try:
            applied = await self.store.applied_seq(stored.game_id, request.repeat_key)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached; the game is unchanged") from exc
        if applied is None:
            return None
        snapshot = self._read(stored, game, seat)
        snapshot.repeat_of = applied
        return snapshot

    async def GetSavedGame(
        self,
        request: engine_pb2.DeviceRequest,
        context: grpc.aio.ServicerContext[engine_pb2.DeviceRequest, common_pb2.SavedGameSummary],
    ) -> common_pb2.SavedGameSummary:
        return await self._guard(context, self._saved(request.device))

    async def _saved_game(self, device: str) -> tuple[StoredGame, Game]:
        device = device_hash(device)
        try:
            game_id = await self.store.saved_game_id(device)
            if game_id is None:
                raise Refusal("no_game", "this device has no saved game")
            try:
                stored, game = await self._load(game_id)
            except Refusal:
                stored = None
            if stored is None or game.over:
                # A finished game is no longer kept as the device's saved game.
                await self.store.forget_saved(device, game_id)
                raise Refusal("no_game", "this device has no saved game")
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        return stored, game

    async def _saved(self, device: str) -> common_pb2.SavedGameSummary:
        stored, game = await self._saved_game(device)
        self.copies.keep(stored, game)
        info = summary(stored.game_id, game, stored.record)
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

    async def ResumeGame(
        self,
        request: engine_pb2.DeviceRequest,
        context: grpc.aio.ServicerContext[engine_pb2.DeviceRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._resume(request.device))

    async def _resume(self, device: str) -> common_pb2.GameSnapshot:
        stored, game = await self._saved_game(device)
        now = time.time()
        game.resume()
        clock.set_visible(stored.record, True, now)
        if clock.applies(game, stored.record) and stored.record.deadline is None:
            clock.restart(game, stored.record, now)
        return await self._commit(stored, game, {"resume": True}, now, None)

    async def DiscardSavedGame(
        self,
        request: engine_pb2.DeviceRequest,
        context: grpc.aio.ServicerContext[engine_pb2.DeviceRequest, engine_pb2.DiscardReply],
    ) -> engine_pb2.DiscardReply:
        return await self._guard(context, self._discard(request.device))

    async def _discard(self, device: str) -> engine_pb2.DiscardReply:
        check_device(device)
        try:
            discarded = await self.store.discard(device_hash(device))
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        return engine_pb2.DiscardReply(discarded=discarded)

    async def SetVisibility(
        self,
        request: engine_pb2.VisibilityRequest,
        context: grpc.aio.ServicerContext[engine_pb2.VisibilityRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._visibility(request))

    async def _visibility(self, request: engine_pb2.VisibilityRequest) -> common_pb2.GameSnapshot:
        check_device(request.device)
        stored, game, _ = await self._load_for(request.game_id, request.device, "visibility")
        record = stored.record
        now = time.time()
        if not record.clock or game.over:
            # Nothing runs while the game is off screen but the move clock: nothing to store.
            return self._read(stored, game)
        clock.set_visible(record, request.visible, now)
        return await self._commit(stored, game, {"visibility": request.visible}, now, None)

    async def GetUpdates(
        self,
        request: engine_pb2.GetUpdatesRequest,
        context: grpc.aio.ServicerContext[engine_pb2.GetUpdatesRequest, engine_pb2.UpdatesReply],
    ) -> engine_pb2.UpdatesReply:
        return await self._guard(context, self._updates(request))

    async def _updates(self, request: engine_pb2.GetUpdatesRequest) -> engine_pb2.UpdatesReply:
        stored, _, _ = await self._load_for(request.game_id, request.device, "view")
        updates = await self.store.updates_after(request.game_id, request.after_seq)
        complete = request.after_seq <= stored.seq and (
            (updates and updates[0].seq == request.after_seq + 1) or (not updates and request.after_seq == stored.seq)
        )
        return engine_pb2.UpdatesReply(updates=updates, complete=bool(complete))

    async def GetFigures(
        self,
        request: engine_pb2.FiguresRequest,
        context: grpc.aio.ServicerContext[engine_pb2.FiguresRequest, engine_pb2.Figures],
    ) -> engine_pb2.Figures:
        return await self._guard(context, self._figures())

    async def _figures(self) -> engine_pb2.Figures:
        try:
            # The figures loop works them out every few seconds; a call only reads them.
            now = self.figures.games_now if self.figures.games_now is not None else await self.figures.update()
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        return engine_pb2.Figures(
            games_now={mode: count for mode, count in now.items() if count},
            games_started=counter_by_mode(GAMES_CREATED),
            games_finished=counter_by_mode(GAMES_FINISHED),
            online_games_now={mode: count for mode, count in self.figures.online_games_now.items() if count},
        )

    # --- online games ---------------------------------------------------------------------------

    async def CreateOnlineGame(
        self,
        request: engine_pb2.OnlineGameRequest,
        context: grpc.aio.ServicerContext[engine_pb2.OnlineGameRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._create_online(request))

    async def _create_online(self, request: engine_pb2.OnlineGameRequest) -> common_pb2.GameSnapshot:
        game, record = online.new_online_game(
            [(seat.device, seat.name) for seat in request.seats],
            mode=request.mode,
            overlap=request.overlap,
            via=request.via,
            move_limit=self.move_limit,
            grace=self.grace,
            lease=self.lease,
        )
        return await self._start_online(new_game_id(), game, record)

    async def _start_online(self, game_id: str, game: Game, record: GameRecord) -> common_pb2.GameSnapshot:
        """Stores a new online game and makes it each player's running online game."""
        try:
            await self._store_new(game_id, game, record, Commit(online=True))
            await self.store.make_online([seat.device or "" for seat in record.seats], game_id)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        GAMES_CREATED.labels(mode_of(game), record.opponent).inc()
        now = time.time()
        state = game_state(game_id, 0, game, record, now)
        self._states.keep(game_id, 0, state)
        return self._snapshot(game_id, 0, game, record, to_json(state))

    async def _load_online(self, game_id: str, device: str) -> tuple[StoredGame, Game, int]:
        """An online game and the device's seat in it."""
        check_device(device)
        stored, game, seat = await self._load_for(game_id, device, "view")
        online.online_state(stored.record)
        return stored, game, seat

    async def GetOnlineGame(
        self,
        request: engine_pb2.DeviceRequest,
        context: grpc.aio.ServicerContext[engine_pb2.DeviceRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._online_game(request.device))

    async def _online_game(self, device: str) -> common_pb2.GameSnapshot:
        check_device(device)
        hashed = device_hash(device)
        try:
            game_id = await self.store.online_game_id(hashed)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        if game_id is None:
            raise Refusal("no_game", "this device plays no online game")
        try:
            stored, game, seat = await self._load_for(game_id, device, "view")
        except Refusal as refusal:
            if refusal.reason not in ("no_game", "not_your_game"):
                raise
            stored = None
        if stored is None or game.over:
            await self.store.forget_online(hashed, game_id)
            raise Refusal("no_game", "this device plays no online game")
        return self._read(stored, game, seat)

    async def SetConnected(
        self,
        request: engine_pb2.ConnectedRequest,
        context: grpc.aio.ServicerContext[engine_pb2.ConnectedRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._connected(request))

    async def _connected(self, request: engine_pb2.ConnectedRequest) -> common_pb2.GameSnapshot:
        for attempt in range(CONNECTED_ATTEMPTS):
            stored, game, seat = await self._load_online(request.game_id, request.device)
            now = time.time()
            if game.over or not online.set_connected(stored.record, seat, request.connected, now):
                return self._read(stored, game, seat)
            try:
                snapshot = await self._commit(stored, game, {"connected": request.connected, "by": seat}, now, None)
            except Refusal as refusal:
                if refusal.reason != "busy" or attempt == CONNECTED_ATTEMPTS - 1:
                    raise
                continue
            snapshot.seat = seat
            return snapshot
        raise AssertionError("unreachable")

    async def KeepConnected(
        self,
        request: engine_pb2.KeepConnectedRequest,
        context: grpc.aio.ServicerContext[engine_pb2.KeepConnectedRequest, engine_pb2.KeepConnectedReply],
    ) -> engine_pb2.KeepConnectedReply:
        return await self._guard(context, self._keep_connected(request))

    async def _keep_connected(self, request: engine_pb2.KeepConnectedRequest) -> engine_pb2.KeepConnectedReply:
        if len(request.players) > 10_000:
            raise Refusal("malformed", "at most 10,000 players a call")
        kept = 0
        for player in request.players:
            try:
                stored, game, seat = await self._load_online(player.game_id, player.device)
            except Refusal:
                continue  # a game over, gone or not theirs: nothing to keep
            now = time.time()
            if game.over or not online.keep_connected(stored.record, seat, now):
                continue
            try:
                # Not a change anyone sees: the record is renewed at the same seq.
                kept += await self.store.touch(stored)
            except redis.RedisError as exc:
                raise Refusal("unavailable", "the game store cannot be reached") from exc
        return engine_pb2.KeepConnectedReply(kept=kept)

    async def Leave(
        self,
        request: engine_pb2.LeaveRequest,
        context: grpc.aio.ServicerContext[engine_pb2.LeaveRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._leave(request))

    async def _leave(self, request: engine_pb2.LeaveRequest) -> common_pb2.GameSnapshot:
        stored, game, seat = await self._load_online(request.game_id, request.device)
        now = time.time()
        if not game.over:
            return await self._leave_running(stored, game, seat, now)
        state = online.online_state(stored.record)
        if state.declined is not None or state.next_game is not None:
            return self._read(stored, game, seat)  # nothing is left to decline
        action = online.ask_rematch(game, stored.record, seat, want=False)
        snapshot = await self._commit(stored, game, action, now, None, finishes=False)
        snapshot.seat = seat
        return snapshot

    async def _leave_running(self, stored: StoredGame, game: Game, seat: int, now: float) -> common_pb2.GameSnapshot:
        """A player leaves a running online game: it goes to the other player."""
        action = online.forfeit(game, stored.record, seat, "left")
        snapshot = await self._commit(stored, game, action, now, None)
        snapshot.seat = seat
        return snapshot

    async def Rematch(
        self,
        request: engine_pb2.RematchRequest,
        context: grpc.aio.ServicerContext[engine_pb2.RematchRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._rematch(request))

    async def _rematch(self, request: engine_pb2.RematchRequest) -> common_pb2.GameSnapshot:
        stored, game, seat = await self._load_online(request.game_id, request.device)
        record = stored.record
        now = time.time()
        action = online.ask_rematch(game, record, seat, request.want)
        next_id = None
        if online.both_asked(record):
            # The next game is stored first and named in this game's update; if another change
            # wins the race for this game, the next game is deleted again.
            next_game, next_record = online.rematch_game(game, record)
            next_id = new_game_id()
            await self._start_online(next_id, next_game, next_record)
            assert record.online_state is not None
            record.online_state.next_game = next_id
        try:
            snapshot = await self._commit(stored, game, action, now, None, finishes=False)
        except Refusal:
            if next_id is not None:
                with contextlib.suppress(redis.RedisError):
                    await self.store.delete_game(next_id)
            raise
        snapshot.seat = seat
        return snapshot

    # --- deadlines ---------------------------------------------------------------------------

    async def fire_deadline(self, game_id: str) -> bool:
        """Applies what is due in a game whose deadline was claimed; True when it acted. When
        nothing is due (the clock was stopped or restarted meanwhile), the deadline set is put
        right for the game as it stands."""
        try:
            stored, game = await self._load(game_id)
        except Refusal:
            return False
        self.copies.keep(stored, game)
        lapsed = online.lapsed_lease(game, stored.record, time.time())
        if lapsed is not None:
            # Nobody vouches for the player's connection any more: they are away from now on.
            online.set_connected(stored.record, lapsed, False, time.time())
            try:
                await self._commit(stored, game, {"connected": False, "by": lapsed}, time.time(), CLOCK)
                return True
            except Refusal as refusal:
                log.info("lapsed connection not applied", extra={"game": game_id, "reason": refusal.reason})
                return False
        due = online.due_forfeit(game, stored.record, time.time())
        if due is not None:
            player, reason = due
            try:
                await self._commit(
                    stored, game, online.forfeit(game, stored.record, player, reason), time.time(), CLOCK
                )
                return True
            except Refusal as refusal:
                self.copies.forget(game_id)  # it holds the forfeit that was not stored
                RULE_ERRORS.labels(refusal.reason).inc()
                log.info("deadline not applied", extra={"game": game_id, "reason": refusal.reason})
                return False
        if clock.applies(game, stored.record) and clock.expired(stored.record, time.time()):
            request = engine_pb2.ActRequest(
                game_id=game_id,
                actor=Actor.ACTOR_CLOCK,
                action=common_pb2.Action(timeout=True),
                expected_seq=stored.seq,
            )
            try:
                await self.act(request)
                return True
            except Refusal as refusal:
                RULE_ERRORS.labels(refusal.reason).inc()
                log.info("deadline not applied", extra={"game": game_id, "reason": refusal.reason})
                return False
        await self.store.sync_deadline(stored)
        return False
