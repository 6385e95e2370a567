"""One Redis subscription per gateway process, fanned out to the sockets that follow a game."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable

import redis.asyncio as redis

log = logging.getLogger("boxedin.gateway.hub")
Listener = Callable[[str], Awaitable[None]]


class UpdateHub:
    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self.pubsub = client.pubsub(ignore_subscribe_messages=True)
        self.listeners: dict[str, set[Listener]] = {}
        self._task: asyncio.Task[None] | None = None

    def channel(self, game_id: str) -> str:
        return f"{self.prefix}updates:{game_id}"

    async def start(self) -> None:
        # A channel of its own keeps the subscription open while no game is followed.
        await self.pubsub.subscribe(f"{self.prefix}gateway:{uuid.uuid4().hex}")
        self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.pubsub.aclose()

    async def follow(self, game_id: str, listener: Listener) -> None:
        listeners = self.listeners.setdefault(game_id, set())
        if not listeners:
            await self.pubsub.subscribe(self.channel(game_id))
        listeners.add(listener)

    async def unfollow(self, game_id: str, listener: Listener) -> None:
        listeners = self.listeners.get(game_id)
        if not listeners:
            return
        listeners.discard(listener)
        if not listeners:
            del self.listeners[game_id]
            with contextlib.suppress(redis.RedisError):
                await self.pubsub.unsubscribe(self.channel(game_id))

    async def _listen(self) -> None:
        prefix = f"{self.prefix}updates:".encode()
        while True:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except redis.RedisError:
                log.warning("update subscription lost; retrying")
                await asyncio.sleep(1)
                continue
            if message is None or message["type"] != "message":
                continue
            channel: bytes = message["channel"]
            if not channel.startswith(prefix):
                continue
            game_id = channel[len(prefix) :].decode()
            body = message["data"].decode()
            for listener in list(self.listeners.get(game_id, ())):
                try:
                    await listener(body)
                except Exception:
                    log.exception("delivering an update failed", extra={"game": game_id})
