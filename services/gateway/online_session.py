"""A connection's online play (docs/protocol.md, Online play): the online menu and its presence
figures, Find Match, rooms, leaving and rematches. The matchmaker pairs and starts games, the
engine keeps them; a connection only passes frames on and follows the game it is in."""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from fastapi import WebSocket

from boxedin.common.devices import device_hash
from boxedin.common.metrics import PAIRING_TIME
from boxedin.common.reasons import Refusal
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc, matchmaker_pb2, matchmaker_pb2_grpc

from . import client_frames, server_frames
from .feed import GameFeed
from .hub import UpdateHub
from .online import PresenceFeed, WaitingKeeper

log = logging.getLogger("boxedin.gateway.online")


def _room(room: matchmaker_pb2.Room, now: float) -> server_frames.OpenRoom:
    return server_frames.OpenRoom(
        code=room.code, mode=room.mode, overlap=room.overlap or None, expires_in=max(0.0, room.expires - now)
    )


class OnlinePlay:
    """The online frames of a connection; mixed into ``Session``, which provides what is
    declared here."""

    ws: WebSocket
    engine: engine_pb2_grpc.EngineAsyncStub
    matchmaker: matchmaker_pb2_grpc.MatchmakerAsyncStub
    hub: UpdateHub
    presence_feed: PresenceFeed
    keeper: WaitingKeeper
    feed: GameFeed
    device: str | None
    send: Callable[[server_frames.ServerFrameModel | str], Awaitable[None]]
    _follow: Callable[..., Awaitable[None]]

    # Set once the device said hello: the hash its games and matches are known by.
    _device_hash: str | None = None
    _waiting = False
    # While a find_match or join_room is being asked, a game it starts is announced on the
    # channel as well as in the reply: the announcement is kept (not followed twice) and followed
    # after the reply only if the reply did not start it, as when this device was the one
    # waiting and somebody took its place before the reply came back.
    _asking = False
    _announced: matchmaker_pb2.MatchStarted | None = None
    _waiting_since = 0.0  # when the device asked Find Match (time.monotonic)
    _on_menu = False
    # This connection among the device's connections to its online game (the engine counts them:
    # the player is away only when none follows the game, whichever gateway holds them).
    _connection_id = ""

    @property
    def hello_device(self) -> str:
        raise NotImplementedError

    # --- the connection ------------------------------------------------------------------------

    def online_hello(self, device: str) -> None:
        if self._device_hash is None:
            self._device_hash = device_hash(device)
            self.hub.on_match(self._device_hash, self._match_started)
            self.feed.on_next_game = self._next_game

    async def online_goodbye(self) -> None:
        """The connection ended: its place in Find Match goes, and the online game it was in
        learns that its player is away (the grace starts)."""
        self.presence_feed.unwatch(self._send_presence)
        if self._device_hash is not None:
            self.hub.off_match(self._device_hash, self._match_started)
        if self._waiting and self.device is not None:
            self._stop_waiting()
            with contextlib.suppress(grpc.RpcError):
                await self.matchmaker.CancelFind(matchmaker_pb2.DeviceOnly(device=self.device), timeout=5)

    @property
    def connection_id(self) -> str:
        if not self._connection_id:
            self._connection_id = secrets.token_urlsafe(12)
        return self._connection_id

    async def away(self, game_id: str) -> None:
        """This connection no longer follows the online game (the player is away once none does)."""
        self.keeper.forget_connected(self)
        request = engine_pb2.ConnectedRequest(
            game_id=game_id, device=self.hello_device, connected=False, connection=self.connection_id
        )
        with contextlib.suppress(grpc.RpcError):
            await self.engine.SetConnected(request, timeout=5)

    async def back(self, game_id: str) -> None:
        """The device's player is here for its online game, through this connection."""
        # Vouched for first: the keeper's rounds renew the connection from the moment the engine
        # holds it (a round never adds one the engine does not hold).
        self.keeper.keep_connected(self, game_id, self.hello_device, self.connection_id)
        snapshot = await self.engine.SetConnected(
            engine_pb2.ConnectedRequest(
                game_id=game_id, device=self.hello_device, connected=True, connection=self.connection_id
            ),
            timeout=5,
        )
        await self.feed.sync_to(snapshot)

    async def _send_presence(self, frame: server_frames.PresenceFrame) -> None:
        await self.send(frame)

    def _stop_waiting(self) -> None:
        if self._waiting and self.device is not None:
            self._waiting = False
            self.keeper.discard(self.device)

    # --- entering a game -----------------------------------------------------------------------

    async def _enter(self, game_id: str, via: str, reply_to: Any = None) -> None:
        """Follows an online game the device plays: ``matched`` (which seat is whose), then
        its state, and the player counts as connected."""
        if via == "find_match" and self._waiting_since:
            PAIRING_TIME.observe(time.monotonic() - self._waiting_since)
        self._waiting_since = 0.0
        self._stop_waiting()
        snapshot = await self.engine.GetGame(
            engine_pb2.GetGameRequest(game_id=game_id, device=self.hello_device), timeout=5
        )
        await self.send(server_frames.Matched.build(game_id, snapshot.seat, via, reply_to=reply_to))
        await self._follow(snapshot)
        if not snapshot.over:
            await self.back(game_id)

    async def _match_started(self, started: matchmaker_pb2.MatchStarted) -> None:
        """A game of this device started through another connection (the one that joined it)."""
        if started.game_id == self.feed.game_id:
            return
        if self._asking:
            self._announced = started
            return
        await self._enter(started.game_id, started.via)

    async def _asking_for(self, ask: Awaitable[None]) -> None:
        self._asking = True
        try:
            await ask
        finally:
            self._asking = False
            announced, self._announced = self._announced, None
            if announced is not None and announced.game_id != self.feed.game_id:
                await self._enter(announced.game_id, announced.via)

    async def _next_game(self, game_id: str) -> None:
        """Both players asked for a rematch: the next game is followed."""
        if game_id != self.feed.game_id:
            try:
                await self._enter(game_id, "rematch")
            except grpc.RpcError:
                log.warning("the rematch could not be followed", extra={"game": game_id})

    # --- frames --------------------------------------------------------------------------------

    async def on_online_menu(self, frame: client_frames.OnlineMenu) -> None:
        if not frame.open:
            self._on_menu = False
            self.presence_feed.unwatch(self._send_presence)
            await self.send(server_frames.Ack.build(reply_to=frame.id))
            return
        status = await self.matchmaker.GetOnlineStatus(matchmaker_pb2.DeviceOnly(device=self.hello_device), timeout=5)
        room = _room(status.room, time.time()) if status.room.code else None
        await self.send(
            server_frames.OnlineStatus.build(status.game_id or None, room, status.waiting or None, reply_to=frame.id)
        )
        self._on_menu = True
        self.presence_feed.watch(self._send_presence)
        if status.game_id:
            # Back in time: the running online game goes on.
            snapshot = await self.engine.GetGame(
                engine_pb2.GetGameRequest(game_id=status.game_id, device=self.hello_device), timeout=5
            )
            await self._enter(status.game_id, snapshot.facts.via or "room")

    async def on_running_online(self, frame: client_frames.RunningOnline) -> None:
        """The device's running online game for the menu, which offers it back: nothing here
        changes, the player stays away (and the grace runs) until the game is on screen again."""
        status = await self.matchmaker.GetOnlineStatus(matchmaker_pb2.DeviceOnly(device=self.hello_device), timeout=5)
        if status.game_id:
            snapshot = await self.engine.GetGame(
                engine_pb2.GetGameRequest(game_id=status.game_id, device=self.hello_device), timeout=5
            )
            if not snapshot.over:
                seat = snapshot.seat or status.seat
                frame_text = server_frames.RunningOnline.spliced(status.game_id, seat, snapshot.state_json, frame.id)
                await self.send(frame_text)
                return
        await self.send(server_frames.RunningOnline.none(reply_to=frame.id))

    async def on_find_match(self, frame: client_frames.FindMatch) -> None:
        await self._asking_for(self._find_match(frame))

    async def _find_match(self, frame: client_frames.FindMatch) -> None:
        asked = time.monotonic()
        reply = await self.matchmaker.FindMatch(
            matchmaker_pb2.FindMatchRequest(device=self.hello_device, name=frame.name, mode=frame.mode), timeout=10
        )
        # Pairing time counts from the first ask of a search (asking again in another mode goes on).
        self._waiting_since = self._waiting_since or asked
        if reply.match.game_id:
            await self._enter(reply.match.game_id, "find_match", reply_to=frame.id)
            return
        if not self._waiting:
            self._waiting = True
            self.keeper.add(self.hello_device)
        await self.send(server_frames.MatchWaiting.build(frame.mode, reply_to=frame.id))

    async def on_cancel_match(self, frame: client_frames.CancelMatch) -> None:
        reply = await self.matchmaker.CancelFind(matchmaker_pb2.DeviceOnly(device=self.hello_device), timeout=5)
        self._stop_waiting()
        self._waiting_since = 0.0
        await self.send(server_frames.MatchCancelled.build(reply.cancelled, reply_to=frame.id))

    async def on_create_room(self, frame: client_frames.CreateRoom) -> None:
        request = matchmaker_pb2.CreateRoomRequest(
            device=self.hello_device, name=frame.name, mode=frame.mode, overlap=frame.overlap or ""
        )
        room = await self.matchmaker.CreateRoom(request, timeout=5)
        self._stop_waiting()  # the matchmaker ended the device's search with the room
        await self.send(server_frames.RoomFrame.build(_room(room, time.time()), reply_to=frame.id))

    async def on_close_room(self, frame: client_frames.CloseRoom) -> None:
        room = await self.matchmaker.CloseRoom(matchmaker_pb2.DeviceOnly(device=self.hello_device), timeout=5)
        await self.send(server_frames.RoomClosed.build(room.code or None, reply_to=frame.id))

    async def on_join_room(self, frame: client_frames.JoinRoom) -> None:
        await self._asking_for(self._join_room(frame))

    async def _join_room(self, frame: client_frames.JoinRoom) -> None:
        address = self.ws.client.host if self.ws.client is not None else ""
        started = await self.matchmaker.JoinRoom(
            matchmaker_pb2.JoinRoomRequest(device=self.hello_device, name=frame.name, code=frame.code, address=address),
            timeout=10,
        )
        await self._enter(started.game_id, "room", reply_to=frame.id)

    async def on_leave(self, frame: client_frames.Leave) -> None:
        request = engine_pb2.LeaveRequest(game_id=frame.game, device=self.hello_device)
        snapshot = await self._online_call(frame.game, lambda: self.engine.Leave(request, timeout=5))
        await self.feed.sync_to(snapshot)
        await self.send(server_frames.Ack.build(reply_to=frame.id))

    async def on_rematch(self, frame: client_frames.Rematch) -> None:
        request = engine_pb2.RematchRequest(game_id=frame.game, device=self.hello_device, want=frame.want)
        snapshot = await self._online_call(frame.game, lambda: self.engine.Rematch(request, timeout=5))
        await self.feed.sync_to(snapshot)
        await self.send(server_frames.Ack.build(reply_to=frame.id))

    async def _online_call(
        self, game_id: str, call: Callable[[], Awaitable[common_pb2.GameSnapshot]]
    ) -> common_pb2.GameSnapshot:
        """A call on an online game, made after the connection follows it (its update then
        reaches this connection like any other)."""
        if game_id != self.feed.game_id:
            snapshot = await self.engine.GetGame(
                engine_pb2.GetGameRequest(game_id=game_id, device=self.hello_device), timeout=5
            )
            if not snapshot.facts.online:
                raise Refusal("not_online", "this is not an online game")
            await self._follow(snapshot)
        return await call()
