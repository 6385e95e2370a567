"""The figures operators watch, worked out every few seconds by each engine replica alike (the
dashboards take the largest replica's figure): the games being played now by mode, the players
online, and what waits in the streams the engine writes (boxedin.engine.service.backlog)."""

from __future__ import annotations

import asyncio
import logging
import time

import redis.asyncio as redis

from boxedin.common import presence
from boxedin.common.background import Background
from boxedin.common.metrics import (
    COMPUTER_TURN_OLDEST_WAIT,
    COMPUTER_TURNS_WAITING,
    FIGURES_UPDATED,
    GAMES_NOW,
    PLAYERS_ONLINE,
    STATS_BACKLOG,
    STATS_BACKLOG_OLDEST,
    STREAMS_MEASURED,
)
from boxedin.engine.rules import MODES

from . import backlog
from .store import GameStore

log = logging.getLogger("boxedin.engine.figures")
# Every mode's games, custom boards included.
FIGURE_MODES = [*MODES, "custom"]


class FiguresLoop(Background):
    def __init__(self, store: GameStore, every_seconds: float = 5.0, claim_idle_seconds: float = 2.0) -> None:
        self.store = store
        self.every_seconds = every_seconds
        self.claim_idle_seconds = claim_idle_seconds
        # The games being played now by mode, as last worked out (None before the first time),
        # and the online games among them.
        self.games_now: dict[str, int] | None = None
        self.online_games_now: dict[str, int] = {}

    async def games(self, *, prune: bool = False) -> tuple[dict[str, int], dict[str, int]]:
        """The games being played now by mode (GameStore.games_now: the one definition), and the
        online games among them, as they stand: a game that ended is no longer among them."""
        followed = await presence.games_followed(self.store.redis, self.store.keys)
        now, online = await self.store.games_now(FIGURE_MODES, followed, prune=prune)
        self.games_now, self.online_games_now = now, online
        return now, online

    async def update(self) -> dict[str, int]:
        counts, _ = await self.games(prune=True)
        for mode, count in counts.items():
            GAMES_NOW.labels(mode).set(count)
        PLAYERS_ONLINE.set(await presence.players_online(self.store.redis, self.store.keys))
        FIGURES_UPDATED.set(time.time())
        return counts

    async def measure_streams(self) -> None:
        now = time.time()
        client, keys = self.store.redis, self.store.keys
        turns = await backlog.computer_turns_waiting(client, keys, self.claim_idle_seconds, now)
        for partition, waiting in enumerate(turns):
            COMPUTER_TURNS_WAITING.labels(str(partition)).set(waiting.waiting)
            COMPUTER_TURN_OLDEST_WAIT.labels(str(partition)).set(waiting.oldest_seconds)
        for partition, waiting in enumerate(await backlog.games_not_counted(client, keys, now)):
            STATS_BACKLOG.labels(str(partition)).set(waiting.waiting)
            STATS_BACKLOG_OLDEST.labels(str(partition)).set(waiting.oldest_seconds)
        STREAMS_MEASURED.set(now)

    async def _run(self) -> None:
        while True:
            try:
                await self.update()
            except redis.RedisError as exc:
                log.warning("cannot work out the games figures", extra={"error": str(exc)})
            try:
                await self.measure_streams()
            except redis.RedisError as exc:
                log.warning("cannot measure the work and finished-games streams", extra={"error": str(exc)})
            await asyncio.sleep(self.every_seconds)
