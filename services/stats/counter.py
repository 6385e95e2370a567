"""Counting finished games: every stats replica reads all the finished-games streams through
one consumer group and counts each game for each person who played it. A game is acknowledged
only once it is counted, so one finished while the service was down, or read by a replica that
died before acknowledging it (taken over after ``stats_claim_idle_seconds``), is counted later; the
store counts a game once per device however often it is read."""

from __future__ import annotations

import asyncio
import logging
import time

import redis.asyncio as redis

from boxedin.common.keys import STATS_GROUP, Keys
from boxedin.common.metrics import STATS_COUNTED, STATS_LAG, at_zero
from boxedin.common.streams import Entry, GroupReader
from boxedin.v1 import common_pb2

from .convert import result_message
from .model import apply_game, game_outcome
from .outcome import AGAINST
from .store import StatsStore

log = logging.getLogger("boxedin.stats")
at_zero(STATS_COUNTED, *((against,) for against in AGAINST))
# Races lost on one device's record before the game is left to be read again.
_RETRIES = 50


class GameCounter(GroupReader):
    def __init__(
        self, client: redis.Redis, keys: Keys, store: StatsStore, claim_idle_seconds: float = 30.0, batch: int = 100
    ) -> None:
        super().__init__(client, STATS_GROUP, "finished games", "stats.counter")
        self.keys = keys
        self.store = store
        self.claim_idle_seconds = claim_idle_seconds
        self.batch = batch

    async def start(self) -> None:
        for stream in self.keys.finished_streams():
            await self.ensure_group(stream)
            self.spawn(self._read(stream))
        self.spawn(self._reclaim())
        log.info("counting finished games", extra={"consumer": self.consumer})

    async def _read(self, stream: str) -> None:
        while True:
            entries = await self.read(stream, self.batch)
            if entries:
                await self._count_entries(stream, entries)

    async def _reclaim(self) -> None:
        idle_ms = round(self.claim_idle_seconds * 1000)
        while True:
            await asyncio.sleep(self.claim_idle_seconds / 3)
            for stream in self.keys.finished_streams():
                claimed = await self.claim_idle(stream, idle_ms, self.batch)
                if claimed:
                    log.info("took over finished games", extra={"stream": stream, "games": len(claimed)})
                    await self._count_entries(stream, claimed)

    async def _count_entries(self, stream: str, entries: list[Entry]) -> None:
        done: list[bytes] = []
        for entry_id, fields in entries:
            finished = common_pb2.FinishedGame.FromString(fields[b"game"])
            if await self.count_game(finished):
                done.append(entry_id)
        if done:
            await self.done(stream, *done)

    async def count_game(self, finished: common_pb2.FinishedGame) -> bool:
        """Counts one finished game for every person who played it; False to leave it to be
        read again (the store could not be reached, or too many races)."""
        devices = sorted({seat.device for seat in finished.seats if seat.kind == "human" and seat.device})
        try:
            for device in devices:
                if not await self._count_for(device, finished):
                    return False
        except redis.RedisError as exc:
            log.warning("counting a game failed", extra={"game": finished.game_id, "error": str(exc)})
            return False
        STATS_LAG.observe(max(0.0, time.time() - finished.ended))
        return True

    async def _count_for(self, device: str, finished: common_pb2.FinishedGame) -> bool:
        for _ in range(_RETRIES):
            if await self.store.counted(device, finished.game_id):
                return True
            try:
                facts = game_outcome(finished, device)
            except ValueError as exc:
                log.error("a finished game that cannot be counted", extra={"game": finished.game_id, "error": str(exc)})
                return True  # it never will be: do not read it again and again
            stored = await self.store.load(device)
            outcome = apply_game(stored.stats, facts, finished.ended)
            result = result_message(finished.game_id, stored.stats, outcome)
            status = await self.store.count(device, finished.game_id, finished.ended, stored, result)
            if status:
                if status == 1:
                    STATS_COUNTED.labels(facts.against).inc()
                return True
        return False
