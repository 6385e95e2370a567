"""`boxedin stats bench`: how fast one stats replica counts finished games, beside the same games
applied in memory alone (the model, no Redis: the ceiling), and the time from a game's end to
its being counted while games finish at a steady rate. Uses a Redis of its own."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import time
from typing import Any

import redis.asyncio as redis

from boxedin.common.choices import LEVELS
from boxedin.common.devices import device_hash
from boxedin.common.keys import Keys, partition_of
from boxedin.engine import codec
from boxedin.engine.actions import Draw, EndTurn, GameError, Resign, Roll
from boxedin.engine.game import Game
from boxedin.engine.rules import mode_by_id
from boxedin.stats.counter import GameCounter
from boxedin.stats.model import DeviceStats, apply_game, game_outcome
from boxedin.stats.store import StatsStore
from boxedin.v1 import common_pb2


def random_game(rng: random.Random, mode: str) -> Game:
    """A whole game of random legal moves (now and then resigned), as fast as the engine goes."""
    game = Game(mode_by_id(mode).rules, mode=mode_by_id(mode), first=rng.choice((1, 2)), seed=str(rng.random()))
    while not game.over:
        if rng.random() < 0.002:
            game.apply(Resign(game.to_move or 1))
            break
        if game.phase == "roll":
            game.apply(Roll())
            continue
        if game.can_end_turn and rng.random() < 0.3:
            game.apply(EndTurn())
            continue
        edges = game.position.open_edge_list()
        try:
            game.apply(Draw(game.geo.edges[rng.choice(edges)]))
        except GameError:
            game.apply(EndTurn())
    return game


def finished_games(count: int, devices: int, seed: int) -> list[tuple[str, common_pb2.FinishedGame]]:
    rng = random.Random(seed)
    tokens = [f"bench-device-{n:05d}-{secrets.token_hex(6)}" for n in range(devices)]
    games = []
    now = time.time()
    for n in range(count):
        device = device_hash(rng.choice(tokens))
        game = random_game(rng, rng.choice(("mini", "mini", "classic", "standard")))
        level = rng.choice(LEVELS)
        seconds = rng.uniform(30, 900)
        finished = common_pb2.FinishedGame(
            game_id=f"g_bench{n:06d}{secrets.token_hex(4)}",
            record=codec.encode(game),
            seats=[
                common_pb2.SeatInfo(kind="human", device=device, name="You"),
                common_pb2.SeatInfo(kind="ai", level=level, name=level),
            ],
            created=now - seconds,
            ended=now,
        )
        games.append((device, finished))
    return games


def in_memory(games: list[tuple[str, common_pb2.FinishedGame]]) -> float:
    stats: dict[str, DeviceStats] = {}
    started = time.perf_counter()
    for device, finished in games:
        apply_game(stats.setdefault(device, DeviceStats()), game_outcome(finished, device), finished.ended)
    return len(games) / (time.perf_counter() - started)


async def through_redis(url: str, games: list[tuple[str, common_pb2.FinishedGame]], rate: float) -> dict[str, Any]:
    client = redis.Redis.from_url(url)
    keys = Keys(f"stats-bench-{secrets.token_hex(3)}:", 16)
    store = StatsStore(client, keys)
    counter = GameCounter(client, keys, store)
    await counter.start()
    lags: list[float] = []
    counted = 0
    counting = counter.count_game

    async def timed(finished: common_pb2.FinishedGame) -> bool:
        nonlocal counted
        done = await counting(finished)
        lags.append(time.time() - finished.ended)
        counted += 1
        return done

    counter.count_game = timed  # type: ignore[method-assign]
    try:
        # Throughput: the whole backlog written at once, counted as fast as one replica can.
        async with client.pipeline(transaction=False) as pipe:
            for _, finished in games:
                pipe.xadd(keys.finished(partition_of(finished.game_id, 16)), {"game": finished.SerializeToString()})
            await pipe.execute()
        started = time.perf_counter()
        while counted < len(games):
            await asyncio.sleep(0.01)
        per_second = len(games) / (time.perf_counter() - started)
        # Lag: games finishing at a steady rate, each written the moment it ends.
        lags.clear()
        steady = games[: min(len(games), int(rate * 10))]
        counted = 0
        for _, finished in steady:
            again = common_pb2.FinishedGame()
            again.CopyFrom(finished)
            again.game_id += "-steady"
            again.ended = time.time()
            await client.xadd(keys.finished(partition_of(again.game_id, 16)), {"game": again.SerializeToString()})
            await asyncio.sleep(1 / rate)
        while counted < len(steady):
            await asyncio.sleep(0.01)
        lags.sort()
        return {
            "games_per_second": round(per_second, 1),
            "lag_ms": {
                "games": len(lags),
                "rate_per_second": rate,
                "p50": round(lags[len(lags) // 2] * 1000, 1),
                "p99": round(lags[min(len(lags) - 1, int(len(lags) * 0.99))] * 1000, 1),
            },
        }
    finally:
        await counter.stop()
        await client.aclose()


def run(args: argparse.Namespace) -> int:
    from boxedin.supervisor.launcher import Stack

    if args.games < 1 or args.devices < 1 or args.rate <= 0:
        print("boxedin stats bench: --games, --devices and --rate are above 0", file=sys.stderr)
        return 2
    print(f"making {args.games} finished games...", file=sys.stderr)
    games = finished_games(args.games, args.devices, args.seed)
    memory = in_memory(games)
    own_redis = Stack()
    try:
        own_redis.start_redis()
        print("counting them through Redis...", file=sys.stderr)
        measured = asyncio.run(through_redis(str(own_redis.redis_url), games, args.rate))
    finally:
        own_redis.stop()
    figures = {"games": args.games, "devices": args.devices, "in_memory_games_per_second": round(memory, 1)}
    print(json.dumps(figures | measured))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("stats", help="the statistics: benchmark")
    commands = parser.add_subparsers(dest="stats_command", required=True, metavar="COMMAND")
    bench = commands.add_parser("bench", help="games counted per second by one stats replica, and the lag")
    bench.add_argument("--games", type=int, default=10_000, help="finished games to count (default 10000)")
    bench.add_argument("--devices", type=int, default=200, help="devices they are spread over (default 200)")
    bench.add_argument("--rate", type=float, default=100.0, help="games a second for the lag (default 100)")
    bench.add_argument("--seed", type=int, default=1)
    bench.set_defaults(handler=run)
