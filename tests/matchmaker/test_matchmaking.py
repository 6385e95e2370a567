"""The matchmaker's state in Redis, on a Redis of the test's own: Find Match pairs in one Lua
script (nobody twice, nobody with themself, nobody waiting beside another player in the same
mode), places lapse when nobody keeps them, rooms say what became of them, join attempts are
limited per device and per address, and the most played modes are the popular ones."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis

from boxedin.common.keys import Keys
from boxedin.common.reasons import Refusal
from boxedin.matchmaker.popularity import Popularity
from boxedin.matchmaker.queue import LAPSE_SECONDS, MatchQueue
from boxedin.matchmaker.rooms import Rooms

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

KEYS = Keys("test-matchmaking:")


def on_redis(scenario: Callable[[aioredis.Redis], Awaitable[None]]) -> Callable[[str], None]:
    """A test that runs ``scenario`` against the module's own Redis, emptied first."""

    def test(redis_url: str) -> None:
        async def run() -> None:
            # Calls made at once wait for one of a few connections, as in the services.
            client = aioredis.Redis(
                connection_pool=aioredis.BlockingConnectionPool.from_url(redis_url, max_connections=32)
            )
            try:
                await client.flushdb()  # the test's own Redis, started above
                await scenario(client)
            finally:
                await client.aclose()

        asyncio.run(run())

    test.__name__, test.__doc__ = scenario.__name__, scenario.__doc__
    return test


@on_redis
async def test_two_hundred_players_at_once_in_one_mode_make_a_hundred_pairs(client: aioredis.Redis) -> None:
    queue = MatchQueue(client, KEYS)
    devices = [f"device-{n:03}" for n in range(200)]
    results = await asyncio.gather(*(queue.find(device, f"P{n}", "mini") for n, device in enumerate(devices)))
    pairs = [(waiting.device, device) for device, waiting in zip(devices, results, strict=True) if waiting]
    assert len(pairs) == 100
    seen = Counter(device for pair in pairs for device in pair)
    assert set(seen) == set(devices) and set(seen.values()) == {1}  # everybody once, nobody twice
    assert all(a != b for a, b in pairs)  # nobody with themself
    assert await queue.modes_waiting() == set()


@on_redis
async def test_nobody_waits_while_another_player_waits_in_the_same_mode(client: aioredis.Redis) -> None:
    queue = MatchQueue(client, KEYS)
    assert await queue.find("ann", "Ann", "mini") is None
    assert await queue.find("cat", "Cat", "quick") is None  # another mode: both wait
    assert await queue.modes_waiting() == {"mini", "quick"}
    paired = await queue.find("bob", "Bob", "mini")
    assert paired is not None and (paired.device, paired.name) == ("ann", "Ann")
    assert await queue.modes_waiting() == {"quick"}


@on_redis
async def test_looking_again_is_not_being_paired_with_yourself(client: aioredis.Redis) -> None:
    queue = MatchQueue(client, KEYS)
    assert await queue.find("ann", "Ann", "mini") is None
    assert await queue.find("ann", "Ann", "mini") is None
    assert await queue.find("ann", "Ann", "quick") is None  # moving to another mode gives up the first
    assert await queue.modes_waiting() == {"quick"} and await queue.waiting_in("ann") == "quick"


@on_redis
async def test_a_place_nobody_keeps_lapses_and_is_never_paired(client: aioredis.Redis) -> None:
    queue = MatchQueue(client, KEYS)
    assert await queue.find("ghost", "Ghost", "mini") is None
    entry = (await client.hget(KEYS.waiting(), "mini")).decode()
    stale = round((time.time() - LAPSE_SECONDS - 1) * 1000)
    await client.hset(KEYS.waiting(), "mini", entry.rsplit("\t", 1)[0] + f"\t{stale}")
    assert await queue.modes_waiting() == set()
    assert await queue.find("bob", "Bob", "mini") is None  # Bob waits now, in the ghost's stead
    assert await queue.waiting_in("bob") == "mini"


@on_redis
async def test_a_kept_place_stays_and_a_cancelled_one_goes(client: aioredis.Redis) -> None:
    queue = MatchQueue(client, KEYS)
    await queue.find("ann", "Ann", "mini")
    assert await queue.keep(["ann", "nobody"]) == 1
    assert await queue.cancel("ann") is True
    assert await queue.cancel("ann") is False
    assert await queue.find("bob", "Bob", "mini") is None


@on_redis
async def test_a_paired_player_whose_game_could_not_start_is_put_back(client: aioredis.Redis) -> None:
    queue = MatchQueue(client, KEYS)
    await queue.find("ann", "Ann", "mini")
    paired = await queue.find("bob", "Bob", "mini")
    assert paired is not None
    assert await queue.put_back("mini", paired)
    assert await queue.waiting_in("ann") == "mini"


# --- rooms ----------------------------------------------------------------------------------------


async def reason_of(call: object) -> str:
    with pytest.raises(Refusal) as refused:
        await call  # type: ignore[misc]
    return refused.value.reason


@on_redis
async def test_a_room_is_joined_once(client: aioredis.Redis) -> None:
    rooms = Rooms(client, KEYS)
    room = await rooms.create("ann", "Ann", "strategic", "territory")
    assert room.expires == pytest.approx(time.time() + 30 * 60, abs=5)
    assert await rooms.open_room("ann") == room
    assert await reason_of(rooms.join(room.code, "ann", "10.0.0.1")) == "own_room"
    joined = await rooms.join(room.code, "bob", "10.0.0.2")
    assert (joined.device, joined.name, joined.mode, joined.overlap) == ("ann", "Ann", "strategic", "territory")
    assert await reason_of(rooms.join(room.code, "cat", "10.0.0.3")) == "room_full"
    assert await rooms.open_room("ann") is None


@on_redis
async def test_a_new_room_closes_the_one_before(client: aioredis.Redis) -> None:
    rooms = Rooms(client, KEYS)
    first = await rooms.create("ann", "Ann", "mini", "")
    second = await rooms.create("ann", "Ann", "quick", "")
    assert await reason_of(rooms.join(first.code, "bob", "10.0.0.2")) == "room_closed"
    assert await rooms.open_room("ann") == second


@on_redis
async def test_a_room_whose_game_did_not_start_opens_again(client: aioredis.Redis) -> None:
    rooms = Rooms(client, KEYS)
    room = await rooms.create("ann", "Ann", "mini", "")
    await rooms.join(room.code, "bob", "10.0.0.2")
    await rooms.reopen(room.code, "bob")
    assert (await rooms.join(room.code, "cat", "10.0.0.3")).device == "ann"


@on_redis
async def test_join_attempts_are_limited_per_device_and_per_address(client: aioredis.Redis) -> None:
    rooms = Rooms(client, KEYS, tries_per_device=10, tries_per_address=30)
    for _ in range(10):
        assert await reason_of(rooms.join("ZZZZZZ", "guesser", "10.0.0.9")) == "no_room"
    assert await reason_of(rooms.join("ZZZZZZ", "guesser", "10.0.0.9")) == "too_many_tries"
    # Thirty from one address, over several devices, and the address is stopped too.
    for n in range(29):
        await reason_of(rooms.join("ZZZZZZ", f"device-{n // 9}", "10.0.0.7"))
    assert await reason_of(rooms.join("ZZZZZZ", "device-new", "10.0.0.7")) == "no_room"  # the 30th
    assert await reason_of(rooms.join("ZZZZZZ", "device-newer", "10.0.0.7")) == "too_many_tries"
    # ... while a room made meanwhile still opens from elsewhere.
    room = await rooms.create("ann", "Ann", "mini", "")
    assert (await rooms.join(room.code, "bob", "10.0.0.8")).device == "ann"


# --- popularity -----------------------------------------------------------------------------------


@on_redis
async def test_the_modes_played_most_in_the_last_seven_days_are_popular(client: aioredis.Redis) -> None:
    popularity = Popularity(client, KEYS)
    now = time.time()
    day = 24 * 3600
    for mode, games, days_ago in [
        ("classic", 5, 1), ("mini", 4, 0), ("quick", 3, 6), ("expert", 2, 2), ("marathon", 50, 8),
    ]:  # fmt: skip
        for _ in range(games):
            await popularity.count_game(mode, now - days_ago * day)
    assert (await popularity.played(now))["classic"] == 5 and "marathon" not in await popularity.played(now)
    assert await popularity.popular(now) == {"classic", "mini", "quick"}
