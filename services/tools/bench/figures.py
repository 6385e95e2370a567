"""`boxedin figures bench`: what the engine's figures cost in Redis. "Games now" (the games a
socket follows or online in their grace, worked out for every GetFigures call and every round
of the figures loop) beside the figure it replaced (a count of the games with a move in the last
30 minutes, the baseline), and the measure of the work and finished-games streams, on a Redis of
its own filled with running games, followed games over several gateways, and waiting entries.
Three runs, each the median of its rounds, so that the spread shows."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as redis

from boxedin.common import presence
from boxedin.common.keys import AI_GROUP, Keys, partition_of
from boxedin.engine.service.figures import FIGURE_MODES, FiguresLoop
from boxedin.engine.service.store import GameStore

RUNS = 3


async def fill(client: redis.Redis, keys: Keys, args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    now_ms = round(time.time() * 1000)
    games = [f"g_bench{n:07d}" for n in range(args.games)]
    async with client.pipeline(transaction=False) as pipe:
        for game_id in games:
            partition, mode = partition_of(game_id, keys.partitions), rng.choice(FIGURE_MODES)
            moved = now_ms - rng.randrange(3_600_000)
            pipe.zadd(keys.running(partition, mode), {game_id: moved})
            if rng.random() < args.online_share:
                pipe.zadd(keys.running_online(partition, mode), {game_id: moved})
        await pipe.execute()
    await report(client, keys, args)
    for stream in keys.work_streams():
        for n in reversed(range(args.waiting)):
            await client.xadd(stream, {"job": b"turn"}, id=f"{now_ms - 1000 * (n + 1)}-0")
        await client.xgroup_create(stream, AI_GROUP, id="0")
    for stream in keys.finished_streams():
        for n in reversed(range(args.waiting)):
            await client.xadd(stream, {"game": b"game"}, id=f"{now_ms - 1000 * (n + 1)}-0")


async def report(client: redis.Redis, keys: Keys, args: argparse.Namespace) -> None:
    """Each gateway's presence report with the games it follows, as a gateway makes it (renewed
    before each measure: a report lapses after 6 s)."""
    followed = random.Random(args.seed).sample(range(args.games), min(args.followed, args.games))
    for gateway in range(args.gateways):
        games = [f"g_bench{n:07d}" for n in followed[gateway :: args.gateways]]
        await presence.report(client, keys, f"gateway-{gateway}", len(games))
        await presence.report_following(client, keys, f"gateway-{gateway}", games)


async def previous_games_now(store: GameStore) -> dict[str, int]:
    """The figure "Games now" was before issue 28: unfinished games with a move in the last 30
    minutes (the baseline)."""
    since = round((time.time() - 30 * 60) * 1000)
    stale = round((time.time() - 24 * 3600) * 1000)
    async with store.redis.pipeline(transaction=False) as pipe:
        for mode in FIGURE_MODES:
            for partition in range(store.keys.partitions):
                key = store.keys.running(partition, mode)
                pipe.zremrangebyscore(key, "-inf", stale)
                pipe.zcount(key, since, "+inf")
        counts = await pipe.execute()
    per_mode = store.keys.partitions * 2
    return {mode: sum(counts[i * per_mode + 1 : (i + 1) * per_mode : 2]) for i, mode in enumerate(FIGURE_MODES)}


async def median_ms(work: Callable[[], Awaitable[Any]], rounds: int, before: Callable[[], Awaitable[None]]) -> float:
    await before()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    client = redis.Redis.from_url(url)
    keys = Keys("bench-figures:", args.partitions)
    try:
        await client.flushdb()
        await fill(client, keys, args)
        store = GameStore(client, keys, line=False)
        loop = FiguresLoop(store)
        runs: dict[str, list[float]] = {"previous_games_now_ms": [], "games_now_ms": [], "streams_ms": []}
        for _ in range(RUNS):
            # The three in turn within each run, so that a busy moment falls on all of them.
            renew = functools.partial(report, client, keys, args)
            runs["previous_games_now_ms"].append(await median_ms(lambda: previous_games_now(store), args.rounds, renew))
            runs["games_now_ms"].append(await median_ms(loop.games, args.rounds, renew))
            runs["streams_ms"].append(await median_ms(loop.measure_streams, args.rounds, renew))
        await report(client, keys, args)
        now, _ = await loop.games()
        return {
            "games_now": sum(now.values()),
            **{name: [round(value, 2) for value in values] for name, values in runs.items()},
            **{name.replace("_ms", "_spread_ms"): round(max(values) - min(values), 2) for name, values in runs.items()},
        }
    finally:
        await client.aclose()


def run(args: argparse.Namespace) -> int:
    from boxedin.supervisor.launcher import Stack

    if min(args.games, args.gateways, args.rounds, args.partitions) < 1 or args.followed < 0 or args.waiting < 0:
        print("boxedin figures bench: --games, --gateways, --rounds and --partitions are above 0", file=sys.stderr)
        return 2
    own_redis = Stack()
    try:
        own_redis.start_redis()
        measured = asyncio.run(measure(str(own_redis.redis_url), args))
    finally:
        own_redis.stop()
    settings = {key: getattr(args, key) for key in ("games", "followed", "gateways", "partitions", "waiting")}
    print(json.dumps(settings | measured))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("figures", help="the engine's operator figures: benchmark")
    commands = parser.add_subparsers(dest="figures_command", required=True, metavar="COMMAND")
    bench = commands.add_parser("bench", help="what Games now and the streams' measure cost, against the old figure")
    bench.add_argument("--games", type=int, default=20_000, help="running games (default 20000)")
    bench.add_argument("--followed", type=int, default=5_000, help="games a socket follows (default 5000)")
    bench.add_argument("--gateways", type=int, default=4, help="gateways they are spread over (default 4)")
    bench.add_argument("--partitions", type=int, default=16, help="work partitions (default 16)")
    bench.add_argument("--waiting", type=int, default=5, help="entries waiting in each stream (default 5)")
    bench.add_argument("--online-share", type=float, default=0.2, help="share of online games (default 0.2)")
    bench.add_argument("--rounds", type=int, default=20, help="rounds a run, of which the median (default 20)")
    bench.add_argument("--seed", type=int, default=1)
    bench.set_defaults(handler=run)
