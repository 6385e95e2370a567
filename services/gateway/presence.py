"""Presence: which devices are connected to this gateway, reported to Redis every few seconds
with a lapse time, so the count of players online, added up over the gateways, heals by itself
within ``LAPSE_SECONDS`` when a gateway dies. Numbers only: no device is named in Redis."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from typing import cast

import redis.asyncio as redis

from boxedin.common.keys import Keys

log = logging.getLogger("boxedin.gateway.presence")
REPORT_SECONDS = 3.0
LAPSE_SECONDS = 10.0


class Presence:
    def __init__(self, client: redis.Redis, keys: Keys, gateway: str) -> None:
        self.redis = client
        self.keys = keys
        self.gateway = gateway
        self.devices: Counter[str] = Counter()  # connections per device
        self._task: asyncio.Task[None] | None = None

    def arrive(self, device: str) -> None:
        self.devices[device] += 1

    def leave(self, device: str) -> None:
        self.devices[device] -= 1
        if self.devices[device] <= 0:
            del self.devices[device]

    def start(self) -> None:
        self._task = asyncio.create_task(self._report())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(redis.RedisError):
            await self.redis.hdel(self.keys.presence(), self.gateway)

    async def _report(self) -> None:
        while True:
            lapses = round((time.time() + LAPSE_SECONDS) * 1000)
            try:
                await self.redis.hset(self.keys.presence(), self.gateway, f"{len(self.devices)}:{lapses}")
            except redis.RedisError as exc:
                log.warning("cannot report presence", extra={"error": str(exc)})
            await asyncio.sleep(REPORT_SECONDS)

    async def players_online(self) -> int:
        """Devices connected over every live gateway; reports of dead gateways are dropped."""
        raw = cast(dict[bytes, bytes], await self.redis.hgetall(self.keys.presence()))
        now = time.time() * 1000
        total, lapsed = 0, []
        for gateway, value in raw.items():
            count, until = value.decode().split(":")
            if int(until) < now:
                lapsed.append(gateway)
            else:
                total += int(count)
        if lapsed:
            await self.redis.hdel(self.keys.presence(), *lapsed)
        return total
