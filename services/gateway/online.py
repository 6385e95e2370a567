"""What a gateway does for online play besides passing frames on: it pushes the presence figures
to the connections on the online menu (about every 2 s, and only when they changed), keeps the
Find Match places of the connections that wait (a place not kept lapses, so a player whose
connection or gateway died is never paired), and vouches for the players connected to online
games (a player nobody vouches for, because their gateway died, becomes away)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import grpc

from boxedin.common.background import Background
from boxedin.v1 import engine_pb2, engine_pb2_grpc, matchmaker_pb2, matchmaker_pb2_grpc

from . import server_frames

log = logging.getLogger("boxedin.gateway.online")
Send = Callable[[server_frames.PresenceFrame], Awaitable[None]]
PRESENCE_SECONDS = 2.0


def presence_frame(reply: matchmaker_pb2.PresenceReply) -> server_frames.PresenceFrame:
    modes = {
        mode: server_frames.ModePresence(waiting=figures.waiting, games_now=figures.games_now, popular=figures.popular)
        for mode, figures in sorted(reply.modes.items())
    }
    return server_frames.PresenceFrame.build(reply.players_online, modes)


class PresenceFeed(Background):
    """The presence frame for the connections on the online menu, each sent only what changed
    since the last frame it got."""

    def __init__(
        self, presence: matchmaker_pb2_grpc.PresenceAsyncStub, every_seconds: float = PRESENCE_SECONDS
    ) -> None:
        self.presence = presence
        self.every_seconds = every_seconds
        self.watchers: dict[Send, server_frames.PresenceFrame | None] = {}
        self.latest: server_frames.PresenceFrame | None = None
        self._wake = asyncio.Event()

    def watch(self, send: Send) -> None:
        """A connection came to the online menu: it gets the figures at once, then changes."""
        self.watchers.setdefault(send, None)
        self._wake.set()

    def unwatch(self, send: Send) -> None:
        self.watchers.pop(send, None)

    async def _run(self) -> None:
        while True:
            if self.watchers:
                try:
                    self.latest = presence_frame(
                        await self.presence.GetPresence(matchmaker_pb2.PresenceRequest(), timeout=5)
                    )
                except grpc.RpcError as error:
                    log.warning("cannot read the presence figures", extra={"error": error.code().name})
                else:
                    await self._push(self.latest)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.every_seconds)
            self._wake.clear()

    async def _push(self, frame: server_frames.PresenceFrame) -> None:
        for send, last in list(self.watchers.items()):
            if last == frame or send not in self.watchers:
                continue
            self.watchers[send] = frame
            try:
                await send(frame)
            except Exception:
                log.exception("sending presence failed")


class WaitingKeeper(Background):
    """Keeps the Find Match places of this gateway's waiting connections, and the connections
    of its players of online games, each in one call for all every few seconds."""

    def __init__(
        self,
        matchmaker: matchmaker_pb2_grpc.MatchmakerAsyncStub,
        engine: engine_pb2_grpc.EngineAsyncStub,
        every_seconds: float = 10.0,
    ) -> None:
        self.matchmaker = matchmaker
        self.engine = engine
        self.every_seconds = every_seconds
        self.devices: dict[str, int] = {}  # device token -> connections waiting
        # A connection (any key) -> the online game it follows, its device token and its id.
        self.players: dict[object, tuple[str, str, str]] = {}

    def add(self, device: str) -> None:
        self.devices[device] = self.devices.get(device, 0) + 1

    def discard(self, device: str) -> None:
        if device not in self.devices:
            return
        self.devices[device] -= 1
        if self.devices[device] <= 0:
            del self.devices[device]

    def keep_connected(self, connection: object, game_id: str, device: str, connection_id: str) -> None:
        self.players[connection] = (game_id, device, connection_id)

    def forget_connected(self, connection: object) -> None:
        self.players.pop(connection, None)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every_seconds)
            if self.devices:
                try:
                    request = matchmaker_pb2.KeepWaitingRequest(devices=list(self.devices))
                    await self.matchmaker.KeepWaiting(request, timeout=5)
                except grpc.RpcError as error:
                    log.warning("cannot keep the waiting players' places", extra={"error": error.code().name})
            if self.players:
                players = [
                    engine_pb2.ConnectedRequest(game_id=game_id, device=device, connected=True, connection=connection)
                    for game_id, device, connection in self.players.values()
                ]
                try:
                    await self.engine.KeepConnected(engine_pb2.KeepConnectedRequest(players=players), timeout=10)
                except grpc.RpcError as error:
                    log.warning("cannot vouch for the online players", extra={"error": error.code().name})
