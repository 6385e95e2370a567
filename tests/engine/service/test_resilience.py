"""Replicas and restarts: a saved game survives restarting the gateway and the engine; a client
whose gateway dies goes on through another replica from its sequence number; two actions
racing on one game (even through two engine replicas) never both apply."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import grpc
import pytest
import redis

from boxedin.common.keys import Keys
from boxedin.common.reasons import REASON_KEY
from boxedin.supervisor.launcher import Stack, free_port
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

from stacks import make_stack
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

WITHOUT_BOARD_DETAIL = ("clock_remaining_ms", "seq", "can_undo", "previews")


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    own = make_stack("resilience", gateway_replicas=2, worker=False)
    try:
        own.start()
        yield own
    finally:
        own.stop()


def comparable(state: dict) -> dict:
    return {k: v for k, v in state.items() if k not in WITHOUT_BOARD_DETAIL}


def test_a_saved_game_resumes_after_the_gateway_and_the_engine_restart(stack: Stack) -> None:
    browser = Browser(stack.url())
    browser.hello()
    browser.new_game(mode="classic", opponent="local", seed="saved across restarts")
    # Draw one edge of a roll of more than one, so that part of the roll is still unused.
    while True:
        browser.act(type="roll")
        assert browser.state is not None
        if browser.state["roll"] > 1:
            break
        browser.play_turn()
    browser.play_turn()
    saved = browser.state
    assert saved is not None and saved["edges_left"] >= 1 and saved["can_undo"]
    browser.close()

    stack.stop_process("engine")
    stack.start_engine()
    stack.stop_process("gateway")
    port = free_port()
    stack.start_gateway(port)
    stack.wait_ready(port)

    back = Browser(f"http://127.0.0.1:{port}", device=browser.device)
    try:
        welcome = back.hello()
        assert welcome["saved"]["game"] == saved["game"]
        assert (welcome["saved"]["scores"], welcome["saved"]["round"]) == (saved["scores"], saved["round"])
        resumed = back.request(type="resume")
        assert resumed["type"] == "state"
        state = resumed["game"]
        assert comparable(state) == comparable(saved)
        assert state["edges_left"] == saved["edges_left"] and not state["can_undo"]
        back.play_turn()
        assert back.state is not None and len(back.state["edges"]) == len(saved["edges"]) + 1
    finally:
        back.close()


def test_a_client_goes_on_through_another_gateway_from_its_sequence_number(stack: Stack) -> None:
    victim, first_gateway = next(iter(stack.gateways.items()))
    browser = Browser(f"http://127.0.0.1:{first_gateway}")
    browser.hello()
    browser.new_game(mode="mini", opponent="ai", level="easy", ai_speed="normal")
    # Play until a move of ours hands the turn to the AI, then lose the gateway at once.
    while True:
        browser.wait_until(lambda s: s["over"] or (s["to_move"] == 1 and not s["ai_thinking"]))
        browser.play_turn()
        assert browser.state is not None
        if browser.state["to_move"] == 2:
            break
    last_seen = browser.seq
    stack.kill_process(victim)
    time.sleep(1.0)  # the AI plays on meanwhile

    other = stack.gateway_ports[0]
    again = Browser(f"http://127.0.0.1:{other}", device=browser.device)
    try:
        again.seq = last_seen
        again.state = browser.state
        again.hello(game=browser.game_id, seq=last_seen)
        again.wait_until(lambda s: s["seq"] > last_seen)
        assert again.updates and again.updates[0]["seq"] == last_seen + 1
        final = again.play_to_the_end()
    finally:
        again.close()
    assert final["over"] and sum(final["scores"]) == 9


async def _race(stack: Stack) -> None:
    second = free_port()
    stack.start_engine(second, name="engine-2")
    channels = [stack.channel(port, "gateway") for port in (stack.engine_port, second)]
    try:
        for channel in channels:
            await asyncio.wait_for(channel.channel_ready(), 20)
        stubs = [engine_pb2_grpc.EngineStub(channel) for channel in channels]
        device = "racing-device-0123456789"
        setup = common_pb2.GameSetup(mode="classic", opponent="local")
        game = await stubs[0].CreateGame(engine_pb2.CreateGameRequest(device=device, setup=setup))
        snapshot = await stubs[0].Act(
            engine_pb2.ActRequest(game_id=game.game_id, device=device, actor=common_pb2.ACTOR_HUMAN,
                                  action=common_pb2.Action(roll=True), expected_seq=0)
        )  # fmt: skip
        edges = [("h", r, c) for r in range(8) for c in range(7)]
        rounds = 0
        while not snapshot.over and rounds < 25 and len(edges) >= 2:
            a, b = edges.pop(), edges.pop()
            requests = [
                engine_pb2.ActRequest(
                    game_id=game.game_id, device=device, actor=common_pb2.ACTOR_HUMAN,
                    action=common_pb2.Action(draw=common_pb2.Edge(orientation=o, row=r, col=c)),
                    expected_seq=snapshot.seq,
                )
                for (o, r, c) in (a, b)
            ]  # fmt: skip
            results = await asyncio.gather(stubs[0].Act(requests[0]), stubs[1].Act(requests[1]), return_exceptions=True)
            applied = [r for r in results if not isinstance(r, Exception)]
            refused = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
            assert len(applied) == 1 and len(refused) == 1, results
            reason = dict(refused[0].trailing_metadata() or ())[REASON_KEY]
            assert reason in ("stale", "busy")
            current = await stubs[1].GetGame(engine_pb2.GetGameRequest(game_id=game.game_id, device=device))
            assert current.seq == snapshot.seq + 1
            snapshot = current
            if not snapshot.over and '"phase":"roll"' in snapshot.state_json:
                snapshot = await stubs[0].Act(
                    engine_pb2.ActRequest(game_id=game.game_id, device=device, actor=common_pb2.ACTOR_HUMAN,
                                          action=common_pb2.Action(roll=True), expected_seq=snapshot.seq)
                )  # fmt: skip
            rounds += 1
        assert rounds >= 10
    finally:
        for channel in channels:
            await channel.close()
        stack.stop_process("engine-2")


def test_two_racing_actions_never_both_apply(stack: Stack) -> None:
    asyncio.run(_race(stack))


def test_a_game_whose_data_redis_lost_is_said_to_be_gone_and_the_others_go_on(stack: Stack) -> None:
    # As after a Redis restart without its data: one game's keys are gone, and every gateway's
    # subscription drops and comes back.
    lost, kept = Browser(stack.url()), Browser(stack.url())
    try:
        for browser in (lost, kept):
            browser.hello()
            browser.new_game(mode="mini", opponent="local")
        client = redis.Redis.from_url(str(stack.redis_url))
        try:
            keys = Keys(stack.key_prefix)
            assert client.delete(keys.game(lost.game_id), keys.updates(lost.game_id)) >= 1
            assert client.client_kill_filter(_type="pubsub") >= 1
        finally:
            client.close()
        deadline = time.monotonic() + 15
        while not lost.errors and time.monotonic() < deadline:
            lost.receive(max(0.1, deadline - time.monotonic()))
        assert [(e["code"], "reply_to" in e) for e in lost.errors] == [("no_game", False)]
        assert "no longer on the server" in lost.errors[0]["message"]
        # The other game goes on where it was.
        seq = kept.seq
        assert kept.request(type="ping")["type"] == "pong" and kept.seq == seq and not kept.errors
        kept.act(type="roll")
        assert kept.seq == seq + 1
    finally:
        lost.close()
        kept.close()
