"""The update hub's subscription on a connection of its own (boxedin.gateway.subscription), on a
real Redis: a followed game's updates reach its listeners, an unfollowed one's no longer go to
the gateway at all, and a subscription whose connection breaks is made again with every channel,
the games followed catching up on what was published meanwhile."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as redis

from boxedin.common.keys import Keys
from boxedin.gateway.hub import UpdateHub
from boxedin.gateway.subscription import NAME
from boxedin.v1 import common_pb2


async def _until(condition: Any, what: str, seconds: float = 10) -> None:
    try:
        async with asyncio.timeout(seconds):
            while not condition():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"not within {seconds} s: {what}") from None


def test_a_followed_game_s_updates_come_on_the_hub_s_own_connection_and_again_after_it_broke(
    redis_url: str,
) -> None:
    async def scenario() -> None:
        client = redis.Redis.from_url(redis_url)
        keys = Keys("test-hub-own:")
        hub = UpdateHub(client, keys)
        assert hub.subscription is not None, "a plain Redis is read on the hub's own connection"
        seen: list[int] = []
        recovered: list[bool] = []
        hub.recovery_listeners.add(lambda: recovered.append(True))
        await hub.start()
        try:
            await hub.follow("g1", lambda update, text: seen.append(update.seq))

            async def publish(seq: int) -> int:
                update = common_pb2.Update(game_id="g1", seq=seq, frame_json=f'{{"seq":{seq}}}')
                return int(await client.publish(keys.channel("g1"), update.SerializeToString()))

            await _until(lambda: hub.subscription is not None and hub.subscription.connected, "connected")
            # Subscribed once confirmed: the update is published to one subscriber, the hub.
            async with asyncio.timeout(10):
                while await publish(1) == 0:
                    await asyncio.sleep(0.02)
            await _until(lambda: 1 in seen, "the update delivered")
            clients = await client.client_list()
            assert [c for c in clients if c["name"] == NAME], "the hub's connection is named in CLIENT LIST"
            # The connection breaks (as when Redis restarts): made again, every channel subscribed
            # anew, and the followers told to catch up.
            killed = await client.client_kill_filter(_type="pubsub")
            assert killed >= 1
            await _until(lambda: recovered, "the games followed told to catch up")
            assert await publish(2) == 1
            await _until(lambda: 2 in seen, "an update after the break delivered")
            # A game no longer followed is unsubscribed: its updates no longer reach the gateway.
            (listener,) = hub.listeners["g1"].players
            await hub.unfollow("g1", listener)
            async with asyncio.timeout(10):
                while await publish(3) != 0:
                    await asyncio.sleep(0.02)
            assert 3 not in seen
        finally:
            await hub.stop()
            await client.aclose()

    asyncio.run(scenario())


def test_following_returns_once_redis_has_confirmed_the_game_s_channel(redis_url: str) -> None:
    """Followed while the hub's connection is not yet up, a game's follow waits; it returns once
    the connection is made and the channel confirmed, and the next update then has a subscriber."""

    async def scenario() -> None:
        client = redis.Redis.from_url(redis_url)
        keys = Keys("test-hub-confirm:")
        hub = UpdateHub(client, keys)
        try:
            following = asyncio.create_task(hub.follow("g1", lambda update, text: None))
            # A round trip to Redis later, the follow still waits: nothing was confirmed.
            await client.ping()
            assert not following.done()
            await hub.start()
            async with asyncio.timeout(10):
                await following
            update = common_pb2.Update(game_id="g1", seq=1, frame_json="{}")
            assert await client.publish(keys.channel("g1"), update.SerializeToString()) == 1
        finally:
            await hub.stop()
            await client.aclose()

    asyncio.run(scenario())
