"""Players online, as the gateways report them: each gateway writes its count of connected
devices to one Redis hash with the moment the report lapses, so the total over the live
gateways heals by itself when a gateway dies. Written by the gateways, read by the Presence
service (and the operator's page); numbers only, no device is named."""

from __future__ import annotations

import time
from collections.abc import Collection
from typing import cast

import redis.asyncio as redis

from .keys import Keys

# A gateway reports every REPORT_SECONDS; a report not renewed for LAPSE_SECONDS is dropped.
REPORT_SECONDS = 3.0
LAPSE_SECONDS = 6.0


async def report(client: redis.Redis, keys: Keys, gateway: str, devices: int) -> None:
    lapses = round((time.time() + LAPSE_SECONDS) * 1000)
    await client.hset(keys.presence(), gateway, f"{devices}:{lapses}")


async def report_following(client: redis.Redis, keys: Keys, gateway: str, games: Collection[str]) -> None:
    """The games this gateway's sockets follow now: the set is written anew, to lapse with the
    gateway's presence report if it is not renewed."""
    key = keys.following(gateway)
    async with client.pipeline(transaction=True) as pipe:
        pipe.delete(key)
        if games:
            pipe.sadd(key, *games)
            pipe.pexpire(key, round(LAPSE_SECONDS * 1000))
        await pipe.execute()


async def withdraw(client: redis.Redis, keys: Keys, gateway: str) -> None:
    await client.hdel(keys.presence(), gateway)
    await client.delete(keys.following(gateway))


async def games_followed(client: redis.Redis, keys: Keys) -> set[str]:
    """The games some socket follows now, over every live gateway (a dead one's set lapses)."""
    raw = cast("dict[bytes, bytes]", await client.hgetall(keys.presence()))
    now = time.time() * 1000
    gateways = [gateway for gateway, value in raw.items() if int(value.decode().split(":")[1]) >= now]
    if not gateways:
        return set()
    async with client.pipeline(transaction=False) as pipe:
        for gateway in gateways:
            pipe.smembers(keys.following(gateway.decode()))
        sets = cast("list[set[bytes]]", await pipe.execute())
    return {game.decode() for members in sets for game in members}


async def players_online(client: redis.Redis, keys: Keys) -> int:
    """Devices connected over every live gateway; reports of dead gateways are dropped."""
    raw = cast("dict[bytes, bytes]", await client.hgetall(keys.presence()))
    now = time.time() * 1000
    total, lapsed = 0, []
    for gateway, value in raw.items():
        count, until = value.decode().split(":")
        if int(until) < now:
            lapsed.append(gateway)
        else:
            total += int(count)
    if lapsed:
        await client.hdel(keys.presence(), *lapsed)
    return total
