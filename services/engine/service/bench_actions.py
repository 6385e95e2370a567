"""`boxedin bench actions`: the CPU one engine process spends on an action (issue 14, Capacity).

Plays local games of a mode at random through the engine service's own action path, in this
process (no gRPC, no websocket): decode or take the cached game, authorize, apply, build the
state and its changes, encode, and store it with the commit script on a Redis of the command's
own. Prints actions a second and the CPU milliseconds an action takes in this process (Redis's
own CPU is apart), and with --profile the functions that take the most of it (cProfile)."""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import random
import secrets
import time
from typing import Any

import redis.asyncio as aioredis

from boxedin.common.keys import Keys
from boxedin.common.service_auth import act_as
from boxedin.launcher import Stack
from boxedin.loadtest import open_edges
from boxedin.v1 import common_pb2, engine_pb2

from .server import EngineService
from .store import GameStore


def _action(state: dict[str, Any], rng: random.Random) -> common_pb2.Action:
    if state["phase"] == "roll":
        return common_pb2.Action(roll=True)
    kind, row, col = rng.choice(open_edges(state))
    return common_pb2.Action(draw=common_pb2.Edge(orientation=kind, row=row, col=col))


async def measure(
    redis_url: str, mode: str, games: int, seed: int, profiler: cProfile.Profile | None
) -> dict[str, Any]:
    client = aioredis.Redis.from_url(redis_url)
    engine = EngineService(GameStore(client, Keys("bench-actions:")))
    act_as("gateway")
    rng = random.Random(seed)
    actions, cpu, wall = 0, 0.0, 0.0
    try:
        for _ in range(games):
            device = secrets.token_urlsafe(24)
            setup = common_pb2.GameSetup(mode=mode, opponent="local")
            snapshot = await engine._create(engine_pb2.CreateGameRequest(device=device, setup=setup))
            state = json.loads(snapshot.state_json)
            while not state["over"]:
                request = engine_pb2.ActRequest(
                    game_id=snapshot.game_id, device=device, actor=common_pb2.ACTOR_HUMAN,
                    action=_action(state, rng), expected_seq=snapshot.seq,
                )  # fmt: skip
                started, started_cpu = time.perf_counter(), time.process_time()
                if profiler is not None:
                    profiler.enable()
                snapshot = await engine.act(request)
                if profiler is not None:
                    profiler.disable()
                cpu += time.process_time() - started_cpu
                wall += time.perf_counter() - started
                actions += 1
                state = json.loads(snapshot.state_json)  # the player's view: not the engine's work
    finally:
        await client.aclose()
    return {
        "mode": mode, "games": games, "actions": actions,
        "actions_per_second": round(actions / wall, 1),
        "cpu_ms_per_action": round(1000 * cpu / actions, 3),
        "wall_ms_per_action": round(1000 * wall / actions, 3),
    }  # fmt: skip


def run(args: argparse.Namespace) -> int:
    stack = Stack()
    stack.start_redis()
    rows = []
    profiles: dict[str, str] = {}
    try:
        for mode in args.modes:
            profiler = cProfile.Profile() if args.profile else None
            rows.append(asyncio.run(measure(str(stack.redis_url), mode, args.games, args.seed, profiler)))
            if profiler is not None:
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.profile)
                profiles[mode] = out.getvalue()
    finally:
        stack.stop()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print("One engine process, local games at random, the action path in-process (Redis over loopback)")
    print(f"{'mode':<10} {'games':>5} {'actions':>8} {'actions/s':>10} {'CPU ms/action':>14} {'wall ms/action':>15}")
    for row in rows:
        print(f"{row['mode']:<10} {row['games']:>5} {row['actions']:>8} {row['actions_per_second']:>10} "
              f"{row['cpu_ms_per_action']:>14} {row['wall_ms_per_action']:>15}")  # fmt: skip
    for mode, text in profiles.items():
        print(f"\n--- {mode}: the {args.profile} functions with the most time of their own ---")
        print(text)
    return 0


def add_to(targets: Any) -> None:
    parser = targets.add_parser("actions", help="CPU per action of one engine process (no network)")
    parser.add_argument("--modes", nargs="+", default=["classic", "expert"], help="modes (default classic expert)")
    parser.add_argument("--games", type=int, default=20, help="games per mode (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the random moves' seed")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print the N top functions")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=run)
