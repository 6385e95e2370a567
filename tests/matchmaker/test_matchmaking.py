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


class Clock:
    """The moment the rooms see, moved by the test (epoch seconds)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def wrong_guesses(rooms: Rooms, device: str, address: str, count: int) -> list[str]:
    return [await reason_of(rooms.join("ZZZZZZ", device, address)) for _ in range(count)]


@on_redis
async def test_no_more_than_ten_wrong_guesses_get_through_in_any_minute(client: aioredis.Redis) -> None:
    """Around the clock's minute boundary, as anywhere: the minute slides."""
    clock = Clock(1_000_020.0)  # 40 s before a minute of the clock begins
    rooms = Rooms(client, KEYS, tries_per_device=10, tries_per_address=100, clock=clock)
    assert await wrong_guesses(rooms, "guesser", "10.0.0.9", 10) == ["no_room"] * 10
    clock.now += 45  # past the clock's minute boundary: a calendar minute would start again here
    assert await wrong_guesses(rooms, "guesser", "10.0.0.9", 3) == ["too_many_tries"] * 3
    clock.now += 14.9  # 59.9 s after the first ten
    assert await reason_of(rooms.join("ZZZZZZ", "guesser", "10.0.0.9")) == "too_many_tries"
    clock.now += 0.2  # a minute after them: they have slid out of the window
    assert await wrong_guesses(rooms, "guesser", "10.0.0.9", 11) == ["no_room"] * 10 + ["too_many_tries"]


@on_redis
async def test_only_wrong_guesses_count(client: aioredis.Redis) -> None:
    """The right code of a room (one's own, one somebody joined first) is no guess: a device that
    made no wrong guess is never refused for its own attempts."""
    rooms = Rooms(client, KEYS, tries_per_device=2, tries_per_address=100)
    room = await rooms.create("ann", "Ann", "mini", "")
    assert [await reason_of(rooms.join(room.code, "ann", "10.0.0.1")) for _ in range(5)] == ["own_room"] * 5
    assert (await rooms.join(room.code, "bob", "10.0.0.2")).device == "ann"
    assert [await reason_of(rooms.join(room.code, "cat", "10.0.0.3")) for _ in range(5)] == ["room_full"] * 5
    # A closed room's code is a wrong guess (nobody can join it).
    closed = await rooms.create("dan", "Dan", "mini", "")
    await rooms.close("dan")
    assert await reason_of(rooms.join(closed.code, "cat", "10.0.0.3")) == "room_closed"
    assert await wrong_guesses(rooms, "cat", "10.0.0.3", 2) == ["no_room", "too_many_tries"]


@on_redis
async def test_a_friend_with_the_right_code_gets_in_after_thirty_wrong_codes_from_the_same_address(
    client: aioredis.Redis,
) -> None:
    rooms = Rooms(client, KEYS, tries_per_device=10, tries_per_address=100)
    for n in range(3):
        assert await wrong_guesses(rooms, f"guesser-{n}", "10.0.0.7", 10) == ["no_room"] * 10
    room = await rooms.create("ann", "Ann", "mini", "")
    assert (await rooms.join(room.code, "friend", "10.0.0.7")).device == "ann"


@on_redis
async def test_a_guesser_changing_devices_gets_no_more_than_the_address_ceiling(client: aioredis.Redis) -> None:
    clock = Clock(2_000_000.0)
    rooms = Rooms(client, KEYS, tries_per_device=10, tries_per_address=30, clock=clock)
    outcomes: Counter[str] = Counter()
    for n in range(60):  # a fresh device for every guess
        outcomes[await reason_of(rooms.join("ZZZZZZ", f"device-{n}", "10.0.0.7"))] += 1
        clock.now += 0.5
    assert outcomes == {"no_room": 30, "too_many_tries": 30}
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
