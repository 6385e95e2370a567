"""`boxedin bench actions`: the CPU one engine process spends on an action (issue 14, Capacity).

Plays local games of a mode at random through the engine service's own action path, in this
process (no gRPC, no websocket): take the game (this process's copy, or read and decoded),
authorize, apply, build the state and its changes, encode, and store it with the commit script
on a Redis of the command's own. Each mode is played twice with the same moves: as actions were
handled before (every action reads the game from Redis first, and its reply carries the whole
state's JSON) and as they are now (an action changes the process's copy, which the commit
checks against the stored seq and revision; the reply carries the update only; the loop is the
service's, uvloop where installed, not asyncio's). Prints actions a second and the CPU
milliseconds an action takes in this process (Redis's own CPU is apart), and with --profile the
functions that take the most of it (cProfile) on today's path."""

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

from boxedin.common import delta, event_loop
from boxedin.common.keys import Keys
from boxedin.common.service_auth import act_as
from boxedin.engine.service.server import EngineService
from boxedin.engine.service.store import GameStore
from boxedin.supervisor.launcher import Stack
from boxedin.tools.load.loadtest import open_edges
from boxedin.v1 import common_pb2, engine_pb2


def _action(state: dict[str, Any], rng: random.Random) -> common_pb2.Action:
    if state["phase"] == "roll":
        return common_pb2.Action(roll=True)
    kind, row, col = rng.choice(open_edges(state))
    return common_pb2.Action(draw=common_pb2.Edge(orientation=kind, row=row, col=col))


PATHS = {"before": False, "now": True}  # path name: actions change the process's copy


class TimedStore(GameStore):
    """The game store, counting the CPU its commits take in this process: packing the call,
    sending it to Redis over loopback and reading the reply (the rest is the engine's own)."""

    commit_cpu = 0.0

    async def commit(self, *args: Any, **kwargs: Any) -> int:
        started = time.process_time()
        try:
            return await super().commit(*args, **kwargs)
        finally:
            self.commit_cpu += time.process_time() - started


async def measure(
    redis_url: str, mode: str, games: int, seed: int, path: str, profiler: cProfile.Profile | None
) -> dict[str, Any]:
    client = aioredis.Redis.from_url(redis_url)
    now = PATHS[path]
    store = TimedStore(client, Keys(f"bench-actions-{path}:"), line=now)
    engine = EngineService(store, act_from_copy=now)
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
                    action=_action(state, rng), expected_seq=snapshot.seq, whole_state=not now,
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
                # The player's view, kept as a client keeps it: not the engine's work.
                if now:
                    state = delta.apply(state, json.loads(snapshot.update_json)["changes"])
                else:
                    state = json.loads(snapshot.state_json)
    finally:
        store.close()
        await client.aclose()
    return {
        "mode": mode, "path": path, "games": games, "actions": actions,
        "actions_per_second": round(actions / wall, 1),
        "cpu_ms_per_action": round(1000 * cpu / actions, 3),
        "store_cpu_ms_per_action": round(1000 * store.commit_cpu / actions, 3),
        "wall_ms_per_action": round(1000 * wall / actions, 3),
    }  # fmt: skip


def run(args: argparse.Namespace) -> int:
    stack = Stack()
    stack.start_redis()
    rows = []
    profiles: dict[str, str] = {}
    try:
        for mode in args.modes:
            for path in PATHS:
                profiler = cProfile.Profile() if args.profile and path == "now" else None
                # Today's path on the loop the service runs on (event_loop), before on asyncio's.
                runner = event_loop.run if PATHS[path] else asyncio.run
                rows.append(runner(measure(str(stack.redis_url), mode, args.games, args.seed, path, profiler)))
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
    print("CPU ms/action: all of it in this process; of which store: the commit's call to Redis")
    print(f"{'mode':<10} {'path':<7} {'games':>5} {'actions':>8} {'actions/s':>10} {'CPU ms/action':>14} "
          f"{'of which store':>15} {'wall ms/action':>15}")  # fmt: skip
    for row in rows:
        print(f"{row['mode']:<10} {row['path']:<7} {row['games']:>5} {row['actions']:>8} "
              f"{row['actions_per_second']:>10} {row['cpu_ms_per_action']:>14} "
              f"{row['store_cpu_ms_per_action']:>15} {row['wall_ms_per_action']:>15}")  # fmt: skip
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
