"""Actions over the engine's action port (boxedin.common.act_socket, boxedin.engine.service.act_port,
Engine.GetActPort): each is applied exactly once and answered as a unary Act would be, the calls
of one turn go in one frame, a caller is taken only with its proof, bad frames close only their
own connection and change no game, and the actions a replica leaves unanswered when it goes are
made at the next one. Real gRPC servers and action ports on loopback; the real engine service on
a Redis of the module's own."""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis

from boxedin.common import act_line
from boxedin.common.act_line import LineCall
from boxedin.common.act_socket import MAX_FRAME, FrameReader, SocketLine, frame
from boxedin.common.engine_router import EngineRouter
from boxedin.common.grpc_server import ObservingInterceptor
from boxedin.common.keys import Keys
from boxedin.common.reasons import refusal_of
from boxedin.common.service_auth import CallerCheck, call_metadata, proof
from boxedin.engine.service.act_port import ActPort, bind_host
from boxedin.engine.service.server import EngineService
from boxedin.engine.service.store import GameStore
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

from engine_calls import DeviceCalls, failure, refusal

SECRET = "act-socket-test-secret-0123456789"
DEVICE = "act-socket-device-0123456789abcdef"
_calls = DeviceCalls(DEVICE)
_roll, _draw, _new_game = _calls.roll, _calls.draw, _calls.new_game


class _CountedEngine(EngineService):
    """The engine service, counting the action streams it was asked to open; the actions of
    ``held`` wait for ``release`` (a replica that dies with them in hand)."""

    def __init__(self, store: GameStore) -> None:
        super().__init__(store)
        self.streams = 0
        self.held = ""
        self.holding = asyncio.Event()
        self.release = asyncio.Event()

    async def ActBatches(self, batches: Any, context: Any) -> None:
        self.streams += 1
        await super().ActBatches(batches, context)

    async def answer(self, call: engine_pb2.ActCall) -> engine_pb2.ActAnswer:
        if call.request.game_id == self.held:
            self.holding.set()
            await self.release.wait()
        return await super().answer(call)


@contextlib.asynccontextmanager
async def _engine(redis_url: str, prefix: str) -> AsyncIterator[tuple[_CountedEngine, ActPort, int]]:
    """The engine service behind a real gRPC server with the services' interceptors, and its
    action port."""
    client = aioredis.Redis.from_url(redis_url)
    service = _CountedEngine(GameStore(client, Keys(prefix)))
    server = grpc.aio.server(interceptors=[ObservingInterceptor(), CallerCheck("engine", SECRET)])
    engine_pb2_grpc.add_EngineServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    act_port = ActPort(service, SECRET)
    await act_port.start("127.0.0.1", 0)
    try:
        yield service, act_port, port
    finally:
        service.release.set()
        await act_port.stop(0)
        await server.stop(0)
        service.store.close()
        await client.aclose()


async def _router(address: str) -> EngineRouter:
    """A gateway's router whose replicas' action ports are known (its first action would go
    over the stream while it asks)."""
    router = EngineRouter(address, "gateway", SECRET, 16)
    await router.start()
    for endpoint in router.endpoints:
        router.line(router._endpoints[endpoint])
    await router.ports_asked()
    return router


def test_frames_are_cut_where_their_lengths_say_however_the_bytes_come() -> None:
    messages = [b"", b"a", b"roll" * 300]
    wire = b"".join(frame(message) for message in messages)
    for size in (1, 3, 7, len(wire)):
        reader = FrameReader()
        got = [m for start in range(0, len(wire), size) for m in reader.feed(wire[start : start + size])]
        assert got == messages and reader.pending == 0
    with pytest.raises(ValueError, match="over the"):
        list(FrameReader().feed(struct.pack(">I", MAX_FRAME + 1)))


def test_the_action_port_binds_where_the_grpc_address_says() -> None:
    assert bind_host("127.0.0.1:50051") == "127.0.0.1"
    assert bind_host("[::1]:50051") == "::1"
    assert bind_host("[::]:50051") is None and bind_host("0.0.0.0:50051") is None


def test_an_action_on_the_port_is_answered_as_act_answers_it(redis_url: str) -> None:
    async def scenario() -> None:
        async with _engine(redis_url, "test-port-answers:") as (service, act_port, port):
            router = await _router(f"127.0.0.1:{port}")
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
            unary = engine_pb2_grpc.EngineStub(channel)
            metadata = call_metadata("gateway", SECRET)
            try:
                streams, frames = service.streams, act_port.frames_of_calls
                created = await _new_game(router, "port 1")
                rolled = await router.Act(_roll(created.game_id, created.seq), timeout=5)
                assert rolled.seq == created.seq + 1 and json.loads(rolled.update_json)["seq"] == rolled.seq
                assert act_port.frames_of_calls == frames + 1, "the action went over the port"
                # The same refusals, word for word, on the port as from a unary Act.
                refused = [
                    _roll(created.game_id, created.seq),  # the game moved on: stale
                    _roll(created.game_id, rolled.seq),  # rolled already
                    _roll(created.game_id, rolled.seq, device="another-device-0123456789abcdef"),
                    _draw(created.game_id, rolled.seq, ("h", 99, 0)),  # no such edge
                ]
                for request in refused:
                    on_port = await failure(router.Act(request, timeout=5))
                    as_act = await failure(unary.Act(request, timeout=5, metadata=metadata))
                    assert refusal(on_port) == refusal(as_act)
                reasons = [refusal_of(await failure(router.Act(r, timeout=5))).reason for r in refused]
                assert reasons == ["stale", "roll_not_due", "not_your_game", "illegal_edge"]
                read = await router.GetGame(engine_pb2.GetGameRequest(game_id=created.game_id, device=DEVICE))
                assert read.seq == rolled.seq, "no refused action changed the game"
                assert service.streams == streams, "no action went over a stream"
            finally:
                await channel.close()
                await router.close()

    asyncio.run(scenario())


def test_the_actions_of_one_turn_go_in_one_frame_and_each_gets_its_own_answer(redis_url: str) -> None:
    async def scenario() -> None:
        async with _engine(redis_url, "test-port-frames:") as (_, act_port, port):
            router = await _router(f"127.0.0.1:{port}")
            try:
                devices = [f"port-frame-device-{i:02d}-0123456789ab" for i in range(10)]
                games = [await _new_game(router, f"frame {i}", device) for i, device in enumerate(devices)]
                # The first action opens the line: ten then go in one frame.
                await router.Act(_roll(games[0].game_id, games[0].seq, devices[0]), timeout=5)
                frames = act_port.frames_of_calls
                rolls = [
                    _roll(g.game_id, g.seq + (i == 0), d) for i, (g, d) in enumerate(zip(games, devices, strict=True))
                ]
                outcomes = await asyncio.gather(*(router.Act(r, timeout=5) for r in rolls), return_exceptions=True)
                assert act_port.frames_of_calls == frames + 1, "ten actions of one turn, one frame"
                assert (
                    isinstance(outcomes[0], grpc.aio.AioRpcError) and refusal_of(outcomes[0]).reason == "roll_not_due"
                )
                for game, reply in zip(games[1:], outcomes[1:], strict=True):
                    assert isinstance(reply, common_pb2.GameSnapshot)
                    assert (reply.game_id, reply.seq) == (game.game_id, game.seq + 1), "each its own answer"
            finally:
                await router.close()

    asyncio.run(scenario())


def test_a_caller_is_taken_only_with_its_proof_and_only_if_it_may_act(redis_url: str) -> None:
    async def scenario() -> None:
        async with _engine(redis_url, "test-port-callers:") as (_, act_port, port):
            router = await _router(f"127.0.0.1:{port}")
            try:
                game = await _new_game(router, "callers")
                cases = [
                    ("gateway", "0" * 64, grpc.StatusCode.UNAUTHENTICATED, "unauthenticated"),
                    ("someone", proof(SECRET, "someone"), grpc.StatusCode.UNAUTHENTICATED, "unauthenticated"),
                    ("matchmaker", proof(SECRET, "matchmaker"), grpc.StatusCode.PERMISSION_DENIED, "not_allowed"),
                ]
                for caller, claimed, status, reason in cases:
                    line = SocketLine("127.0.0.1", act_port.service.act_port, caller, claimed)
                    error = await failure(LineCall(line, _roll(game.game_id, game.seq), 5))
                    assert (error.code(), refusal_of(error).reason) == (status, reason)
                read = await router.GetGame(engine_pb2.GetGameRequest(game_id=game.game_id, device=DEVICE))
                assert read.seq == game.seq, "no refused caller changed the game"
                # The router does not try a refused caller's actions elsewhere: the refusal is the engine's.
                assert not router._endpoints[f"127.0.0.1:{port}"].down
            finally:
                await router.close()

    asyncio.run(scenario())


async def _read_all(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.read(), 5)  # to the engine's close


def test_bad_frames_close_only_their_own_connection_and_change_no_game(redis_url: str) -> None:
    async def scenario() -> None:
        async with _engine(redis_url, "test-port-bad:") as (service, _, port):
            router = await _router(f"127.0.0.1:{port}")
            try:
                game = await _new_game(router, "bad frames")
                hello = frame(engine_pb2.ActHello(caller="gateway", proof=proof(SECRET, "gateway")).SerializeToString())
                roll = frame(
                    engine_pb2.ActCalls(
                        calls=[engine_pb2.ActCall(number=1, request=_roll(game.game_id, game.seq))]
                    ).SerializeToString()
                )
                cases = {
                    "bytes that are no hello": frame(b"\xff\xff\xff") + roll,
                    "a frame too long": struct.pack(">I", MAX_FRAME + 1),
                    "calls that are no message": hello + frame(b"\x0a\xff\xff\xff\xff"),
                }
                for name, wire in cases.items():
                    reader, writer = await asyncio.open_connection("127.0.0.1", service.act_port)
                    writer.write(wire)
                    said = FrameReader()
                    messages = list(said.feed(await _read_all(reader)))
                    writer.close()
                    if name == "calls that are no message":
                        assert [engine_pb2.ActGreeting.FromString(m).reason for m in messages] == [""], name
                    else:
                        greeting = engine_pb2.ActGreeting.FromString(messages[0])
                        assert greeting.reason == "malformed" and "not a frame" in greeting.message, name
                        assert len(messages) == 1, f"{name}: nothing answered"
                read = await router.GetGame(engine_pb2.GetGameRequest(game_id=game.game_id, device=DEVICE))
                assert read.seq == game.seq, "no bad frame changed the game"
                rolled = await router.Act(_roll(game.game_id, game.seq), timeout=5)
                assert rolled.seq == game.seq + 1, "the router's own line still plays"
            finally:
                await router.close()

    asyncio.run(scenario())


def test_a_line_renewed_under_many_actions_applies_each_once(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A line serves for 20 ms here: the games' actions cross several renewals, some of them
    # while actions of the line before are unanswered (its connection half-closed under them).
    monkeypatch.setattr(act_line, "LINE_SECONDS", 0.02)

    async def scenario() -> None:
        async with _engine(redis_url, "test-port-renewed:") as (service, act_port, port):
            router = await _router(f"127.0.0.1:{port}")
            try:
                devices = [f"port-renewed-device-{i:02d}-012345678" for i in range(12)]
                games = [await _new_game(router, f"renewed {i}", device) for i, device in enumerate(devices)]
                connections = set()

                async def play(game: common_pb2.GameSnapshot, device: str) -> list[int]:
                    seqs, seq = [], game.seq
                    for number in range(8):
                        state = json.loads(
                            (
                                await router.GetGame(engine_pb2.GetGameRequest(game_id=game.game_id, device=device))
                            ).state_json
                        )
                        if state["phase"] == "roll":
                            request = _roll(game.game_id, seq, device)
                        else:
                            drawn = {(k, r, c) for k, r, c, _ in state["edges"]}
                            n = state["boxes"]
                            kind, row, col = next(
                                e for e in [("h", r, c) for r in range(n + 1) for c in range(n)] if e not in drawn
                            )
                            request = engine_pb2.ActRequest(
                                game_id=game.game_id, device=device, actor=common_pb2.ACTOR_HUMAN,
                                expected_seq=seq, repeat_key=f"{number:02d}" + "0" * 30,
                                action=common_pb2.Action(draw=common_pb2.Edge(orientation=kind, row=row, col=col)),
                            )  # fmt: skip
                        connections.add(id(router.line(router._endpoints[f"127.0.0.1:{port}"])))
                        reply = await router.Act(request, timeout=5)
                        seq = reply.seq
                        seqs.append(seq)
                        await asyncio.sleep(0.01)
                    return seqs

                played = await asyncio.gather(*(play(g, d) for g, d in zip(games, devices, strict=True)))
                for game, seqs in zip(games, played, strict=True):
                    assert seqs == list(range(game.seq + 1, game.seq + 9)), "each action applied once, in turn"
                    stored = await service.store.load(game.game_id)
                    assert stored is not None and stored.seq == seqs[-1]
                assert len(connections) > 2, "the line was renewed under the actions"
                assert act_port.frames_of_calls >= 12, "they went over the port"
            finally:
                await router.close()

    asyncio.run(scenario())


def test_the_actions_a_replica_leaves_unanswered_when_it_goes_are_made_at_the_next(redis_url: str) -> None:
    async def scenario() -> None:
        async with (
            _engine(redis_url, "test-port-gone:") as (first, first_port, first_grpc),
            _engine(redis_url, "test-port-gone:") as (second, _, second_grpc),
        ):
            address = f"127.0.0.1:{first_grpc},127.0.0.1:{second_grpc}"
            router = await _router(address)
            try:
                owned = f"127.0.0.1:{first_grpc}"
                for i in range(64):
                    game = await _new_game(router, f"gone {i}", f"port-gone-device-{i:02d}-0123456789ab")
                    if router.owner(game.game_id) == owned:
                        break
                else:
                    raise AssertionError("no game of the first replica in 64")
                device = f"port-gone-device-{i:02d}-0123456789ab"
                first.held = game.game_id
                waiting = asyncio.ensure_future(router.Act(_roll(game.game_id, game.seq, device), timeout=5))
                await asyncio.wait_for(first.holding.wait(), 5)
                for connection in list(first_port.connections):
                    connection.abort()  # as a kill, with the action in hand
                reply = await waiting
                assert reply.seq == game.seq + 1, "applied by the second replica"
                assert router.owner(game.game_id) != owned
                stored = await second.store.load(game.game_id)
                assert stored is not None and stored.seq == game.seq + 1
            finally:
                await router.close()

    asyncio.run(scenario())


def test_an_action_port_that_cannot_be_reached_leaves_the_actions_on_the_stream(redis_url: str) -> None:
    async def scenario() -> None:
        async with _engine(redis_url, "test-port-shut:") as (service, act_port, port):
            await act_port.stop(0)
            service.act_port = act_port_closed = _closed_port()
            router = await _router(f"127.0.0.1:{port}")
            try:
                assert router._endpoints[f"127.0.0.1:{port}"].act_port == act_port_closed
                game = await _new_game(router, "shut port")
                streams = service.streams
                rolled = await router.Act(_roll(game.game_id, game.seq), timeout=5)
                assert rolled.seq == game.seq + 1, "answered over the stream"
                assert service.streams == streams + 1 and router.live == [f"127.0.0.1:{port}"], (
                    "the replica is not down"
                )
                assert router._endpoints[f"127.0.0.1:{port}"].act_port == 0, "its port is not tried again"
            finally:
                await router.close()

    asyncio.run(scenario())


async def _until(condition: Callable[[], bool]) -> None:
    """Yields to the loop until ``condition`` holds (a wait on a fact, with the caller's limit)."""
    while not condition():
        await asyncio.sleep(0)


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_engine_that_stops_answers_the_actions_under_way_and_reads_no_more(redis_url: str) -> None:
    async def scenario() -> None:
        async with _engine(redis_url, "test-port-stops:") as (service, act_port, port):
            router = await _router(f"127.0.0.1:{port}")
            try:
                held = await _new_game(router, "stops, held", "port-stops-device-held-0123456789")
                other = await _new_game(router, "stops, other", "port-stops-device-next-0123456789")
                service.held = held.game_id
                under_way = asyncio.ensure_future(
                    router.Act(_roll(held.game_id, held.seq, "port-stops-device-held-0123456789"), timeout=5)
                )
                await asyncio.wait_for(service.holding.wait(), 5)
                stopping = asyncio.ensure_future(act_port.stop(5))
                # Stopped reading: the port is told to no caller, and the next line cannot open.
                await asyncio.wait_for(_until(lambda: service.act_port == 0), 5)
                assert not stopping.done(), "the stop waits for the action under way"
                service.release.set()
                reply = await under_way
                assert reply.seq == held.seq + 1, "the action under way was answered"
                await asyncio.wait_for(stopping, 5)
                assert not act_port.connections, "every connection closed once answered"
                # The next action goes to the replica's stream (its port is closed).
                rolled = await router.Act(
                    _roll(other.game_id, other.seq, "port-stops-device-next-0123456789"), timeout=5
                )
                assert rolled.seq == other.seq + 1
            finally:
                await router.close()

    asyncio.run(scenario())
