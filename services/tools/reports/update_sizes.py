"""`boxedin updates`: how many bytes the updates of whole games take (uncompressed JSON), as
the engine service makes them, beside what they took when every update carried the whole state.

Games are played at random through the engine service itself (its handlers, in this process,
on a Redis of the command's own): a person at one device, and the computer's turns as the AI
service asks for them. Two engine replicas share the Redis and take the actions in turn now and
then, so that updates are made both from the state a replica kept and from one it computed again.
``played_game`` is also what the tests check the updates with (tests/engine/service/test_update_changes.py).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import secrets
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from boxedin.common.devices import device_hash
from boxedin.common.keys import Keys
from boxedin.common.reasons import Refusal
from boxedin.common.service_auth import act_as
from boxedin.engine.service.server import EngineService
from boxedin.engine.service.store import GameStore
from boxedin.engine.session.changes import update_changes
from boxedin.engine.session.state import to_json
from boxedin.tools.load.loadtest import open_edges
from boxedin.v1 import common_pb2, engine_pb2

Actor = common_pb2.Actor


@dataclass
class PlayedGame:
    """A game's frames as a client following it gets them: the first state, then each update
    with the whole state the engine computed for the same seq."""

    first_state: str
    updates: list[tuple[str, str]] = field(default_factory=list)  # (update frame, state) JSON


def full_update(update_json: str, state_json: str) -> str:
    """The update frame as it was when updates carried the whole state: for the figures' "before"."""
    update = json.loads(update_json)
    return f'{{"type":"update","seq":{update["seq"]},"action":{to_json(update["action"])},"game":{state_json}}}'


def _action(state: dict[str, Any], rng: random.Random, *, undo: bool) -> common_pb2.Action:
    """A random action that the state says is possible now (rarely an undo, an end of turn or a
    resignation); the edge one of those not drawn yet."""
    if state["phase"] == "roll":
        return common_pb2.Action(roll=True)
    r = rng.random()
    if r < 0.003:
        return common_pb2.Action(resign=True)
    if undo and r < 0.05 and state["can_undo"]:
        return common_pb2.Action(undo=True)
    if r < 0.08 and state["can_end_turn"]:
        return common_pb2.Action(end_turn=True)
    orientation, row, col = rng.choice(open_edges(state))
    return common_pb2.Action(draw=common_pb2.Edge(orientation=orientation, row=row, col=col))


async def played_game(
    replicas: list[EngineService], setup: common_pb2.GameSetup, rng: random.Random, *, switch: float = 0.1
) -> PlayedGame:
    """Plays one game to its end at random; ``switch``: how often the next action goes to
    another replica than the last one did. Now and then the device reads the game, as a
    client that reconnects does, and in an online game a player's connection drops or comes
    back. ``setup.opponent`` "online": a Find Match game between two devices."""
    devices = [secrets.token_urlsafe(24) for _ in range(2)]
    engine = replicas[0]
    if setup.opponent == "online":
        act_as("matchmaker")
        seats = [common_pb2.SeatInfo(kind="human", device=device_hash(d), name=f"P{i}") for i, d in enumerate(devices)]
        match = engine_pb2.OnlineGameRequest(seats=seats, mode=setup.mode, overlap=setup.overlap, via="find_match")
        snapshot = await engine._create_online(match)
    else:
        act_as("gateway")
        snapshot = await engine._create(engine_pb2.CreateGameRequest(device=devices[0], setup=setup))
    played = PlayedGame(snapshot.state_json)
    while not snapshot.over:
        if rng.random() < switch:
            engine = rng.choice(replicas)
        state = json.loads(snapshot.state_json)
        computer = state["ai_thinking"]
        # The computer's turns come from the AI service; a person's from the gateway.
        act_as("ai" if computer else "gateway")
        device = devices[(state["to_move"] or 1) - 1] if setup.opponent == "online" else devices[0]
        try:
            if setup.opponent == "online" and rng.random() < 0.05:
                connected = engine_pb2.ConnectedRequest(game_id=snapshot.game_id, device=rng.choice(devices))
                connected.connected = rng.random() < 0.5
                after = await engine._connected(connected)
                if after.seq == snapshot.seq:
                    continue  # no change: nothing to tell
                snapshot = after
            else:
                act = engine_pb2.ActRequest(
                    game_id=snapshot.game_id,
                    device="" if computer else device,
                    actor=Actor.ACTOR_AI if computer else Actor.ACTOR_HUMAN,
                    action=_action(state, rng, undo=not computer and setup.opponent != "online"),
                    expected_seq=snapshot.seq,
                    whole_state=True,
                )
                snapshot = await engine.act(act)
        except Refusal:
            continue  # an undo or end of turn the mode does not have: another action
        played.updates.append((snapshot.update_json, snapshot.state_json))
        if rng.random() < 0.05:
            act_as("gateway")
            await engine._get(snapshot.game_id, devices[0])
    return played


def setups(modes: list[str], rng: random.Random) -> list[common_pb2.GameSetup]:
    """A game against the AI in each mode (Expert with its own rule), as a new player starts one."""
    return [
        common_pb2.GameSetup(mode=mode, opponent="practice", seed="sizes")
        if mode.startswith("practice")
        else common_pb2.GameSetup(mode=mode, opponent="ai", level="normal", first=rng.choice([1, 2]))
        for mode in modes
    ]


@dataclass
class Sizes:
    """Bytes of one mode's update frames over whole games."""

    updates: list[int] = field(default_factory=list)
    per_game: list[int] = field(default_factory=list)  # the first state and every update
    # Seconds the engine spent per update: its changes from the state before, and the state's JSON.
    changes_seconds: list[float] = field(default_factory=list)
    json_seconds: list[float] = field(default_factory=list)


def _figures(sizes: Sizes) -> dict[str, float]:
    figures = {
        "median_update": statistics.median(sizes.updates),
        "largest_update": max(sizes.updates),
        "per_game": statistics.mean(sizes.per_game),
    }
    if sizes.changes_seconds:
        figures["changes_us"] = statistics.mean(sizes.changes_seconds) * 1e6
        figures["state_json_us"] = statistics.mean(sizes.json_seconds) * 1e6
    return figures


def time_changes(played: PlayedGame, sizes: Sizes) -> None:
    """Times, over the game's states, what an update costs the engine beyond the state: its
    changes (update_changes), beside the state's JSON that every update needed already."""
    states = [json.loads(played.first_state)] + [json.loads(state) for _, state in played.updates]
    for before, after in itertools.pairwise(states):
        started = time.perf_counter()
        update_changes(before, after)
        middle = time.perf_counter()
        to_json(after)
        sizes.changes_seconds.append(middle - started)
        sizes.json_seconds.append(time.perf_counter() - middle)


async def measure(redis_url: str, modes: list[str], games: int, seed: int) -> dict[str, dict[str, dict[str, float]]]:
    client = aioredis.Redis.from_url(redis_url)
    keys = Keys(f"update-sizes-{secrets.token_hex(4)}:")
    replicas = [EngineService(GameStore(client, keys)) for _ in range(2)]
    rng = random.Random(seed)
    before = {mode: Sizes() for mode in modes}
    after = {mode: Sizes() for mode in modes}
    try:
        for _ in range(games):
            for setup in setups(modes, rng):
                played = await played_game(replicas, setup, rng)
                state_frame = len(f'{{"type":"state","seq":0,"game":{played.first_state}}}'.encode())
                old = [len(full_update(update, state).encode()) for update, state in played.updates]
                new = [len(update.encode()) for update, _ in played.updates]
                before[setup.mode].updates += old
                after[setup.mode].updates += new
                before[setup.mode].per_game.append(state_frame + sum(old))
                after[setup.mode].per_game.append(state_frame + sum(new))
                time_changes(played, after[setup.mode])
    finally:
        await client.aclose()
    return {mode: {"before": _figures(before[mode]), "after": _figures(after[mode])} for mode in modes}


def run(args: argparse.Namespace) -> int:
    from boxedin.supervisor.launcher import Stack

    stack = Stack()
    redis_url = args.redis
    if not redis_url:
        stack.start_redis()
        redis_url = str(stack.redis_url)
    try:
        figures = asyncio.run(measure(redis_url, args.modes, args.games, args.seed))
    finally:
        stack.stop()
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    print(f"update sizes over {args.games} whole game(s) per mode against the AI, uncompressed JSON bytes")
    print(f"{'mode':<14}{'':<8}{'median update':>15}{'largest update':>16}{'per game per client':>21}")
    for mode, pair in figures.items():
        for when, f in pair.items():
            print(
                f"{mode:<14}{when:<8}{f['median_update']:>15,.0f}{f['largest_update']:>16,.0f}{f['per_game']:>21,.0f}"
            )
    print("engine time per update (mean): changes from the state before, beside the state's JSON it makes anyway")
    for mode, pair in figures.items():
        f = pair["after"]
        print(f"{mode:<14}changes {f['changes_us']:>7.1f} us   state JSON {f['state_json_us']:>7.1f} us")
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "updates", help="bytes of the updates of whole games: whole states (before) beside changes (after)"
    )
    parser.add_argument("--modes", nargs="+", default=["classic", "expert"], help="modes (default classic expert)")
    parser.add_argument("--games", type=int, default=3, help="games per mode (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="the random games' seed (default 1)")
    parser.add_argument("--redis", default="", help="a Redis URL to use (default: start one of its own)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=run)
