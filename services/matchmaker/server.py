"""The matchmaker's gRPC handlers: Find Match and rooms, whose state is in Redis (any replica can
take any call), and Presence. A game starts through the engine (the one call the matchmaker
makes), and the two players' gateways hear of it on the matchmaker's channel."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable
from typing import TypeVar

import grpc
import redis.asyncio as redis

from boxedin.common import presence
from boxedin.common.devices import check_device, device_hash
from boxedin.common.keys import Keys
from boxedin.common.metrics import ONLINE_GAMES_STARTED, RULE_ERRORS, at_zero
from boxedin.common.names import check_name
from boxedin.common.reasons import Refusal, abort, refusal_of
from boxedin.engine.rules import MODES, Overlap, RulesError, mode_by_id
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc, matchmaker_pb2, matchmaker_pb2_grpc

from .codes import check_code
from .popularity import Popularity
from .queue import MatchQueue, Waiting
from .rooms import OpenRoom, Rooms

log = logging.getLogger("boxedin.matchmaker")
_Request = TypeVar("_Request")
_Reply = TypeVar("_Reply")
# The modes played online: every mode but the practice boards.
ONLINE_MODES = tuple(mode_id for mode_id, mode in MODES.items() if not mode.practice)
# Presence is worked out at most this often, however many gateways ask.
PRESENCE_CACHE_SECONDS = 1.0
at_zero(ONLINE_GAMES_STARTED, *((mode, via) for mode in ONLINE_MODES for via in ("find_match", "room")))


def check_online_mode(mode: str, overlap: str = "") -> tuple[str, str]:
    """The mode and overlap rule of an online game, or ``bad_setup``."""
    try:
        chosen = mode_by_id(mode)
        if overlap:
            chosen.rules_with(Overlap.from_id(overlap))
    except RulesError as exc:
        raise Refusal("bad_setup", str(exc)) from None
    if chosen.practice:
        raise Refusal("bad_setup", f"{chosen.name} is not played online")
    return chosen.id, overlap


def room_proto(room: OpenRoom) -> matchmaker_pb2.Room:
    return matchmaker_pb2.Room(code=room.code, mode=room.mode, overlap=room.overlap, expires=room.expires)


async def _guarded(context: grpc.aio.ServicerContext[_Request, _Reply], work: Awaitable[_Reply]) -> _Reply:
    try:
        return await work
    except Refusal as refusal:
        RULE_ERRORS.labels(refusal.reason).inc()
        await abort(context, refusal)
    except grpc.RpcError as error:
        # The engine refused or is down: its reason goes on to the caller.
        passed_on = refusal_of(error)
        RULE_ERRORS.labels(passed_on.reason).inc()
        await abort(context, passed_on)
    except redis.RedisError as exc:
        log.warning("redis failed", extra={"error": str(exc)})
        await abort(context, Refusal("unavailable", "matchmaking cannot be reached now; try again"))


class MatchmakerService(matchmaker_pb2_grpc.MatchmakerServicer):
    def __init__(
        self,
        client: redis.Redis,
        keys: Keys,
        engine: engine_pb2_grpc.EngineAsyncStub,
        rooms: Rooms | None = None,
        queue: MatchQueue | None = None,
    ) -> None:
        self.redis = client
        self.keys = keys
        self.engine = engine
        self.queue = queue or MatchQueue(client, keys)
        self.rooms = rooms or Rooms(client, keys)
        self.popularity = Popularity(client, keys)

    # --- starting a game -----------------------------------------------------------------------

    async def _start(
        self, seats: list[tuple[str, str]], mode: str, overlap: str, via: str
    ) -> matchmaker_pb2.MatchStarted:
        """Starts the game through the engine and tells both players' gateways."""
        request = engine_pb2.OnlineGameRequest(
            seats=[common_pb2.SeatInfo(kind="human", device=device, name=name) for device, name in seats],
            mode=mode,
            overlap=overlap,
            via=via,
        )
        snapshot = await self.engine.CreateOnlineGame(request, timeout=5)
        started = matchmaker_pb2.MatchStarted(game_id=snapshot.game_id, devices=[d for d, _ in seats], via=via)
        await self.redis.publish(self.keys.matches_channel(), started.SerializeToString())
        await self.popularity.count_game(mode)
        ONLINE_GAMES_STARTED.labels(mode, via).inc()
        return started

    async def _not_in_game(self, device_token: str) -> None:
        """Refuses a device that plays a running online game (it goes back to it instead)."""
        try:
            await self.engine.GetOnlineGame(engine_pb2.DeviceRequest(device=device_token), timeout=5)
        except grpc.RpcError as error:
            if refusal_of(error).reason == "no_game":
                return
            raise
        raise Refusal("in_game", "you are playing an online game: finish or leave it first")

    # --- Find Match ----------------------------------------------------------------------------

    async def FindMatch(
        self,
        request: matchmaker_pb2.FindMatchRequest,
        context: grpc.aio.ServicerContext[matchmaker_pb2.FindMatchRequest, matchmaker_pb2.FindMatchReply],
    ) -> matchmaker_pb2.FindMatchReply:
        return await _guarded(context, self._find(request))

    async def _find(self, request: matchmaker_pb2.FindMatchRequest) -> matchmaker_pb2.FindMatchReply:
        device = device_hash(check_device(request.device))
        name = check_name(request.name)
        mode, _ = check_online_mode(request.mode)
        await self._not_in_game(request.device)
        await self.rooms.close(device)  # one thing at a time: looking for a game ends the room
        waiting = await self.queue.find(device, name, mode)
        if waiting is None:
            return matchmaker_pb2.FindMatchReply(waiting=True)
        try:
            # The player who waited sits first; who moves first is drawn by the engine.
            started = await self._start([(waiting.device, waiting.name), (device, name)], mode, "", "find_match")
        except (grpc.RpcError, Refusal):
            await self._put_back(mode, waiting)
            raise
        return matchmaker_pb2.FindMatchReply(match=started)

    async def _put_back(self, mode: str, waiting: Waiting) -> None:
        if not await self.queue.put_back(mode, waiting):
            log.warning("a paired player could not be put back", extra={"mode": mode})

    async def KeepWaiting(
        self,
        request: matchmaker_pb2.KeepWaitingRequest,
        context: grpc.aio.ServicerContext[matchmaker_pb2.KeepWaitingRequest, matchmaker_pb2.KeepWaitingReply],
    ) -> matchmaker_pb2.KeepWaitingReply:
        return await _guarded(context, self._keep(request))

    async def _keep(self, request: matchmaker_pb2.KeepWaitingRequest) -> matchmaker_pb2.KeepWaitingReply:
        if len(request.devices) > 10_000:
            raise Refusal("malformed", "at most 10,000 devices a call")
        devices = [device_hash(check_device(token)) for token in request.devices]
        return matchmaker_pb2.KeepWaitingReply(kept=await self.queue.keep(devices))

    async def CancelFind(
        self,
        request: matchmaker_pb2.DeviceOnly,
        context: grpc.aio.ServicerContext[matchmaker_pb2.DeviceOnly, matchmaker_pb2.CancelReply],
    ) -> matchmaker_pb2.CancelReply:
        return await _guarded(context, self._cancel(request))

    async def _cancel(self, request: matchmaker_pb2.DeviceOnly) -> matchmaker_pb2.CancelReply:
        device = device_hash(check_device(request.device))
        return matchmaker_pb2.CancelReply(cancelled=await self.queue.cancel(device))

    # --- rooms ---------------------------------------------------------------------------------

    async def CreateRoom(
        self,
        request: matchmaker_pb2.CreateRoomRequest,
        context: grpc.aio.ServicerContext[matchmaker_pb2.CreateRoomRequest, matchmaker_pb2.Room],
    ) -> matchmaker_pb2.Room:
        return await _guarded(context, self._create_room(request))

    async def _create_room(self, request: matchmaker_pb2.CreateRoomRequest) -> matchmaker_pb2.Room:
        device = device_hash(check_device(request.device))
        name = check_name(request.name)
        mode, overlap = check_online_mode(request.mode, request.overlap)
        await self._not_in_game(request.device)
        await self.queue.cancel(device)  # one thing at a time: a room ends the search
        return room_proto(await self.rooms.create(device, name, mode, overlap))

    async def CloseRoom(
        self,
        request: matchmaker_pb2.DeviceOnly,
        context: grpc.aio.ServicerContext[matchmaker_pb2.DeviceOnly, matchmaker_pb2.Room],
    ) -> matchmaker_pb2.Room:
        return await _guarded(context, self._close_room(request))

    async def _close_room(self, request: matchmaker_pb2.DeviceOnly) -> matchmaker_pb2.Room:
        device = device_hash(check_device(request.device))
        code = await self.rooms.close(device)
        return matchmaker_pb2.Room(code=code or "")

    async def JoinRoom(
        self,
        request: matchmaker_pb2.JoinRoomRequest,
        context: grpc.aio.ServicerContext[matchmaker_pb2.JoinRoomRequest, matchmaker_pb2.MatchStarted],
    ) -> matchmaker_pb2.MatchStarted:
        return await _guarded(context, self._join_room(request))

    async def _join_room(self, request: matchmaker_pb2.JoinRoomRequest) -> matchmaker_pb2.MatchStarted:
        device = device_hash(check_device(request.device))
        name = check_name(request.name)
        code = check_code(request.code)
        if len(request.address) > 256:
            raise Refusal("malformed", "a client address is at most 256 characters")
        await self._not_in_game(request.device)
        room = await self.rooms.join(code, device, request.address or "unknown")
        try:
            started = await self._start([(room.device, room.name), (device, name)], room.mode, room.overlap, "room")
        except (grpc.RpcError, Refusal):
            await self.rooms.reopen(code, device)
            raise
        await self.queue.cancel(device)
        return started

    # --- what a device has going on ------------------------------------------------------------

    async def GetOnlineStatus(
        self,
        request: matchmaker_pb2.DeviceOnly,
        context: grpc.aio.ServicerContext[matchmaker_pb2.DeviceOnly, matchmaker_pb2.OnlineStatus],
    ) -> matchmaker_pb2.OnlineStatus:
        return await _guarded(context, self._status(request))

    async def _status(self, request: matchmaker_pb2.DeviceOnly) -> matchmaker_pb2.OnlineStatus:
        device = device_hash(check_device(request.device))
        status = matchmaker_pb2.OnlineStatus(waiting=await self.queue.waiting_in(device) or "")
        room = await self.rooms.open_room(device)
        if room is not None:
            status.room.CopyFrom(room_proto(room))
        try:
            snapshot = await self.engine.GetOnlineGame(engine_pb2.DeviceRequest(device=request.device), timeout=5)
            status.game_id, status.seat = snapshot.game_id, snapshot.seat
        except grpc.RpcError as error:
            if refusal_of(error).reason != "no_game":
                raise
        return status


class PresenceService(matchmaker_pb2_grpc.PresenceServicer):
    """Numbers only: players online (the gateways' reports), and per mode whether somebody
    waits, the online games now (the engine's figures) and whether it is popular."""

    def __init__(
        self, client: redis.Redis, keys: Keys, engine: engine_pb2_grpc.EngineAsyncStub, queue: MatchQueue | None = None
    ) -> None:
        self.redis = client
        self.keys = keys
        self.engine = engine
        self.queue = queue or MatchQueue(client, keys)
        self.popularity = Popularity(client, keys)
        self._cached: tuple[float, matchmaker_pb2.PresenceReply] | None = None

    async def GetPresence(
        self,
        request: matchmaker_pb2.PresenceRequest,
        context: grpc.aio.ServicerContext[matchmaker_pb2.PresenceRequest, matchmaker_pb2.PresenceReply],
    ) -> matchmaker_pb2.PresenceReply:
        return await _guarded(context, self.presence())

    async def presence(self) -> matchmaker_pb2.PresenceReply:
        now = time.monotonic()
        if self._cached is not None and now - self._cached[0] < PRESENCE_CACHE_SECONDS:
            return self._cached[1]
        figures = await self.engine.GetFigures(engine_pb2.FiguresRequest(), timeout=5)
        waiting = await self.queue.modes_waiting()
        popular = await self.popularity.popular()
        reply = matchmaker_pb2.PresenceReply(players_online=await presence.players_online(self.redis, self.keys))
        for mode in ONLINE_MODES:
            reply.modes[mode].CopyFrom(
                matchmaker_pb2.ModePresence(
                    waiting=mode in waiting,
                    games_now=figures.online_games_now.get(mode, 0),
                    popular=mode in popular,
                )
            )
        self._cached = (now, reply)
        return reply
