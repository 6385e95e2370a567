"""The engine's calls for online games (docs/protocol.md, Online play): starting one between
two devices, finding a device's running one, the connections its gateways vouch for, leaving
and the rematch. The rules are the session layer's; these calls load, apply and commit."""

from __future__ import annotations

import contextlib
import time

import grpc
import redis.asyncio as redis

from boxedin.common.devices import check_device, device_hash
from boxedin.common.game_ids import new_game_id
from boxedin.common.metrics import GAMES_CREATED
from boxedin.common.reasons import Refusal
from boxedin.engine.game import Game
from boxedin.engine.session import online, pipeline, watch
from boxedin.engine.session.setup import game_id_for
from boxedin.engine.session.state import game_state, to_json
from boxedin.engine.session.table import Table
from boxedin.v1 import common_pb2, engine_pb2

from .commits import GAME_COPIES, CommittingService
from .convert import mode_of
from .store import Commit, GameStore, StoredGame

CONNECTED_ATTEMPTS = 5


class OnlineCalls(CommittingService):
    def __init__(
        self,
        store: GameStore,
        *,
        move_limit: int,
        grace: int,
        lease: float,
        settle: float = 0.0,
        act_from_copy: bool = True,
        copies: int = GAME_COPIES,
    ) -> None:
        super().__init__(store, act_from_copy=act_from_copy, copies=copies)
        # Online games: the move limit of Find Match games, an away player's grace and how long
        # a gateway's word that a player is connected holds (seconds).
        self.move_limit = move_limit
        self.grace = grace
        self.lease = lease
        self.settle = settle

    async def CreateOnlineGame(
        self,
        request: engine_pb2.OnlineGameRequest,
        context: grpc.aio.ServicerContext[engine_pb2.OnlineGameRequest, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._create_online(request))

    async def _create_online(self, request: engine_pb2.OnlineGameRequest) -> common_pb2.GameSnapshot:
        game_id = game_id_for(request.game_id)
        game, table = online.new_online_game(
            [(seat.device, seat.name) for seat in request.seats],
            mode=request.mode,
            overlap=request.overlap,
            via=request.via,
            move_limit=self.move_limit,
            grace=self.grace,
            lease=self.lease,
            settle=self.settle,
        )
        return await self._start_online(game_id, game, table)

    async def _start_online(self, game_id: str, game: Game, table: Table) -> common_pb2.GameSnapshot:
        """Stores a new online game and makes it each player's running online game."""
        try:
            await self._store_new(game_id, game, table, Commit(online=True))
            await self.store.make_online([seat.device or "" for seat in table.seats], game_id)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        GAMES_CREATED.labels(mode_of(game), table.opponent).inc()
        now = time.time()
        state = game_state(game_id, 0, game, table, now)
        self._states.keep(game_id, 0, state)
        return self._snapshot(game_id, 0, game, table, to_json(state))

    async def _load_online(self, game_id: str, device: str) -> tuple[StoredGame, Game, int]:
        """An online game and the device's seat in it."""
        check_device(device)
        stored, game, seat = await self._load_for(game_id, device, "view")
        online.online_state(stored.table)
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
            if len(request.connection) > 64:
                raise Refusal("malformed", "a connection id is at most 64 characters")
            applied = pipeline.connect(game, stored.table, seat, request.connected, now, request.connection)
            if applied is None:
                if game.over:
                    return self._read(stored, game, seat)
                # Nothing anyone sees, but the table holds the connection now: renewed at the
                # same seq, or judged again if the game moved on meanwhile.
                try:
                    touched = await self.store.touch(stored)
                except redis.RedisError as exc:
                    raise Refusal("unavailable", "the game store cannot be reached") from exc
                if not touched:
                    continue
                return self._read(stored, game, seat)
            try:
                snapshot = await self._commit(stored, game, applied.action, now, None)
            except Refusal as refusal:
                if refusal.reason != "busy" or attempt == CONNECTED_ATTEMPTS - 1:
                    raise
                continue
            snapshot.seat = seat
            return snapshot
        raise Refusal("busy", "the game changed too often to record the connection; try again")

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
            if len(player.connection) > 64:
                continue
            if game.over or not online.keep_connected(stored.table, seat, now, player.connection):
                continue
            try:
                # Not a change anyone sees: the table is renewed at the same seq.
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
        applied = pipeline.leave(game, stored.table, seat)
        if applied is None:
            return self._read(stored, game, seat)  # nothing is left to decline
        snapshot = await self._commit(stored, game, applied.action, now, None, finishes=applied.finishes)
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
        now = time.time()
        applied, rematch = pipeline.ask_rematch(game, stored.table, seat, request.want)
        next_id = None
        if rematch is not None:
            # The next game is stored first and named in this game's update; if another change
            # wins the race for this game, the next game is deleted again.
            next_id = new_game_id()
            await self._start_online(next_id, *rematch)
            pipeline.name_next_game(stored.table, next_id)
        try:
            snapshot = await self._commit(stored, game, applied.action, now, None, finishes=False)
        except Refusal:
            if next_id is not None:
                with contextlib.suppress(redis.RedisError):
                    await self.store.delete_game(next_id)
            raise
        snapshot.seat = seat
        return snapshot

    async def ShareWatch(
        self,
        request: engine_pb2.GetGameRequest,
        context: grpc.aio.ServicerContext[engine_pb2.GetGameRequest, engine_pb2.WatchLink],
    ) -> engine_pb2.WatchLink:
        return await self._guard(context, self._share_watch(request))

    async def _share_watch(self, request: engine_pb2.GetGameRequest) -> engine_pb2.WatchLink:
        await self._load_online(request.game_id, request.device)  # a player of an online game
        try:
            watch_id = await self.store.watch_id(request.game_id, watch.new_watch_id())
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        return engine_pb2.WatchLink(watch_id=watch_id)

    async def GetWatchedGame(
        self,
        request: engine_pb2.WatchLink,
        context: grpc.aio.ServicerContext[engine_pb2.WatchLink, common_pb2.GameSnapshot],
    ) -> common_pb2.GameSnapshot:
        return await self._guard(context, self._watched(request.watch_id))

    async def _watched(self, watch_id: str) -> common_pb2.GameSnapshot:
        watch.check_watch_id(watch_id)
        try:
            game_id = await self.store.watched_game_id(watch_id)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached") from exc
        if game_id is None:
            raise Refusal("no_watch")
        stored, game, _ = await self._load_for(game_id, "", "view", watch_id)
        return self._read(stored, game)
