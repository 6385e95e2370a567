"""The matchmaker's figures for operators: who waits in Find Match, by mode, worked out from
Redis every few seconds by each replica alike (dashboards take the largest)."""

from __future__ import annotations

import asyncio
import logging

import redis.asyncio as redis

from boxedin.common.background import Background
from boxedin.common.metrics import FIND_MATCH_WAITING

from .queue import MatchQueue

log = logging.getLogger("boxedin.matchmaker.figures")


class WaitingFigures(Background):
    def __init__(self, queue: MatchQueue, modes: tuple[str, ...], every_seconds: float = 5.0) -> None:
        self.queue = queue
        self.modes = modes
        self.every_seconds = every_seconds

    async def update(self) -> None:
        waiting = await self.queue.modes_waiting()
        for mode in self.modes:
            FIND_MATCH_WAITING.labels(mode).set(1 if mode in waiting else 0)

    async def _run(self) -> None:
        while True:
            try:
                await self.update()
            except redis.RedisError as exc:
                log.warning("cannot work out who waits", extra={"error": str(exc)})
            await asyncio.sleep(self.every_seconds)
