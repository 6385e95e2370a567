"""`boxedin memory`: what one game costs in Redis (docs/keys.md, Memory per game).

Starts a Redis, an engine and a stats service of its own, plays games of a mode between two seats
on one device (each a device of its own) through the engine, some to the end and as many left
half played, and prints the bytes of each kind of key a game leaves (`MEMORY USAGE`), per finished
and per running game, beside the growth of Redis's `used_memory`."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections import defaultdict
from typing import Any

import redis

from boxedin.common.devices import device_hash
from boxedin.common.keys import Keys
from boxedin.gateway.identity import issue
from boxedin.supervisor.launcher import Stack
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

PREFIX = "memory:"


async def play(engine: engine_pb2_grpc.EngineAsyncStub, device: str, mode: str, to_the_end: bool, seed: int) -> str:
    """A game between two seats on ``device``, drawing open edges in a seeded order; to the end
    or half way. Its id."""
    rng = random.Random(seed)
    snapshot = await engine.CreateGame(
        engine_pb2.CreateGameRequest(device=device, setup=common_pb2.GameSetup(mode=mode, opponent="local")),
        timeout=10,
    )
    game_id = snapshot.game_id
    state = json.loads(snapshot.state_json)
    total = state["open_edges"]
    while not state["over"] and (to_the_end or state["open_edges"] > total // 2):
        if state["phase"] == "roll":
            action = common_pb2.Action(roll=True)
        else:
            drawn = {(kind, row, col) for kind, row, col, _ in state["edges"]}
            edges = _open_edges(state["boxes"], drawn)
            kind, row, col = rng.choice(edges)
            action = common_pb2.Action(draw=common_pb2.Edge(orientation=kind, row=row, col=col))
        request = engine_pb2.ActRequest(
            game_id=game_id, device=device, actor=common_pb2.ACTOR_HUMAN, action=action, expected_seq=state["seq"]
        )
        await engine.Act(request, timeout=10)
        read = await engine.GetGame(engine_pb2.GetGameRequest(game_id=game_id, device=device), timeout=10)
        state = json.loads(read.state_json)
    return game_id


def _open_edges(boxes: int, drawn: set[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    every = [("h", r, c) for r in range(boxes + 1) for c in range(boxes)] + [
        ("v", r, c) for r in range(boxes) for c in range(boxes + 1)
    ]
    return [edge for edge in every if edge not in drawn]


def key_bytes(client: redis.Redis, keys: Keys, game_ids: list[str], devices: list[str]) -> dict[str, list[int]]:
    """The bytes of each kind of key of the games and their devices."""
    sizes: dict[str, list[int]] = defaultdict(list)
    for game_id in game_ids:
        for kind, name in (("game", keys.game(game_id)), ("updates stream", keys.updates(game_id))):
            sizes[kind].append(int(client.memory_usage(name, samples=0) or 0))
    for device in devices:
        hashed = device_hash(device)
        sizes["saved-game pointer"].append(int(client.memory_usage(keys.saved_game(hashed), samples=0) or 0))
    return sizes


def used_memory(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


async def measure(stack: Stack, games: int, mode: str, concurrency: int) -> dict[str, Any]:
    client = redis.Redis.from_url(str(stack.redis_url))
    keys = Keys(PREFIX)
    name = keys.device_token_key()
    client.set(name, b"m" * 32, nx=True)
    token_key = client.get(name)
    assert isinstance(token_key, bytes)
    channel = stack.channel(stack.engine_port, "gateway")
    engine = engine_pb2_grpc.EngineStub(channel)
    figures: dict[str, Any] = {"mode": mode, "games": games}
    limit = asyncio.Semaphore(concurrency)

    async def one(n: int, device: str, to_the_end: bool) -> str:
        async with limit:
            return await play(engine, device, mode, to_the_end, seed=n)

    try:
        for phase, to_the_end in (("finished", True), ("running", False)):
            devices = [issue(token_key) for _ in range(games)]
            client.memory_purge()
            before = used_memory(client)
            started = time.monotonic()
            game_ids = await asyncio.gather(*(one(n, d, to_the_end) for n, d in enumerate(devices)))
            if to_the_end:
                # The stats service counts and deletes each finished-games entry.
                deadline = time.monotonic() + 60
                while any(client.xlen(s) for s in keys.finished_streams()) and time.monotonic() < deadline:
                    await asyncio.sleep(0.2)
            client.memory_purge()
            after = used_memory(client)
            sizes = key_bytes(client, keys, list(game_ids), devices)
            figures[phase] = {
                "seconds": round(time.monotonic() - started, 1),
                "used_memory_per_game": round((after - before) / games),
                "keys": {kind: round(statistics.mean(values)) for kind, values in sizes.items()},
                "largest": {kind: max(values) for kind, values in sizes.items()},
                "per_game": round(sum(statistics.mean(values) for values in sizes.values())),
            }
    finally:
        await channel.close()
        client.close()
    return figures


def run(args: argparse.Namespace) -> int:
    stack = Stack.on_free_ports(PREFIX, worker=False)
    try:
        stack.start_redis()
        stack.start_engine()
        stack.start_stats()
        stack.wait_serving("engine", stack.engine_port)
        stack.wait_serving("stats", stack.stats_port)
        figures = asyncio.run(measure(stack, args.games, args.mode, args.concurrency))
    finally:
        stack.stop()
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"Redis memory per game: {args.games} {args.mode} games of two seats on one device each")
    for phase in ("finished", "running"):
        row = figures[phase]
        print(f"\n{phase} games ({row['seconds']} s to play):")
        for kind, size in row["keys"].items():
            print(f"  {kind:<20} {size:>8,} B mean   {row['largest'][kind]:>8,} B largest")
        print(f"  {'all its keys':<20} {row['per_game']:>8,} B")
        print(f"  used_memory grew by {row['used_memory_per_game']:,} B a game")
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("memory", help="measure the Redis memory a finished and a running game take")
    parser.add_argument("--games", type=int, default=100, help="games of each kind (default 100)")
    parser.add_argument("--mode", default="classic", help="the mode (default classic)")
    parser.add_argument("--concurrency", type=int, default=20, help="games played at once (default 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=run)
