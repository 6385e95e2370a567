"""How many sockets watch each online game, over every gateway (docs/protocol.md, Watching).
Each gateway keeps its own count of a game's watchers as a field of one Redis hash per game, and
names the game on the watchers channel whenever its count changed; every gateway with a socket
following that game (player or watcher) then reads the total once and tells them all. Numbers
only: nothing about who watches is stored."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter

import redis.asyncio as redis

from boxedin.common.background import Background
from boxedin.common.keys import Keys

log = logging.getLogger("boxedin.gateway.watchers")
# A gateway renews its fields' hashes on this beat; a hash not renewed (its gateway died) goes
# after WATCHERS_TTL, so a dead gateway's watchers stop counting within two minutes.
RENEW_SECONDS = 30.0
WATCHERS_TTL = 120


class Watchers(Background):
    def __init__(self, client: redis.Redis, keys: Keys, gateway: str) -> None:
        self.redis = client
        self.keys = keys
        self.gateway = gateway
        self.here: Counter[str] = Counter()  # this gateway's watchers by game

    async def arrive(self, game_id: str) -> None:
        self.here[game_id] += 1
        await self._report(game_id)

    async def leave(self, game_id: str) -> None:
        self.here[game_id] -= 1
        if self.here[game_id] <= 0:
            del self.here[game_id]
        await self._report(game_id)

    async def total(self, game_id: str) -> int:
        counts = await self.redis.hvals(self.keys.watchers(game_id))
        return sum(int(count) for count in counts)

    async def _report(self, game_id: str) -> None:
        key = self.keys.watchers(game_id)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                count = self.here.get(game_id, 0)
                if count:
                    pipe.hset(key, self.gateway, count)
                    pipe.expire(key, WATCHERS_TTL)
                else:
                    pipe.hdel(key, self.gateway)
                pipe.publish(self.keys.watchers_channel(), game_id)
                await pipe.execute()
        except redis.RedisError as exc:
            # The count is a courtesy to the players: the watcher watches on regardless.
            log.warning("cannot report watchers", extra={"game": game_id, "error": str(exc)})

    async def stop(self) -> None:
        await super().stop()
        for game_id in list(self.here):
            self.here[game_id] = 0
            with contextlib.suppress(redis.RedisError):
                await self._report(game_id)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            for game_id in list(self.here):
                await self._report(game_id)
