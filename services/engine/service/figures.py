"""The figures operators watch about games (how many are being played now, by mode), worked out
from the running-games sets every few seconds by each engine replica alike; dashboards take
the largest replica's figure."""

from __future__ import annotations

import asyncio
import logging
import time

import redis.asyncio as redis

from boxedin.common.background import Background
from boxedin.common.metrics import FIGURES_UPDATED, GAMES_NOW
from boxedin.engine.rules import MODES

from .store import GameStore

log = logging.getLogger("boxedin.engine.figures")
# A game with no move for this long is not counted as being played now.
PLAYED_NOW_SECONDS = 30 * 60


class FiguresLoop(Background):
    def __init__(self, store: GameStore, every_seconds: float = 5.0) -> None:
        self.store = store
        self.every_seconds = every_seconds
        # The games being played now by mode, as last worked out (None before the first time),
        # and the online games among them.
        self.games_now: dict[str, int] | None = None
        self.online_games_now: dict[str, int] = {}

    async def update(self) -> dict[str, int]:
        modes = [*MODES, "custom"]
        counts = await self.store.games_now(modes, time.time() - PLAYED_NOW_SECONDS)
        self.online_games_now = await self.store.games_now(modes, time.time() - PLAYED_NOW_SECONDS, online=True)
        for mode, count in counts.items():
            GAMES_NOW.labels(mode).set(count)
        FIGURES_UPDATED.set(time.time())
        self.games_now = counts
        return counts

    async def _run(self) -> None:
        while True:
            try:
                await self.update()
            except redis.RedisError as exc:
                log.warning("cannot work out the games figures", extra={"error": str(exc)})
            await asyncio.sleep(self.every_seconds)
