"""A connection's frames for watching online games (docs/protocol.md, Watching): a player asks
for the game's watch link; anyone who opens it watches the game read-only, through the same
updates and seq as its players, and acts in nothing while watching."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from boxedin.common.reasons import Refusal
from boxedin.v1 import engine_pb2, engine_pb2_grpc

from . import client_frames, server_frames
from .feed import GameFeed
from .watchers import Watchers


class WatchPlay:
    """The watching frames of a connection (mixed into Session, which provides what is declared
    here)."""

    engine: engine_pb2_grpc.EngineAsyncStub
    feed: GameFeed
    watchers: Watchers
    send: Callable[[server_frames.ServerFrameModel | str], Awaitable[None]]
    _leave: Callable[..., Awaitable[None]]

    @property
    def hello_device(self) -> str:
        raise NotImplementedError

    @property
    def watching(self) -> bool:
        return bool(self.feed.watch_id)

    def check_may_send(self, frame: Any) -> None:
        """A watcher acts in nothing: every frame but the few that watch is refused, before it
        reaches any service."""
        if self.watching and frame.type not in client_frames.WATCHER_FRAMES:
            raise Refusal("watcher", "you are watching this game: a watcher cannot act in it (unwatch first)")

    async def on_watch_link(self, frame: client_frames.WatchLinkAsk) -> None:
        link = await self.engine.ShareWatch(
            engine_pb2.GetGameRequest(game_id=frame.game, device=self.hello_device), timeout=5
        )
        await self.send(server_frames.WatchLink.build(frame.game, link.watch_id, reply_to=frame.id))

    async def on_watch(self, frame: client_frames.Watch) -> None:
        snapshot = await self.engine.GetWatchedGame(engine_pb2.WatchLink(watch_id=frame.watch), timeout=5)
        if self.feed.game_id is not None:
            await self._leave(hide=True)  # a player's own game goes off screen, as on closing it
        await self.send(server_frames.Watched.build(snapshot.game_id, frame.watch, reply_to=frame.id))
        await self.feed.attach(snapshot, watch_id=frame.watch)
        await self.watchers.arrive(snapshot.game_id)

    async def on_unwatch(self, frame: client_frames.Unwatch) -> None:
        if self.watching:
            await self._leave(hide=True)
        await self.send(server_frames.Ack.build(reply_to=frame.id))
