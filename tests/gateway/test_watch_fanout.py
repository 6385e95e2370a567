"""Fan-out encodes each update once for every follower of a game (docs/protocol.md, Watching):
the hub, on a real Redis, hands its players and all its watchers the very same frame text, and
one count of watchers, built once, to each of them; and it tells the players before the watchers."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as redis

from boxedin.common.keys import Keys
from boxedin.gateway.hub import UpdateHub
from boxedin.supervisor.launcher import Stack
from boxedin.v1 import common_pb2

pytestmark = pytest.mark.stack


def test_every_follower_gets_the_same_text_of_an_update_and_of_a_count(live_stack: Stack) -> None:
    async def fan_out() -> tuple[list[str], list[str]]:
        client = redis.Redis.from_url(str(live_stack.redis_url))
        keys = Keys(f"fanout-{uuid.uuid4().hex[:8]}:")
        hub = UpdateHub(client, keys)
        hub.count_watchers = lambda game: asyncio.sleep(0, result=7)
        texts: list[str] = []
        counts: list[str] = []
        await hub.start()
        try:
            for _ in range(100):
                await hub.follow("g1", lambda update, text: texts.append(text))
                hub.on_count("g1", lambda text: counts.append(text))
            update = common_pb2.Update(game_id="g1", seq=1, frame_json='{"type":"update","seq":1}')
            async with asyncio.timeout(10):
                while len(texts) < 100 or len(counts) < 100:
                    await client.publish(keys.channel("g1"), update.SerializeToString())
                    await client.publish(keys.watchers_channel(), "g1")
                    await asyncio.sleep(0.05)
        finally:
            await hub.stop()
            await client.aclose()
        return texts, counts

    texts, counts = asyncio.run(fan_out())
    # Each published message reached the 100 followers as one object: read out of it once.
    assert all(text is texts[0] for text in texts[:100])
    assert counts[0] == '{"type":"watching","game":"g1","count":7}'
    assert all(count is counts[0] for count in counts[:100])


def test_the_players_are_told_of_an_update_before_its_watchers(live_stack: Stack) -> None:
    async def fan_out() -> list[str]:
        client = redis.Redis.from_url(str(live_stack.redis_url))
        keys = Keys(f"fanout-{uuid.uuid4().hex[:8]}:")
        hub = UpdateHub(client, keys)
        told: list[str] = []
        await hub.start()
        try:
            for _ in range(100):  # the crowd came first, through a shared link
                await hub.follow("g1", lambda update, text: told.append("watcher"), watcher=True)
            for _ in range(2):
                await hub.follow("g1", lambda update, text: told.append("player"))
            update = common_pb2.Update(game_id="g1", seq=1, frame_json='{"type":"update","seq":1}')
            async with asyncio.timeout(10):
                while len(told) < 102:
                    await client.publish(keys.channel("g1"), update.SerializeToString())
                    await asyncio.sleep(0.05)
        finally:
            await hub.stop()
            await client.aclose()
        return told[:102]

    assert asyncio.run(fan_out()) == ["player"] * 2 + ["watcher"] * 100
