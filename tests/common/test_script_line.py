"""The commits' line (boxedin.common.script_line, issue 14 Capacity): script calls packed and read
with hiredis over one connection of its own, many at a time, on a Redis of the module's own. Where
the line cannot carry a call (no connection, the connection lost, the script unknown after a
restart) the game store makes it through redis-py, and no commit is lost or made twice."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
import uvloop
from redis.exceptions import ResponseError

from boxedin.common.keys import Keys
from boxedin.common.script_line import LINE_NAME, LineUnavailable, ScriptLine
from boxedin.engine.service.store import Commit, GameStore
from boxedin.engine.session.seats import Seat
from boxedin.engine.session.table import Table

# Answers each call with its own argument, so that replies can be told apart.
ECHO = "return ARGV[1]"
# Fails as a Lua error does.
FAILS = "return redis.error_reply('ERR the script says no')"


# The services run on uvloop (boxedin.common.event_loop), whose transports are not asyncio's
# classes; the line is tried on both loops.
LOOPS: dict[str, Callable[[Any], Any]] = {"asyncio": asyncio.run, "uvloop": uvloop.run}


def in_a_loop(scenario: Callable[[aioredis.Redis], Awaitable[None]]) -> Callable[[str, str], None]:
    """The test as pytest runs it: the scenario in an event loop of its own (of each kind), with
    a client of the module's Redis."""

    @pytest.mark.parametrize("loop", list(LOOPS))
    def test(redis_url: str, loop: str) -> None:
        async def run() -> None:
            client = aioredis.Redis.from_url(redis_url)
            try:
                await scenario(client)
            finally:
                await client.aclose()

        LOOPS[loop](run())

    test.__name__ = scenario.__name__
    return test


async def _line_connections(client: aioredis.Redis) -> list[dict[str, Any]]:
    return [c for c in await client.client_list() if c.get("name") == LINE_NAME]


async def _loaded(client: aioredis.Redis, source: str) -> Any:
    await client.script_load(source)
    return client.register_script(source)


@contextlib.asynccontextmanager
async def _a_line(client: aioredis.Redis) -> AsyncIterator[ScriptLine]:
    """A line to the client's Redis, closed after the test."""
    line = ScriptLine.for_client(client)
    assert line is not None
    try:
        yield line
    finally:
        line.close()


@in_a_loop
async def test_calls_made_at_once_each_get_their_own_reply_over_one_connection(client: aioredis.Redis) -> None:
    echo = await _loaded(client, ECHO)
    async with _a_line(client) as line:
        replies = await asyncio.gather(*(line.evalsha(echo, [], [f"call {i}"]) for i in range(200)))
        assert replies == [f"call {i}".encode() for i in range(200)]
        assert len(await _line_connections(client)) == 1


@in_a_loop
async def test_the_calls_of_one_turn_of_the_loop_go_out_in_one_write(client: aioredis.Redis) -> None:
    echo = await _loaded(client, ECHO)
    async with _a_line(client) as line:
        assert await line.evalsha(echo, [], ["connected"]) == b"connected"
        before = line.writes()
        # Fifty callers in one turn (their tasks' first steps), then fifty in a later one.
        first = [asyncio.ensure_future(line.evalsha(echo, [], [f"first {i}"])) for i in range(50)]
        await asyncio.sleep(0)
        second = [asyncio.ensure_future(line.evalsha(echo, [], [f"second {i}"])) for i in range(50)]
        assert await asyncio.gather(*first) == [f"first {i}".encode() for i in range(50)]
        assert await asyncio.gather(*second) == [f"second {i}".encode() for i in range(50)]
        assert line.writes() - before == 2


@in_a_loop
async def test_an_error_the_script_answers_is_redis_pys_error_and_the_line_goes_on(client: aioredis.Redis) -> None:
    fails, echo = await _loaded(client, FAILS), await _loaded(client, ECHO)
    async with _a_line(client) as line:
        with pytest.raises(ResponseError, match="the script says no"):
            await line.evalsha(fails, [], ["x"])
        assert await line.evalsha(echo, [], ["after"]) == b"after"


@in_a_loop
async def test_a_script_redis_does_not_know_is_left_to_redis_py(client: aioredis.Redis) -> None:
    never_loaded = client.register_script("return 'never loaded ' .. ARGV[1]")
    async with _a_line(client) as line:
        with pytest.raises(LineUnavailable, match="does not know the script"):
            await line.evalsha(never_loaded, [], ["x"])


@in_a_loop
async def test_a_call_whose_caller_gave_up_does_not_take_the_next_calls_reply(client: aioredis.Redis) -> None:
    echo = await _loaded(client, ECHO)
    async with _a_line(client) as line:
        assert await line.evalsha(echo, [], ["connected"]) == b"connected"
        first = asyncio.ensure_future(line.evalsha(echo, [], ["first"]))
        # Cancelled once written and waiting for its reply, before the reply is read.
        while not line.waiting_calls():
            await asyncio.sleep(0)
        first.cancel()
        assert await line.evalsha(echo, [], ["second"]) == b"second"
        assert first.cancelled()


@in_a_loop
async def test_a_lost_connection_fails_its_calls_and_the_next_call_connects_again(client: aioredis.Redis) -> None:
    echo = await _loaded(client, ECHO)
    async with _a_line(client) as line:
        assert await line.evalsha(echo, [], ["before"]) == b"before"
        [connection] = await _line_connections(client)
        await client.client_kill_filter(_id=connection["id"])
        # The call made as the connection goes is either answered or handed back to redis-py;
        # the one after it is carried on a new connection.
        with contextlib.suppress(LineUnavailable):
            await line.evalsha(echo, [], ["during"])
        assert await line.evalsha(echo, [], ["after"]) == b"after"
        [again] = await _line_connections(client)
        assert again["id"] != connection["id"]


def test_a_line_to_a_redis_that_is_not_there_hands_the_call_back_at_once() -> None:
    asyncio.run(_a_line_to_nowhere())


async def _a_line_to_nowhere() -> None:
    client = aioredis.Redis.from_url("redis://127.0.0.1:1/0")  # nothing listens on port 1
    echo = client.register_script(ECHO)
    async with _a_line(client) as line:
        with pytest.raises(LineUnavailable, match="cannot connect"):
            await line.evalsha(echo, [], ["x"])
        # Down for a moment: the next call does not wait on another attempt.
        with pytest.raises(LineUnavailable, match="the line is down"):
            await line.evalsha(echo, [], ["x"])
    await client.aclose()


def test_the_line_logs_in_as_the_clients_user_and_uses_its_database(redis_url: str) -> None:
    asyncio.run(_logs_in_and_selects(redis_url))


async def _logs_in_and_selects(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url)
    await client.acl_setuser(
        "line-user", enabled=True, passwords=["+line-secret"], keys=["*"], channels=["*"], commands=["+@all"]
    )
    host_port = redis_url.removeprefix("redis://").split("/")[0]
    other = aioredis.Redis.from_url(f"redis://line-user:line-secret@{host_port}/5")
    try:
        line = ScriptLine.for_client(other)
        assert line is not None
        setter = other.register_script("redis.call('SET', KEYS[1], ARGV[1]) return 1")
        await setter(keys=["line-test:loaded"], args=["x"])
        assert await line.evalsha(setter, ["line-test:db"], ["in five"]) == 1
        assert await other.get("line-test:db") == b"in five"
        assert await client.get("line-test:db") is None  # database 0 is untouched
        [connection] = await _line_connections(client)
        assert connection["user"] == "line-user" and connection["db"] == "5"
        line.close()
    finally:
        await other.aclose()
        await client.acl_deluser("line-user")
        await client.aclose()


def test_only_a_plain_tcp_client_gets_a_line() -> None:
    assert ScriptLine.for_client(aioredis.Redis.from_url("redis://127.0.0.1:6399/0")) is not None
    assert ScriptLine.for_client(aioredis.Redis.from_url("unix:///tmp/redis.sock")) is None
    assert ScriptLine.for_client(aioredis.Redis.from_url("rediss://127.0.0.1:6399/0")) is None


async def _commit_new(store: GameStore, game_id: str) -> int:
    """Stores a new game (expected seq -1): the commit's revision, or 0 if it exists already."""
    table = Table(seats=(Seat.person("device-one", "Player 1"), Seat.person("device-two", "Player 2")))
    return await store.commit(game_id, "classic", -1, b"the game", table, Commit())


@in_a_loop
async def test_a_commit_after_redis_forgot_its_scripts_is_made_through_redis_py(client: aioredis.Redis) -> None:
    store = GameStore(client, Keys(f"test-line-{secrets.token_hex(4)}:"))  # a prefix of each run's own
    try:
        first = await _commit_new(store, "line-game-1")
        assert first == 1
        await client.script_flush()  # as after a restart: the line's EVALSHA is answered NOSCRIPT
        assert await _commit_new(store, "line-game-2") == 1
        # The same game again is refused by the compare, whichever way the call went.
        assert await _commit_new(store, "line-game-2") == 0
        assert len(await _line_connections(client)) == 1
    finally:
        store.close()
