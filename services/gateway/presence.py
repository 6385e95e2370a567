"""Presence: which devices are connected to this gateway, reported to Redis every few seconds
(boxedin.common.presence), so the count of players online, added up over the gateways, heals by
itself when a gateway dies. Numbers only: no device is named in Redis."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable, Collection

import redis.asyncio as redis

from boxedin.common import presence
from boxedin.common.background import Background
from boxedin.common.keys import Keys

log = logging.getLogger("boxedin.gateway.presence")


class Presence(Background):
    def __init__(
        self, client: redis.Redis, keys: Keys, gateway: str, following: Callable[[], Collection[str]] = frozenset
    ) -> None:
        self.redis = client
        # The games this gateway's sockets follow now (the update hub's), reported with the count.
        self.following = following
        self.keys = keys
        self.gateway = gateway
        self.devices: Counter[str] = Counter()  # connections per device
        # Set when the count changed: the next report goes at once rather than on the beat.
        self._changed = asyncio.Event()

    def arrive(self, device: str) -> None:
        if not self.devices[device]:
            self._changed.set()
        self.devices[device] += 1

    def changed(self) -> None:
        """Something reported changed (a game followed or no longer): the next report goes at once."""
        self._changed.set()

    def leave(self, device: str) -> None:
        self.devices[device] -= 1
        if self.devices[device] <= 0:
            del self.devices[device]
            self._changed.set()

    async def stop(self) -> None:
        await super().stop()
        with contextlib.suppress(redis.RedisError):
            await presence.withdraw(self.redis, self.keys, self.gateway)

    async def _run(self) -> None:
        """Reports the count on a beat, and at once when it changed."""
        while True:
            try:
                await presence.report(self.redis, self.keys, self.gateway, len(self.devices))
                await presence.report_following(self.redis, self.keys, self.gateway, list(self.following()))
            except redis.RedisError as exc:
                log.warning("cannot report presence", extra={"error": str(exc)})
            # Reports go at most five times a second, however many devices come and go.
            await asyncio.sleep(0.2)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), presence.REPORT_SECONDS)
            self._changed.clear()

    async def players_online(self) -> int:
        return await presence.players_online(self.redis, self.keys)
