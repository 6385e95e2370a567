"""The figures the engine works out for operators, on a real Redis: "Games now" counts the games
being played (an unfinished game a player's socket follows, or an unfinished online game, whose
players are away in their grace when nobody follows it), and a game that ends leaves it at once;
players online are devices; the computer turns waiting are those no AI replica is playing, and
the finished games waiting are those not yet counted, each with the oldest one's age."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import redis.asyncio as redis

from boxedin.common import presence
from boxedin.common.keys import AI_GROUP, Keys, partition_of
from boxedin.engine.service import backlog
from boxedin.engine.service.figures import FIGURE_MODES, FiguresLoop
from boxedin.engine.service.store import GameStore

T = TypeVar("T")
PARTITIONS = 4


def run(test: Callable[[redis.Redis, Keys], Awaitable[T]], redis_url: str, prefix: str) -> T:
    async def main() -> T:
        client = redis.Redis.from_url(redis_url)
        try:
            return await test(client, Keys(prefix, PARTITIONS))
        finally:
            await client.aclose()

    return asyncio.run(main())


async def start(client: redis.Redis, keys: Keys, game_id: str, mode: str, *, online: bool = False) -> None:
    """What a commit that starts a game writes to the running sets (store.py, _COMMIT)."""
    partition = partition_of(game_id, keys.partitions)
    now_ms = round(time.time() * 1000)
    await client.zadd(keys.running(partition, mode), {game_id: now_ms})
    if online:
        await client.zadd(keys.running_online(partition, mode), {game_id: now_ms})


async def end(client: redis.Redis, keys: Keys, game_id: str, mode: str) -> None:
    """What the commit that ends a game does to the running sets."""
    partition = partition_of(game_id, keys.partitions)
    await client.zrem(keys.running(partition, mode), game_id)
    await client.zrem(keys.running_online(partition, mode), game_id)


async def follow(client: redis.Redis, keys: Keys, gateway: str, devices: int, *games: str) -> None:
    """A gateway's presence report: its devices, and the games its sockets follow."""
    await presence.report(client, keys, gateway, devices)
    await presence.report_following(client, keys, gateway, list(games))


async def games_now(client: redis.Redis, keys: Keys, loop: FiguresLoop | None = None) -> dict[str, int]:
    now, _ = await (loop or FiguresLoop(GameStore(client, keys))).games()
    return {mode: count for mode, count in now.items() if count}


def test_a_game_counts_while_a_player_follows_it_and_an_abandoned_ai_game_does_not(redis_url: str) -> None:
    async def test(client: redis.Redis, keys: Keys) -> None:
        await start(client, keys, "mini-followed", "mini")
        await start(client, keys, "mini-on-another-gateway", "mini")
        await start(client, keys, "classic-followed", "classic")
        # Two AI games whose players closed their page: unfinished, followed by nobody.
        await start(client, keys, "abandoned-1", "chain_reaction")
        await start(client, keys, "abandoned-2", "quick")
        await follow(client, keys, "gateway-a", 2, "mini-followed", "classic-followed")
        await follow(client, keys, "gateway-b", 1, "mini-on-another-gateway")
        assert await games_now(client, keys) == {"mini": 2, "classic": 1}
        # One loop going round, as every engine replica's does: it looks for a game it found
        # once in that game's mode alone, and its figures are the same as a fresh one's.
        loop = FiguresLoop(GameStore(client, keys))
        assert await games_now(client, keys, loop) == {"mini": 2, "classic": 1}
        # A followed game that ended is no longer played (the socket still shows its result).
        await end(client, keys, "classic-followed", "classic")
        assert await games_now(client, keys, loop) == await games_now(client, keys) == {"mini": 2}
        # A game followed from now on counts in its own mode.
        await start(client, keys, "quick-followed", "quick")
        await follow(client, keys, "gateway-a", 2, "mini-followed", "classic-followed", "quick-followed")
        assert await games_now(client, keys, loop) == await games_now(client, keys) == {"mini": 2, "quick": 1}
        # A gateway that stops takes its games with it.
        await presence.withdraw(client, keys, "gateway-b")
        assert await games_now(client, keys, loop) == await games_now(client, keys) == {"mini": 1, "quick": 1}

    run(test, redis_url, "figures-followed:")


def test_an_online_game_counts_while_its_players_are_away_in_their_grace(redis_url: str) -> None:
    async def test(client: redis.Redis, keys: Keys) -> None:
        await start(client, keys, "online-both-away", "standard", online=True)
        await start(client, keys, "online-followed", "standard", online=True)
        await follow(client, keys, "gateway-a", 1, "online-followed")
        now, online = await FiguresLoop(GameStore(client, keys)).games()
        # Followed or not, each counts once.
        assert now["standard"] == online["standard"] == 2
        # The grace ran out: the forfeit ends the game, and it leaves at once.
        await end(client, keys, "online-both-away", "standard")
        now, online = await FiguresLoop(GameStore(client, keys)).games()
        assert now["standard"] == online["standard"] == 1
        assert set(now) == set(FIGURE_MODES)

    run(test, redis_url, "figures-online:")


def test_players_online_are_devices_and_a_lapsed_gateway_is_dropped(redis_url: str) -> None:
    async def test(client: redis.Redis, keys: Keys) -> None:
        await follow(client, keys, "gateway-a", 2)
        await follow(client, keys, "gateway-b", 1)
        assert await presence.players_online(client, keys) == 3
        # A gateway that died: its report lapsed, and its followed games went with it.
        lapsed = round((time.time() - 1) * 1000)
        await client.hset(keys.presence(), "gateway-b", f"1:{lapsed}")
        assert await presence.players_online(client, keys) == 2
        await start(client, keys, "on-a-dead-gateway", "mini")
        await presence.report_following(client, keys, "gateway-c", ["on-a-dead-gateway"])
        await client.hset(keys.presence(), "gateway-c", f"1:{lapsed}")
        assert await games_now(client, keys) == {}

    run(test, redis_url, "figures-players:")


async def write_turn(client: redis.Redis, keys: Keys, partition: int, written_ms: int) -> bytes:
    return await client.xadd(keys.work(partition), {"job": b"turn"}, id=f"{written_ms}-0")


def test_turns_waiting_are_those_no_ai_replica_plays(redis_url: str) -> None:
    async def test(client: redis.Redis, keys: Keys) -> None:
        now = time.time()
        ms = round(now * 1000)
        # Partition 0: no AI replica ever read it; both turns wait, the oldest for 12 s.
        await write_turn(client, keys, 0, ms - 12_000)
        await write_turn(client, keys, 0, ms - 3_000)
        # Partition 1: one turn an AI replica plays now (read, fresh), one not read yet (5 s).
        playing = await write_turn(client, keys, 1, ms - 20_000)
        await client.xgroup_create(keys.work(1), AI_GROUP, id="0")
        await client.xreadgroup(AI_GROUP, "ai-1", {keys.work(1): ">"}, count=1)
        await write_turn(client, keys, 1, ms - 5_000)
        # Partition 2: a turn read by a replica that stopped (not renewed for the claim idle).
        await write_turn(client, keys, 2, ms - 30_000)
        await client.xgroup_create(keys.work(2), AI_GROUP, id="0")
        await client.xreadgroup(AI_GROUP, "ai-gone", {keys.work(2): ">"}, count=1)
        await asyncio.sleep(0.3)
        # The replica that plays partition 1's turn keeps it fresh (as TurnPlayer._keep_fresh).
        await client.xclaim(keys.work(1), AI_GROUP, "ai-1", 0, [playing], justid=True)
        found = await backlog.computer_turns_waiting(client, keys, 0.2, now)
        assert [b.waiting for b in found] == [2, 1, 1, 0]
        assert [round(b.oldest_seconds) for b in found] == [12, 5, 30, 0]
        # With a longer claim idle, partition 2's turn is still being played.
        found = await backlog.computer_turns_waiting(client, keys, 60.0, now)
        assert [b.waiting for b in found] == [2, 1, 0, 0]

    run(test, redis_url, "figures-turns:")


def test_finished_games_waiting_are_those_not_yet_counted(redis_url: str) -> None:
    async def test(client: redis.Redis, keys: Keys) -> None:
        now = time.time()
        ms = round(now * 1000)
        await client.xadd(keys.finished(3), {"game": b"g"}, id=f"{ms - 70_000}-0")
        await client.xadd(keys.finished(3), {"game": b"g"}, id=f"{ms - 1_000}-0")
        found = await backlog.games_not_counted(client, keys, now)
        assert [b.waiting for b in found] == [0, 0, 0, 2]
        assert round(found[3].oldest_seconds) == 70 and found[0].oldest_seconds == 0

    run(test, redis_url, "figures-finished:")
