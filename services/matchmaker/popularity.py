"""Which modes are popular: online games started per mode and day (UTC), kept eight days; the
modes played most in the last seven days are marked Popular on the online menu."""

from __future__ import annotations

import datetime as dt
import time

import redis.asyncio as redis

from boxedin.common.keys import Keys

DAYS = 7
# How many of the most played modes are marked (fewer when fewer modes were played).
POPULAR_MODES = 3


def _day(moment: float) -> str:
    return dt.datetime.fromtimestamp(moment, dt.UTC).strftime("%Y%m%d")


class Popularity:
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self.redis = client
        self.keys = keys

    async def count_game(self, mode: str, now: float | None = None) -> None:
        key = self.keys.played(_day(time.time() if now is None else now))
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hincrby(key, mode, 1)
            pipe.expire(key, (DAYS + 1) * 24 * 3600)
            await pipe.execute()

    async def played(self, now: float | None = None) -> dict[str, int]:
        """Online games started per mode over the last seven days, today included."""
        moment = time.time() if now is None else now
        async with self.redis.pipeline(transaction=False) as pipe:
            for back in range(DAYS):
                pipe.hgetall(self.keys.played(_day(moment - back * 24 * 3600)))
            days: list[dict[bytes, bytes]] = await pipe.execute()
        totals: dict[str, int] = {}
        for day in days:
            for mode, count in day.items():
                totals[mode.decode()] = totals.get(mode.decode(), 0) + int(count)
        return totals

    async def popular(self, now: float | None = None) -> set[str]:
        totals = await self.played(now)
        ranked = sorted((count, mode) for mode, count in totals.items() if count > 0)
        return {mode for _, mode in ranked[-POPULAR_MODES:]}
