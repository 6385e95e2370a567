"""Computer turns from the work streams and deadlines on the server, with real processes: any
AI replica picks a computer turn up and plays it once; the engine's deadline loop ends a turn on
time whether or not a browser is connected; a replica that dies mid-turn leaves the turn to
another; deadlines due together across two engine replicas fire once each."""

from __future__ import annotations

import asyncio
import contextlib
import time
import urllib.request
from collections.abc import Iterator

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from boxedin.common.keys import AI_GROUP, Keys
from boxedin.supervisor.launcher import Stack, free_port
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

from aioplayer import PlayedGame, play_many
from stacks import make_stack
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

BUDGET = 0.7  # Expert's budget a turn (the default), the longest any level thinks


@contextlib.contextmanager
def replicated_stack(name: str, partitions: int = 16, **env: str) -> Iterator[Stack]:
    """Two engine replicas, two AI replicas, two gateways (one on each engine)."""
    stack = make_stack(
        name,
        worker=False,
        extra_env={"BOXEDIN_WORK_PARTITIONS": str(partitions), "BOXEDIN_USE_CELERY": "false", **env},
    )
    try:
        stack.start()
        engine_2, ai_2 = free_port(), free_port()
        stack.start_engine(engine_2, name="engine-2")
        stack.start_ai(ai_2, name="ai-2", engine_port=engine_2)
        gateway_2 = free_port()
        stack.start_gateway(gateway_2, engine_port=engine_2)
        stack.wait_serving("engine-2", engine_2)
        stack.wait_serving("ai-2", ai_2)
        stack.wait_ready(gateway_2)
        yield stack
    finally:
        stack.stop()


def redis_of(stack: Stack) -> redis.Redis:
    return redis.Redis.from_url(str(stack.redis_url))


def keys_of(stack: Stack) -> Keys:
    return Keys(stack.key_prefix, int(stack.extra_env.get("BOXEDIN_WORK_PARTITIONS", "16")))


def pending_turns(stack: Stack) -> int:
    client = redis_of(stack)
    return sum(int(client.xpending(stream, AI_GROUP)["pending"]) for stream in keys_of(stack).work_streams())


def hundred_games() -> list[dict]:
    """Mixed levels, Easy and Normal mostly; half of the games the computer moves first."""
    levels = ["easy"] * 45 + ["normal"] * 45 + ["hard"] * 8 + ["expert"] * 2
    return [
        {"mode": "mini", "opponent": "ai", "level": level, "first": 1 + i % 2, "ai_speed": "fast"}
        for i, level in enumerate(levels)
    ]


def check_hundred_games(stack: Stack) -> list[PlayedGame]:
    games = asyncio.run(play_many([stack.url(i) for i in range(len(stack.gateways))], hundred_games()))
    for game in games:
        assert game.last["over"]
        game.check_replay()
        # The slack is the machine's: CI runs this beside another file's stack on 2 cores, and
        # saw waits of 5.9-10.1 s with every turn taken. A turn never taken fails below (pending)
        # and leaves its game unfinished.
        assert game.longest_computer_wait() <= BUDGET + 15, game.setup
    # Every computer turn was taken and acknowledged: nothing is left pending in any partition.
    assert pending_turns(stack) == 0
    return games


@pytest.mark.parametrize("partitions", [16, 1])
def test_a_hundred_games_through_two_engines_and_two_ai_replicas(partitions: int) -> None:
    with replicated_stack(f"hundred-{partitions}", partitions) as stack:
        games = check_hundred_games(stack)
    computer_moves = sum(1 for g in games for u in g.updates if u["action"].get("by") == 2)
    assert computer_moves > 500


def test_the_deadline_loop_ends_a_turn_on_time_when_the_gateway_dies() -> None:
    with replicated_stack("deadline-gateway-killed") as stack:
        victim, port = next(iter(stack.gateways.items()))
        browser = Browser(f"http://127.0.0.1:{port}")
        browser.hello()
        reply = browser.new_game(mode="classic", opponent="local", clock=10)
        due = time.time() + reply["game"]["clock_remaining_ms"] / 1000
        game_id, seen = browser.game_id, browser.seq
        listener = redis_of(stack).pubsub()
        listener.subscribe(keys_of(stack).channel(game_id))
        # The game is on screen: the gateway dies without saying it went away.
        stack.kill_process(victim)
        update = None
        give_up = time.monotonic() + 20
        while update is None and time.monotonic() < give_up:
            message = listener.get_message(timeout=1)
            if message and message["type"] == "message":
                update = common_pb2.Update.FromString(message["data"])
        arrived = time.time()
        assert update is not None and update.seq == seen + 1
        assert '"action":{"timeout":true,"by":1}' in update.frame_json
        assert due - 0.3 <= arrived <= due + 1.0, arrived - due

        other = Browser(stack.url(0), device=browser.device)
        try:
            other.seq, other.state = seen, browser.state
            other.hello(game=game_id, seq=seen)
            state = other.wait_until(lambda s: s["seq"] > seen, timeout=10)
            assert other.updates[0]["action"] == {"timeout": True, "by": 1}
            assert state["to_move"] == 2 and state["phase"] == "roll"
        finally:
            other.close()


def test_a_computer_turn_goes_on_when_its_ai_replica_is_killed_mid_turn() -> None:
    env = {"BOXEDIN_AI_CLAIM_IDLE_SECONDS": "2", "BOXEDIN_AI_PAUSE_NORMAL_SECONDS": "0.4"}
    with replicated_stack("ai-killed", **env) as stack:
        browser = Browser(stack.url())
        try:
            browser.hello()
            first = browser.new_game(mode="mini", opponent="ai", level="normal", first=2, ai_speed="normal")
            # The computer rolled and has two edges or more still to draw: kill the replica
            # playing it. (A roll of 1 is over at once: play on until a longer turn comes.)
            deadline = time.monotonic() + 120
            while True:
                state = browser.state
                assert state is not None and not state["over"] and time.monotonic() < deadline
                if state["to_move"] == 2 and state["phase"] == "draw" and (state["edges_left"] or 0) >= 2:
                    break
                if browser.my_turn():
                    browser.play_turn()
                else:
                    browser.receive()
            keys = keys_of(stack)
            client = redis_of(stack)
            holders = [
                entry["consumer"].decode()
                for stream in keys.work_streams()
                for entry in client.xpending_range(stream, AI_GROUP, "-", "+", 10)
            ]
            assert len(holders) == 1, holders
            pid = int(holders[0].split("-")[-2])
            victim = next(name for name, process in stack.processes.items() if process.pid == pid)
            stack.kill_process(victim)
            survivor = "ai-2" if victim == "ai" else "ai"
            final = browser.play_to_the_end(timeout=180)
        finally:
            browser.close()
        assert final["over"]
        PlayedGame({}, first["game"], browser.updates).check_replay()
        log = (stack.log_dir / f"{survivor}.log").read_text()  # type: ignore[operator]
        assert "took over a computer turn" in log and first["game"]["game"] in log
        # The last turn's job is acknowledged once its last action is answered: the player may
        # see the game end a moment before.
        deadline = time.monotonic() + 10
        while pending_turns(stack) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pending_turns(stack) == 0


def engine_counter(port: int, name: str, labels: dict[str, str]) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items())
    )


async def _two_hundred_deadlines(stack: Stack, ports: list[int]) -> tuple[dict[str, float], list[str]]:
    channels = [stack.channel(port, "gateway") for port in ports]
    try:
        stubs = [engine_pb2_grpc.EngineStub(channel) for channel in channels]
        setup = common_pb2.GameSetup(mode="classic", opponent="local", clock_seconds=10)
        # One device a game: each game becomes its device's saved game, and none replaces another.
        created = await asyncio.gather(
            *(
                stubs[i % 2].CreateGame(
                    engine_pb2.CreateGameRequest(device=f"deadline-race-device-{i:04d}", setup=setup)
                )
                for i in range(200)
            )
        )
        return {s.game_id: s.facts.deadline for s in created}, [s.game_id for s in created]
    finally:
        for channel in channels:
            await channel.close()


def test_two_hundred_deadlines_due_together_fire_once_each_across_two_engines() -> None:
    with replicated_stack("deadline-race") as stack:
        ports = list(stack.engines.values())
        listener = redis_of(stack).pubsub()
        listener.psubscribe(keys_of(stack).channel_prefix + "*")
        while listener.get_message(timeout=1) is None:  # the subscription is confirmed
            pass
        due, game_ids = asyncio.run(_two_hundred_deadlines(stack, ports))
        # Set-up, not the rule under test: 200 games made at once fall due close together (on a
        # busy 2-core machine their making takes about a second), so that both replicas' polls
        # find many of them due at the same moment.
        assert max(due.values()) - min(due.values()) < 3.0, "the deadlines fall due within three seconds"
        fired: dict[str, list[tuple[int, float]]] = {}
        give_up = time.monotonic() + 30
        while len(fired) < 200 and time.monotonic() < give_up:
            message = listener.get_message(timeout=1)
            if message and message["type"] == "pmessage":
                update = common_pb2.Update.FromString(message["data"])
                fired.setdefault(update.game_id, []).append((update.seq, time.time()))
        assert set(fired) == set(game_ids)
        for game_id, updates in fired.items():
            assert [seq for seq, _ in updates] == [1], (game_id, updates)
            # Late by up to 2 s when 200 fall due at once beside another file's stack (CI: 1.01 s).
            assert updates[0][1] <= due[game_id] + 2.0
        metrics_ports = [stack.metrics_ports["engine"], stack.metrics_ports["engine-2"]]

        def applied() -> list[float]:
            return [engine_counter(p, "boxedin_deadlines_total", {"outcome": "applied"}) for p in metrics_ports]

        # An update is published by the commit, before the replica that made it has its reply
        # and counts the deadline: the count is waited for (it must reach 200, not more).
        counted_by = time.monotonic() + 10
        while sum(applied()) < 200 and time.monotonic() < counted_by:
            time.sleep(0.05)
        assert sum(applied()) == 200, applied()
