"""What the statistics keep per device stays bounded however many games it plays: the ids of the
games counted (a game is counted once) and the results the result window asks for keep only the
newest, and every count renews the keys' lifetime (docs/keys.md)."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from boxedin.common.keys import Keys
from boxedin.stats.store import COUNTED_KEPT, RESULTS_KEPT, STATS_LIFETIME_SECONDS, StatsStore
from boxedin.v1 import stats_pb2

KEYS = Keys("test-stored-counts:")
DEVICE = "ab" * 32  # a device hash


async def count(store: StatsStore, game_id: str, ended: float) -> int:
    stored = await store.load(DEVICE)
    return await store.count(DEVICE, game_id, ended, stored, stats_pb2.GameResult(game_id=game_id))


def test_a_device_that_plays_on_and_on_keeps_the_newest_ids_and_results(redis_url: str) -> None:
    async def run() -> None:
        client = aioredis.Redis.from_url(redis_url)
        store = StatsStore(client, KEYS)
        try:
            games = COUNTED_KEPT + 100
            for n in range(games):
                assert await count(store, f"g_{n:05d}", 1_000_000.0 + n) == 1
            assert await client.zcard(KEYS.stats_counted(DEVICE)) == COUNTED_KEPT
            assert await client.hlen(KEYS.stats_results(DEVICE)) == RESULTS_KEPT
            newest = f"g_{games - 1:05d}"
            assert (await store.result(DEVICE, newest)) is not None
            assert (await store.result(DEVICE, f"g_{games - RESULTS_KEPT - 1:05d}")) is None
            # Within the ids kept, a game comes again and is not counted twice.
            assert await count(store, f"g_{games - COUNTED_KEPT:05d}", 1_000_000.0) == 2
            assert await store.counted(DEVICE, newest)
            for key in (KEYS.stats(DEVICE), KEYS.stats_counted(DEVICE), KEYS.stats_results(DEVICE)):
                assert STATS_LIFETIME_SECONDS - 60 < await client.ttl(key) <= STATS_LIFETIME_SECONDS
        finally:
            await client.delete(KEYS.stats(DEVICE), KEYS.stats_counted(DEVICE), KEYS.stats_results(DEVICE))
            await client.aclose()

    asyncio.run(run())


def test_keys_written_before_the_bounds_are_trimmed_at_the_next_count(redis_url: str) -> None:
    async def run() -> None:
        client = aioredis.Redis.from_url(redis_url)
        store = StatsStore(client, KEYS)
        try:
            # As an earlier version left them: a plain set of ids, and a result for every game.
            old = [f"g_old_{n:04d}" for n in range(RESULTS_KEPT + 30)]
            await client.sadd(KEYS.stats_counted(DEVICE), *old)
            await client.hset(KEYS.stats_results(DEVICE), mapping={game: b"" for game in old})
            assert await count(store, old[0], 5.0) == 2, "a game counted before is still known"
            assert await count(store, "g_new", 10.0) == 1
            assert await client.type(KEYS.stats_counted(DEVICE)) == b"zset"
            assert await client.zcard(KEYS.stats_counted(DEVICE)) == len(old) + 1
            assert await client.hlen(KEYS.stats_results(DEVICE)) == RESULTS_KEPT
            assert await store.result(DEVICE, "g_new") is not None
        finally:
            await client.delete(KEYS.stats(DEVICE), KEYS.stats_counted(DEVICE), KEYS.stats_results(DEVICE))
            await client.aclose()

    asyncio.run(run())
