"""Counting finished games: every stats replica reads all the finished-games streams through
one consumer group and counts each game for each person who played it. A game is acknowledged
only once it is counted, so one finished while the service was down, or read by a replica that
died before acknowledging it (taken over after ``stats_claim_idle_seconds``), is counted later; the
store counts a game once per device however often it is read."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import time
from typing import Any, cast

import redis.asyncio as redis

from boxedin.common.keys import STATS_GROUP, Keys
from boxedin.common.metrics import STATS_COUNTED, STATS_LAG
from boxedin.v1 import common_pb2

from .model import apply_game, game_facts
from .store import StatsStore
from .wire import result_message

log = logging.getLogger("boxedin.stats")
# Races lost on one device's record before the game is left to be read again.
_RETRIES = 50
Entries = list[tuple[bytes, dict[bytes, bytes]]]


class GameCounter:
    def __init__(
        self, client: redis.Redis, keys: Keys, store: StatsStore, claim_idle_seconds: float = 30.0, batch: int = 100
    ) -> None:
        self.redis = client
        self.claim_idle_seconds = claim_idle_seconds
        self.keys = keys
        self.store = store
        self.batch = batch
        self.consumer = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        for stream in self.keys.finished_streams():
            await self._ensure_group(stream)
            self._spawn(self._read(stream))
        self._spawn(self._reclaim())
        log.info("counting finished games", extra={"consumer": self.consumer})

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=2)

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ensure_group(self, stream: str) -> None:
        try:
            await self.redis.xgroup_create(stream, STATS_GROUP, id="0", mkstream=True)
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def _read(self, stream: str) -> None:
        while True:
            try:
                reply = cast(
                    list[tuple[bytes, Entries]],
                    await self.redis.xreadgroup(
                        STATS_GROUP, self.consumer, {stream: ">"}, count=self.batch, block=2000
                    ),
                )
                for _, entries in reply or ():
                    await self._count_entries(stream, entries)
            except redis.ResponseError as exc:
                if "NOGROUP" in str(exc):
                    await self._ensure_group(stream)
                else:
                    log.warning("reading finished games failed", extra={"stream": stream, "error": str(exc)})
                    await asyncio.sleep(1)
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                log.warning("reading finished games failed", extra={"stream": stream, "error": str(exc)})
                await asyncio.sleep(1)

    async def _reclaim(self) -> None:
        idle_ms = round(self.claim_idle_seconds * 1000)
        while True:
            await asyncio.sleep(self.claim_idle_seconds / 3)
            for stream in self.keys.finished_streams():
                try:
                    reply = await self.redis.xautoclaim(
                        stream, STATS_GROUP, self.consumer, idle_ms, "0-0", count=self.batch
                    )
                    claimed = [(i, f) for i, f in cast(Entries, reply[1]) if i is not None and f]
                    deleted = cast(list[bytes], reply[2] if len(reply) > 2 else [])
                    if deleted:
                        await self.redis.xack(stream, STATS_GROUP, *deleted)
                    if claimed:
                        log.info("took over finished games", extra={"stream": stream, "games": len(claimed)})
                        await self._count_entries(stream, claimed)
                except redis.RedisError as exc:
                    log.warning("claiming finished games failed", extra={"stream": stream, "error": str(exc)})

    async def _count_entries(self, stream: str, entries: Entries) -> None:
        done: list[bytes] = []
        for entry_id, fields in entries:
            finished = common_pb2.FinishedGame.FromString(fields[b"game"])
            if await self.count_game(finished):
                done.append(entry_id)
        if done:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.xack(stream, STATS_GROUP, *done)
                pipe.xdel(stream, *done)
                await pipe.execute()

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
                facts = game_facts(finished, device)
            except ValueError as exc:
                log.error("a finished game that cannot be counted", extra={"game": finished.game_id, "error": str(exc)})
                return True  # it never will be: do not read it again and again
            stored = await self.store.load(device)
            outcome = apply_game(stored.stats, facts, finished.ended)
            result = result_message(finished.game_id, stored.stats, outcome)
            status = await self.store.count(device, finished.game_id, stored, result)
            if status:
                if status == 1:
                    STATS_COUNTED.labels(facts.against).inc()
                return True
        return False
