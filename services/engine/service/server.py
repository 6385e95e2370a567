"""The engine service's gRPC handlers for a device's own games and for actions: every change
is load, apply (the session pipeline), compare-and-set. The engine calls no other service: a
computer turn it leaves to play goes to a work stream with the commit, and its deadlines to a
sorted set that its deadline loop reads. Online games' calls are in online_calls.py."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import time
import typing
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import redis.asyncio as redis

from boxedin.common import act_line
from boxedin.common.devices import check_device, device_hash
from boxedin.common.grpc_server import observe_call
from boxedin.common.metrics import ACTION_LATENCY, ACTIONS, GAMES_CREATED, GAMES_FINISHED, RULE_ERRORS, at_zero
from boxedin.common.reasons import REASONS, Refusal
from boxedin.engine.actions import Action, Timeout
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES
from boxedin.engine.session import clock, pipeline
from boxedin.engine.session.seats import DEADLINE, Caller, Computer, Deadline, Person, authorize
from boxedin.engine.session.setup import game_id_for, new_game
from boxedin.engine.session.state import game_state, to_json
from boxedin.v1 import common_pb2, engine_pb2

from .commits import GAME_COPIES
from .convert import action_from_proto, caller_of, counter_by_mode, saved_summary
from .figures import FiguresLoop
from .online_calls import OnlineCalls
from .store import Commit, GameStore, StoredGame

log = logging.getLogger("boxedin.engine")
# The games each mode can be played as (a practice board against its practice opponent alone),
# exported at 0: the dashboards show a mode nobody played yet as 0, not "No data".
_PLAYED_AS = [
    *((mode.id, opponent) for mode in MODES.values()
      for opponent in (("practice",) if mode.practice else ("ai", "local", "online"))),
    ("custom", "ai"), ("custom", "local"),
]  # fmt: skip
at_zero(GAMES_CREATED, *_PLAYED_AS)
at_zero(GAMES_FINISHED, *_PLAYED_AS)
at_zero(RULE_ERRORS, *((reason,) for reason in REASONS))
_REPEAT_KEY = re.compile(r"[0-9a-f]{16,64}")
# Who made an action, as its metrics name them (the deadline's is the clock, as it always was).
_ACTORS: dict[type, str] = {Person: "human", Computer: "ai", Deadline: "clock"}
at_zero(ACTIONS, *((kind.__name__.lower(), actor) for kind in typing.get_args(Action) for actor in _ACTORS.values()))


@functools.lru_cache(maxsize=64)
def _action_metrics(kind: str, actor: str) -> tuple[Any, Any]:
    """An action's counter and latency histogram, by the action's kind and who made it (found
    once: prometheus_client's labels() costs a few microseconds a call)."""
    name = kind.lower()
    return ACTIONS.labels(name, actor), ACTION_LATENCY.labels(name)


@dataclass(frozen=True, slots=True)
class _Asked:
    """An action as asked for: by whom, at which seq (negative: any), under which repeat key,
    and whether the reply carries the whole state and the serialised game."""

    game_id: str
    caller: Caller
    action: Action
    expected_seq: int
    repeat_key: str = ""
    whole_state: bool = False
    with_record: bool = False


class EngineService(OnlineCalls):
    """The engine service: every gRPC call of engine.proto, and the deadlines its loop claims."""

    def __init__(
        self,
        store: GameStore,
        *,
        move_limit: int = 120,
        grace: int = 90,
        lease: float = 30.0,
        settle: float = 0.0,
        act_from_copy: bool = True,
        copies: int = GAME_COPIES,
    ) -> None:
        super().__init__(
            store,
            move_limit=move_limit,
            grace=grace,
            lease=lease,
            settle=settle,
            act_from_copy=act_from_copy,
            copies=copies,
        )
        self.figures = FiguresLoop(store)
        # The port act_port.ActPort listens on, told to callers by GetActPort (0: none).
        self.act_port = 0

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
        game_id = game_id_for(request.game_id)
        game, table = new_game(
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
        clock.restart(game, table, now)
        change = Commit(computer_turn=self._computer_turn(game_id, 0, game, table, None))
        try:
            await self._store_new(game_id, game, table, change)
            if table.saved:
                await self.store.make_saved(device, game_id)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        GAMES_CREATED.labels(setup.mode, table.opponent).inc()
        state = game_state(game_id, 0, game, table, now)
        self._states.keep(game_id, 0, state)
        return self._snapshot(game_id, 0, game, table, to_json(state))

    async def GetGame(
        self,
        request: engine_pb2.GetGameRequest,
        context: grpc.aio.ServicerContext[engine_pb2.GetGameRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._get(request.game_id, request.device, request.watch_id))

    async def _get(self, game_id: str, device: str, watch_id: str = "") -> common_pb2.GameSnapshot:
        stored, game, seat = await self._load_for(game_id, device, "view", watch_id)
        return self._read(stored, game, seat)

    async def Act(
        self,
        request: engine_pb2.ActRequest,
        context: grpc.aio.ServicerContext[engine_pb2.ActRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self.act(request))

    # grpc.aio runs a coroutine handler with the reader-writer API (context.write); the generated
    # stubs know only the iterator form.
    async def ActBatches(  # type: ignore[override]
        self,
        batches: AsyncIterator[engine_pb2.ActCalls],
        context: grpc.aio.ServicerContext[engine_pb2.ActCalls, engine_pb2.ActAnswers],
    ) -> None:
        """Actions over one stream (engine.proto, ActBatches): each call is applied by a task of
        its own, as Act applies it, and answered by its number once done, with the other
        answers ready by then in one message. The stream ends when the caller half-closes it
        and every call read is answered."""
        loop = asyncio.get_running_loop()
        answers: asyncio.Queue[engine_pb2.ActAnswer | None] = asyncio.Queue()
        working: set[asyncio.Task[None]] = set()

        async def read() -> None:
            try:
                async for batch in batches:
                    for call in batch.calls:
                        task = loop.create_task(self._answer_into(call, answers))
                        working.add(task)
                        task.add_done_callback(working.discard)
                if working:
                    await asyncio.wait(set(working))
            finally:
                answers.put_nowait(None)

        reader = loop.create_task(read())
        try:
            while True:
                answer = await answers.get()
                ready: list[engine_pb2.ActAnswer] = []
                while answer is not None:
                    ready.append(answer)
                    if answers.empty() or len(ready) == act_line.CALLS_A_MESSAGE:
                        break
                    answer = answers.get_nowait()
                if ready:
                    await context.write(engine_pb2.ActAnswers(answers=ready))
                if answer is None:  # the last: every call read was answered before it
                    break
        finally:
            # The caller is gone (or the server stops): no more calls are read; those under way
            # finish, as a unary call's would whose caller left after it was sent.
            reader.cancel()

    async def GetActPort(
        self,
        request: engine_pb2.ActPortRequest,
        context: grpc.aio.ServicerContext[engine_pb2.ActPortRequest, engine_pb2.ActPort],
    ) -> engine_pb2.ActPort:
        return engine_pb2.ActPort(port=self.act_port)

    async def _answer_into(self, call: engine_pb2.ActCall, answers: asyncio.Queue[engine_pb2.ActAnswer | None]) -> None:
        answers.put_nowait(await self.answer(call))

    async def answer(self, call: engine_pb2.ActCall) -> engine_pb2.ActAnswer:
        """One call of a stream or of the action port: applied as by Act, counted as Act (method
        and status code), answered by its number."""
        started = time.perf_counter()
        code = "OK"
        try:
            answer = engine_pb2.ActAnswer(number=call.number, snapshot=await self.act(call.request))
        except Refusal as refusal:
            RULE_ERRORS.labels(refusal.reason).inc()
            code = refusal.status.name
            answer = engine_pb2.ActAnswer(number=call.number, reason=refusal.reason, message=refusal.message)
        except Exception:
            log.exception("an action of a stream failed", extra={"game": call.request.game_id})
            code = "UNKNOWN"
            answer = engine_pb2.ActAnswer(number=call.number, reason="internal", message=REASONS["internal"].message)
        observe_call("Act", code, time.perf_counter() - started)
        return answer

    async def act(self, request: engine_pb2.ActRequest) -> common_pb2.GameSnapshot:
        """One action, from a call."""
        started = time.perf_counter()
        action = action_from_proto(request.action)
        caller = caller_of(request)
        if request.repeat_key and not _REPEAT_KEY.fullmatch(request.repeat_key):
            raise Refusal("malformed", "a repeat key is 16 to 64 lowercase hexadecimal digits")
        asked = _Asked(
            request.game_id, caller, action, request.expected_seq, request.repeat_key,
            request.whole_state, request.with_record,
        )  # fmt: skip
        return await self._act(asked, started)

    async def _act(self, asked: _Asked, started: float) -> common_pb2.GameSnapshot:
        """One action, from a call or from the deadline loop."""
        # Judging an action again is safe only when it names its seq or has a repeat key: a
        # commit whose reply was lost on the way (redis-py sends it again) is then found out as
        # stale or as the repeat, never applied twice. An action with neither is read first and
        # never tried again, as before copies were kept.
        again_safe = asked.expected_seq >= 0 or bool(asked.repeat_key)
        kept = self.copies.take(asked.game_id, asked.expected_seq, self._states) if again_safe else None
        from_copy = kept is not None
        try:
            if kept is None:
                kept = await self._load(asked.game_id)
            snapshot = await self._apply_or_keep(asked, *kept)
        except Refusal as refusal:
            if refusal.reason in ("time_up", "unavailable"):
                raise  # stored, or perhaps stored: never applied a second time
            if not from_copy and (refusal.reason != "busy" or not again_safe):
                raise
            if from_copy and refusal.reason == "busy":
                self.copies.found_behind(asked.game_id)
            # Judged on this process's copy, which may be behind, or lost a race with another
            # change: the game as stored decides (an action that names its seq is then refused
            # as stale, or answered as the repeat of one applied meanwhile).
            snapshot = await self._apply_or_keep(asked, *await self._load(asked.game_id))
        if snapshot.repeat_of:
            return snapshot  # nothing was applied
        counted, timed = _action_metrics(type(asked.action).__name__, _ACTORS[type(asked.caller)])
        counted.inc()
        timed.observe(time.perf_counter() - started)
        return snapshot

    async def _apply_or_keep(self, asked: _Asked, stored: StoredGame, game: Game) -> common_pb2.GameSnapshot:
        try:
            return await self._apply(asked, stored, game)
        except Refusal as refusal:
            # A refused action leaves the game as loaded, so it can be kept for the next one;
            # after a lost race or a failed write it holds an action that was not stored.
            if refusal.reason not in ("busy", "unavailable", "time_up"):
                self.copies.keep(stored, game)
            raise

    async def _apply(self, asked: _Asked, stored: StoredGame, game: Game) -> common_pb2.GameSnapshot:
        table = stored.table
        if asked.repeat_key and (asked.expected_seq < 0 or asked.expected_seq != stored.seq):
            # Perhaps this very action, sent again: it was applied if its seq was kept. Asked
            # before the action is judged, as the game has moved on since (after a player's
            # last edge it is the computer's turn): only that the caller holds a seat counts.
            seat = authorize(table, game, asked.caller, "view")
            repeated = await self._repeated(asked.repeat_key, stored, game, seat)
            if repeated is not None:
                return repeated
        now = time.time()
        applied = pipeline.apply(
            game, table, asked.caller, asked.action, expected_seq=asked.expected_seq, seq=stored.seq, now=now
        )
        if applied.left:
            # Resigning an online game is leaving it: stored as a Leave call stores it.
            snapshot = await self._commit(stored, game, applied.action, now, None, with_record=asked.with_record)
            snapshot.seat = applied.seat
            return snapshot
        snapshot = await self._commit(
            stored, game, applied.action, now, asked.caller,
            whole_state=asked.whole_state, with_record=asked.with_record, repeat_key=asked.repeat_key,
        )  # fmt: skip
        snapshot.seat = applied.seat if isinstance(asked.caller, Person) else 0
        if applied.time_up:
            raise Refusal("time_up", "the move clock ran out before that: the turn has ended")
        return snapshot

    async def _repeated(
        self, repeat_key: str, stored: StoredGame, game: Game, seat: int
    ) -> common_pb2.GameSnapshot | None:
        """The game as it stands, marked as the answer to a repeat, when the action with this
        repeat key was applied within the last minute."""
        try:
            applied = await self.store.applied_seq(stored.game_id, repeat_key)
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
        return saved_summary(stored.game_id, game, stored.table)

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
        clock.set_visible(stored.table, True, now)
        if clock.applies(game, stored.table) and stored.table.deadline is None:
            clock.restart(game, stored.table, now)
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
        table = stored.table
        now = time.time()
        if not table.clock or game.over:
            # Nothing runs while the game is off screen but the move clock: nothing to store.
            return self._read(stored, game)
        clock.set_visible(table, request.visible, now)
        return await self._commit(stored, game, {"visibility": request.visible}, now, None)

    async def GetUpdates(
        self,
        request: engine_pb2.GetUpdatesRequest,
        context: grpc.aio.ServicerContext[engine_pb2.GetUpdatesRequest, engine_pb2.UpdatesReply],
    ) -> engine_pb2.UpdatesReply:
        return await self._guard(context, self._updates(request))

    async def _updates(self, request: engine_pb2.GetUpdatesRequest) -> engine_pb2.UpdatesReply:
        stored, _, _ = await self._load_for(request.game_id, request.device, "view", request.watch_id)
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
            # Worked out for each call (a few Redis commands), not the loop's of up to 5 s ago: a
            # game that ended leaves "Games now" at once (issue 30).
            now, online = await self.figures.games()
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        return engine_pb2.Figures(
            games_now={mode: count for mode, count in now.items() if count},
            games_started=counter_by_mode(GAMES_CREATED),
            games_finished=counter_by_mode(GAMES_FINISHED),
            online_games_now={mode: count for mode, count in online.items() if count},
        )

    # --- deadlines ---------------------------------------------------------------------------

    async def fire_deadline(self, game_id: str) -> bool:
        """Applies what is due in a game whose deadline was claimed, as the deadline (the
        session's ``DEADLINE`` caller); True when it acted. When nothing is due (the clock was
        stopped or restarted meanwhile), the deadline set is put right for the game as it stands."""
        try:
            stored, game = await self._load(game_id)
        except Refusal:
            return False
        self.copies.keep(stored, game)
        now = time.time()
        due = pipeline.due(game, stored.table, now)
        if due is None:
            await self.store.sync_deadline(stored)
            return False
        try:
            if due.kind == "clock":
                # The turn ends as an action does: from this process's copy, judged again on
                # the stored game when the copy was behind.
                await self._act(_Asked(game_id, DEADLINE, Timeout(), stored.seq), time.perf_counter())
                return True
            applied = pipeline.fire(game, stored.table, due, seq=stored.seq, now=now)
            await self._commit(stored, game, applied.action, time.time(), DEADLINE)
            return True
        except Refusal as refusal:
            if due.kind == "lease":
                log.info("lapsed connection not applied", extra={"game": game_id, "reason": refusal.reason})
                return False
            if due.kind == "forfeit":
                self.copies.forget(game_id)  # it holds the forfeit that was not stored
            RULE_ERRORS.labels(refusal.reason).inc()
            log.info("deadline not applied", extra={"game": game_id, "reason": refusal.reason})
            return False
