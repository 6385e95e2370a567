"""The engine router's choice of replica (boxedin.common.engine_router): rendezvous hashing of a
game's partition, stable, with only the partitions of an endpoint that goes moving, and the
safety of a wrong guess: a game whose actions reach two replicas in turn (two gateways that
disagree for a moment) plays exactly as on one."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import Counter

import grpc
import pytest
import redis.asyncio as aioredis

from boxedin.common.engine_router import EngineAddress, EngineRouter, owners, ranking, resolve
from boxedin.common.keys import Keys
from boxedin.common.service_auth import act_as
from boxedin.engine.service.server import EngineService
from boxedin.engine.service.store import GameStore
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

ENDPOINTS = ["10.0.0.1:50051", "10.0.0.2:50051", "10.0.0.3:50051", "10.0.0.4:50051"]
PARTITIONS = 1024  # many, so that the shares and movements below are not luck
SECRET = "router-test-secret-0123456789"


def test_the_choice_is_the_same_whatever_the_order_the_endpoints_come_in() -> None:
    chosen = owners(ENDPOINTS, PARTITIONS)
    assert owners(list(reversed(ENDPOINTS)), PARTITIONS) == chosen
    assert owners(sorted(ENDPOINTS, key=lambda e: e[::-1]), PARTITIONS) == chosen
    for partition in (0, 7, 1023):
        assert ranking(ENDPOINTS, partition)[0] == chosen[partition]
        assert sorted(ranking(ENDPOINTS, partition)) == sorted(ENDPOINTS)


def test_each_endpoint_gets_a_fair_share_of_the_partitions() -> None:
    shares = Counter(owners(ENDPOINTS, PARTITIONS))
    assert set(shares) == set(ENDPOINTS)
    assert all(0.18 < count / PARTITIONS < 0.32 for count in shares.values()), shares


def test_only_the_partitions_of_an_endpoint_that_goes_move_each_to_its_next_choice() -> None:
    before = owners(ENDPOINTS, PARTITIONS)
    gone = ENDPOINTS[2]
    after = owners([e for e in ENDPOINTS if e != gone], PARTITIONS)
    for partition, (was, now) in enumerate(zip(before, after, strict=True)):
        if was == gone:
            assert now == ranking(ENDPOINTS, partition)[1]
        else:
            assert now == was
    assert gone not in after


def test_an_endpoint_that_comes_takes_only_the_partitions_it_wins() -> None:
    before = owners(ENDPOINTS, PARTITIONS)
    new = "10.0.0.5:50051"
    after = owners([*ENDPOINTS, new], PARTITIONS)
    moved = [p for p in range(PARTITIONS) if before[p] != after[p]]
    assert moved and all(after[p] == new for p in moved)
    assert 0.12 < len(moved) / PARTITIONS < 0.28


def test_the_address_is_read_as_endpoints_and_names_to_resolve() -> None:
    listed = EngineAddress.parse("ipv4:127.0.0.1:50051,127.0.0.1:50061")
    assert listed.fixed == ("127.0.0.1:50051", "127.0.0.1:50061") and not listed.names
    headless = EngineAddress.parse("dns:///boxedin-engine-headless.default.svc:50051")
    assert headless.names == (("boxedin-engine-headless.default.svc", 50051),) and not headless.fixed
    assert EngineAddress.parse("[::1]:7000").fixed == ("[::1]:7000",)
    for bad in ("", "127.0.0.1", "engine:port", "engine:0", "engine:70000", "127.0.0.1:1,,"):
        with pytest.raises(ValueError, match="host:port"):
            EngineAddress.parse(bad)


def test_a_name_resolves_to_every_address_it_has() -> None:
    found = asyncio.run(resolve(EngineAddress.parse("localhost:50051,10.1.2.3:50051")))
    assert "127.0.0.1:50051" in found and "10.1.2.3:50051" in found
    assert found == sorted(set(found))


def test_a_new_game_s_id_is_drawn_before_the_call_so_that_it_goes_to_the_game_s_replica() -> None:
    async def scenario() -> None:
        router = EngineRouter(",".join(ENDPOINTS), "gateway", SECRET, 16)
        try:
            request = engine_pb2.CreateGameRequest(device="d", setup=common_pb2.GameSetup(mode="mini"))
            call = router.CreateGame(request, timeout=0.01)
            call.cancel()
            assert request.game_id.startswith("g_") and len(request.game_id) == 18
            chosen = router.owner(request.game_id)
            assert chosen == ranking(ENDPOINTS, _partition(request.game_id))[0]
            # A device's calls always go to the same replica.
            assert len({router.owner("device-token") for _ in range(5)}) == 1
        finally:
            await router.close()

    asyncio.run(scenario())


def _partition(game_id: str) -> int:
    from boxedin.common.keys import partition_of

    return partition_of(game_id, 16)


def _act(game_id: str, device: str, seq: int, action: common_pb2.Action) -> engine_pb2.ActRequest:
    return engine_pb2.ActRequest(
        game_id=game_id, device=device, actor=common_pb2.ACTOR_HUMAN,
        action=action, expected_seq=seq, whole_state=True,
    )  # fmt: skip


async def _play(
    replicas: list[EngineService], device: str, created: common_pb2.GameSnapshot
) -> list[dict[str, object]]:
    """A seeded local game played to the end, each action sent to the next replica in turn;
    the states after each action, without the game id."""
    state = json.loads(created.state_json)
    states = []
    for turn in itertools.count():
        if state["over"]:
            return states
        if state["phase"] == "roll":
            action = common_pb2.Action(roll=True)
        elif state["can_end_turn"] and not state["edges_left"]:
            action = common_pb2.Action(end_turn=True)
        else:
            drawn = {(kind, row, col) for kind, row, col, *_ in state["edges"]}
            kind, row, col = next(edge for edge in _all_edges(state) if edge not in drawn)
            action = common_pb2.Action(draw=common_pb2.Edge(orientation=kind, row=row, col=col))
        engine = replicas[turn % len(replicas)]
        reply = await engine.act(_act(created.game_id, device, reply_seq(states, created), action))
        state = json.loads(reply.state_json)
        states.append({**{k: v for k, v in state.items() if k != "game"}, "seq": reply.seq})
    raise AssertionError("unreachable")


def reply_seq(states: list[dict[str, object]], created: common_pb2.GameSnapshot) -> int:
    return int(states[-1]["seq"]) if states else created.seq  # type: ignore[call-overload]


def _all_edges(state: dict[str, object]) -> list[tuple[str, int, int]]:
    boxes = int(state["boxes"])  # type: ignore[call-overload]
    return [("h", r, c) for r in range(boxes + 1) for c in range(boxes)] + [
        ("v", r, c) for r in range(boxes) for c in range(boxes + 1)
    ]


def test_a_game_whose_actions_reach_two_replicas_in_turn_plays_as_on_one(redis_url: str) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        keys = Keys("test-router-alternating:")
        act_as("gateway")
        try:
            first, second, alone = (EngineService(GameStore(client, keys)) for _ in range(3))
            setup = common_pb2.GameSetup(mode="mini", opponent="local", seed="two replicas", first=1)
            # Two devices: a device's new game replaces its saved one.
            devices = ["alternating-device-0123456789", "single-replica-device-0123456789"]
            games = [
                await engine._create(engine_pb2.CreateGameRequest(device=device, setup=setup))
                for engine, device in zip((first, alone), devices, strict=True)
            ]
            alternating = await _play([first, second], devices[0], games[0])
            single = await _play([alone], devices[1], games[1])
            # Every action found the other replica's change since its own last one: its copy was
            # behind each time, and the game as stored was what it judged.
            assert len(alternating) > 10 and alternating[-1]["over"]
            assert alternating == single
        finally:
            await client.aclose()

    asyncio.run(scenario())


class _NamedEngine(engine_pb2_grpc.EngineServicer):
    """A real gRPC Engine server on loopback that answers an action with its own name, so that a
    test sees which replica a call reached."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def Act(self, request: engine_pb2.ActRequest, context: object) -> common_pb2.GameSnapshot:  # type: ignore[override]
        return common_pb2.GameSnapshot(game_id=request.game_id, state_json=self.name)


async def _serve(name: str) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    engine_pb2_grpc.add_EngineServicer_to_server(_NamedEngine(name), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


def test_a_replica_that_stops_answering_gives_its_games_to_the_next_and_gets_them_back() -> None:
    async def scenario() -> None:
        (first, first_port), (second, second_port) = await _serve("first"), await _serve("second")
        names = {f"127.0.0.1:{first_port}": "first", f"127.0.0.1:{second_port}": "second"}
        router = EngineRouter(",".join(names), "gateway", SECRET, 16)
        await router.start()
        try:
            games = [f"g_game{i:012d}" for i in range(40)]
            owner = {game: names[router.owner(game)] for game in games}
            assert set(owner.values()) == {"first", "second"}
            for game in games:
                reply = await router.Act(engine_pb2.ActRequest(game_id=game), timeout=5)
                assert reply.state_json == owner[game]
            await first.stop(0)  # as a kill: its connections close
            # Every game goes on at once, the first replica's at the second (within the call).
            for game in games:
                reply = await router.Act(engine_pb2.ActRequest(game_id=game), timeout=5)
                assert reply.state_json == "second"
            assert router.live == [f"127.0.0.1:{second_port}"]
            # Back on the same port, it gets its own games back once its channel is ready.
            again = grpc.aio.server()
            engine_pb2_grpc.add_EngineServicer_to_server(_NamedEngine("first again"), again)
            again.add_insecure_port(f"127.0.0.1:{first_port}")
            await again.start()
            try:
                async with asyncio.timeout(10):
                    while len(router.live) < 2:
                        await asyncio.sleep(0.05)
                for game in games:
                    reply = await router.Act(engine_pb2.ActRequest(game_id=game), timeout=5)
                    assert reply.state_json == {"first": "first again", "second": "second"}[owner[game]]
            finally:
                await again.stop(0)
        finally:
            await router.close()
            await second.stop(0)

    asyncio.run(scenario())


def test_a_name_in_the_address_is_resolved_to_the_replicas_it_names() -> None:
    async def scenario() -> None:
        router = EngineRouter("dns:///localhost:50999", "gateway", SECRET, 16, resolve_seconds=0.05)
        await router.start()
        try:
            assert "127.0.0.1:50999" in router.endpoints
            assert router.owner("g_any") in router.endpoints
        finally:
            await router.close()

    asyncio.run(scenario())
