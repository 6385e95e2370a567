"""Actions over the engine's action stream (boxedin.common.act_line, Engine.ActBatches): each is
applied exactly once and answered as a unary Act would be (its snapshot, or its refusal with
the same status, reason and message), the line is renewed without an action lost, and the
actions unanswered when a replica goes are made at the next one. Real gRPC servers on
loopback; the real engine service on a Redis of the module's own."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import grpc
import pytest
import redis.asyncio as aioredis

from boxedin.common import act_line
from boxedin.common.engine_router import EngineRouter
from boxedin.common.grpc_server import ObservingInterceptor
from boxedin.common.keys import Keys
from boxedin.common.reasons import refusal_of
from boxedin.common.service_auth import CallerCheck, call_metadata
from boxedin.engine.service.server import EngineService
from boxedin.engine.service.store import GameStore
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

from engine_calls import DeviceCalls, failure, refusal

SECRET = "act-line-test-secret-0123456789"
DEVICE = "act-line-device-0123456789abcdef"
_calls = DeviceCalls(DEVICE)
_roll, _draw, _new_game = _calls.roll, _calls.draw, _calls.new_game


class _CountedEngine(EngineService):
    """The engine service, counting the action streams it was asked to open and the calls each
    message of them carried."""

    streams = 0
    calls_a_message: ClassVar[list[int]] = []

    async def ActBatches(self, batches: Any, context: Any) -> None:
        type(self).streams += 1

        async def counted() -> AsyncIterator[engine_pb2.ActCalls]:
            async for batch in batches:
                type(self).calls_a_message.append(len(batch.calls))
                yield batch

        await super().ActBatches(counted(), context)


@contextlib.asynccontextmanager
async def _engine(redis_url: str, prefix: str) -> AsyncIterator[tuple[EngineService, int]]:
    """The engine service behind a real gRPC server with the services' interceptors."""
    client = aioredis.Redis.from_url(redis_url)
    service = _CountedEngine(GameStore(client, Keys(prefix)))
    server = grpc.aio.server(interceptors=[ObservingInterceptor(), CallerCheck("engine", SECRET)])
    engine_pb2_grpc.add_EngineServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield service, port
    finally:
        await server.stop(0)
        service.store.close()
        await client.aclose()


def test_an_action_on_the_line_is_answered_as_act_answers_it(redis_url: str) -> None:
    async def scenario() -> None:
        async with _engine(redis_url, "test-line-answers:") as (_, port):
            router = EngineRouter(f"127.0.0.1:{port}", "gateway", SECRET, 16)
            await router.start()
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
            unary = engine_pb2_grpc.EngineStub(channel)
            metadata = call_metadata("gateway", SECRET)
            try:
                before = _CountedEngine.streams
                created = await _new_game(router, "line 1")
                rolled = await router.Act(_roll(created.game_id, created.seq), timeout=5)
                assert rolled.seq == created.seq + 1 and json.loads(rolled.update_json)["seq"] == rolled.seq
                assert _CountedEngine.streams == before + 1, "the action went over the stream"
                # The same refusals, word for word, on the line as from a unary Act.
                refused = [
                    _roll(created.game_id, created.seq),  # the game moved on: stale
                    _roll(created.game_id, rolled.seq),  # rolled already
                    _roll(created.game_id, rolled.seq, device="another-device-0123456789abcdef"),
                    _draw(created.game_id, rolled.seq, ("h", 99, 0)),  # no such edge
                ]
                for request in refused:
                    with pytest.raises(grpc.aio.AioRpcError) as on_line:
                        await router.Act(request, timeout=5)
                    with pytest.raises(grpc.aio.AioRpcError) as as_act:
                        await unary.Act(request, timeout=5, metadata=metadata)
                    assert refusal(on_line.value) == refusal(as_act.value)
                    assert refusal_of(on_line.value).reason == refusal_of(as_act.value).reason
                reasons = [refusal_of(await failure(router.Act(r, timeout=5))).reason for r in refused]
                assert reasons == ["stale", "roll_not_due", "not_your_game", "illegal_edge"]
                read = await router.GetGame(engine_pb2.GetGameRequest(game_id=created.game_id, device=DEVICE))
                assert read.seq == rolled.seq, "no refused action changed the game"
                assert _CountedEngine.streams == before + 1, "one stream carried them all"
            finally:
                await channel.close()
                await router.close()

    asyncio.run(scenario())


def test_actions_made_at_once_share_a_message_and_each_gets_its_own_answer(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four a message here (64 in service): ten actions at once go as four, four and two.
    monkeypatch.setattr(act_line, "CALLS_A_MESSAGE", 4)

    async def scenario() -> None:
        async with _engine(redis_url, "test-line-batches:") as (_, port):
            router = EngineRouter(f"127.0.0.1:{port}", "gateway", SECRET, 16)
            await router.start()
            try:
                devices = [f"line-batch-device-{i:02d}-0123456789ab" for i in range(10)]
                games = [await _new_game(router, f"batch {i}", device) for i, device in enumerate(devices)]
                _CountedEngine.calls_a_message.clear()
                # Ten players' rolls in one turn of the loop: the line is opened by the first,
                # and its writer finds all ten queued.
                rolls = [_roll(g.game_id, g.seq, d) for g, d in zip(games, devices, strict=True)]
                rolled = await asyncio.gather(*(router.Act(r, timeout=5) for r in rolls))
                assert _CountedEngine.calls_a_message == [4, 4, 2], "the ten went in the fewest messages"
                for game, reply in zip(games, rolled, strict=True):
                    assert (reply.game_id, reply.seq) == (game.game_id, game.seq + 1), "each its own answer"
                # Refused at once, each for its own reason: nine stale, and a roll already made.
                again = [_roll(g.game_id, g.seq, d) for g, d in zip(games, devices, strict=True)]
                again[3] = _roll(rolled[3].game_id, rolled[3].seq, devices[3])
                outcomes = await asyncio.gather(*(failure(router.Act(r, timeout=5)) for r in again))
                reasons = [refusal_of(outcome).reason for outcome in outcomes]
                assert reasons == ["stale"] * 3 + ["roll_not_due"] + ["stale"] * 6
                assert _CountedEngine.calls_a_message == [4, 4, 2] * 2
            finally:
                await router.close()

    asyncio.run(scenario())


def test_many_actions_at_once_over_a_line_renewed_under_them_are_each_applied_once(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A line serves for 20 ms here: the games' actions (at least 80 ms of pauses each) cross
    # several renewals, some of them while actions of the line before are unanswered.
    monkeypatch.setattr(act_line, "LINE_SECONDS", 0.02)

    async def scenario() -> None:
        async with _engine(redis_url, "test-line-renewed:") as (service, port):
            router = EngineRouter(f"127.0.0.1:{port}", "gateway", SECRET, 16)
            await router.start()
            try:
                before = _CountedEngine.streams
                devices = [f"line-renewed-device-{i:02d}-0123456789" for i in range(12)]
                games = [await _new_game(router, f"renewed {i}", device) for i, device in enumerate(devices)]

                async def play(game: common_pb2.GameSnapshot, device: str) -> list[int]:
                    seqs, seq = [], game.seq
                    for _ in range(8):
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
                            edge = next(
                                e for e in [("h", r, c) for r in range(n + 1) for c in range(n)] if e not in drawn
                            )
                            request = engine_pb2.ActRequest(
                                game_id=game.game_id, device=device, actor=common_pb2.ACTOR_HUMAN,
                                expected_seq=seq, repeat_key=f"{len(seqs):02d}" + "0" * 30,
                                action=common_pb2.Action(draw=common_pb2.Edge(orientation=edge[0], row=edge[1],
                                                                              col=edge[2])),
                            )  # fmt: skip
                        reply = await router.Act(request, timeout=5)
                        seq = reply.seq
                        seqs.append(seq)
                        await asyncio.sleep(0.01)
                    return seqs

                played = await asyncio.gather(*(play(g, d) for g, d in zip(games, devices, strict=True)))
                for game, seqs in zip(games, played, strict=True):
                    # Every action answered, each applied once: the seqs follow one another.
                    assert seqs == list(range(game.seq + 1, game.seq + 9))
                    stored = await service.store.load(game.game_id)
                    assert stored is not None and stored.seq == seqs[-1]
                assert _CountedEngine.streams - before > 2, "the line was renewed under the actions"
            finally:
                await router.close()

    asyncio.run(scenario())


class _HoldingEngine(engine_pb2_grpc.EngineServicer):
    """A real gRPC Engine server that answers an action with its own name, over the stream too,
    and holds the actions of ``held`` unanswered (a replica that dies with them in hand)."""

    def __init__(self, name: str, held: str = "") -> None:
        self.name = name
        self.held = held
        self.holding = asyncio.Event()

    async def ActBatches(self, batches: Any, context: Any) -> None:  # type: ignore[override]
        async for batch in batches:
            for call in batch.calls:
                if call.request.game_id == self.held:
                    self.holding.set()
                    continue
                snapshot = common_pb2.GameSnapshot(game_id=call.request.game_id, state_json=self.name)
                answer = engine_pb2.ActAnswer(number=call.number, snapshot=snapshot)
                await context.write(engine_pb2.ActAnswers(answers=[answer]))


async def _serve(servicer: engine_pb2_grpc.EngineServicer) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    engine_pb2_grpc.add_EngineServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


def test_the_actions_a_replica_leaves_unanswered_when_it_goes_are_made_at_the_next() -> None:
    async def scenario() -> None:
        games = [f"g_game{i:012d}" for i in range(40)]
        first = _HoldingEngine("first")
        (first_server, first_port), (second_server, second_port) = (
            await _serve(first),
            await _serve(_HoldingEngine("second")),
        )
        router = EngineRouter(f"127.0.0.1:{first_port},127.0.0.1:{second_port}", "gateway", SECRET, 16)
        await router.start()
        try:
            # The ports decide the owners: one of the first replica's games is held there.
            held = first.held = next(g for g in games if router.owner(g) == f"127.0.0.1:{first_port}")
            for game in games:
                if game != held:
                    reply = await router.Act(engine_pb2.ActRequest(game_id=game), timeout=5)
                    assert reply.state_json == ("first" if router.owner(game).endswith(f":{first_port}") else "second")
            waiting = asyncio.ensure_future(router.Act(engine_pb2.ActRequest(game_id=held), timeout=5))
            await asyncio.wait_for(first.holding.wait(), 5)
            assert not waiting.done()
            await first_server.stop(0)  # as a kill, with the action in hand
            reply = await waiting
            assert reply.state_json == "second"
            assert router.live == [f"127.0.0.1:{second_port}"]
        finally:
            await router.close()
            await second_server.stop(0)

    asyncio.run(scenario())


def test_an_engine_without_the_stream_is_sent_unary_actions() -> None:
    class _UnaryOnly(engine_pb2_grpc.EngineServicer):
        async def Act(self, request: engine_pb2.ActRequest, context: object) -> common_pb2.GameSnapshot:  # type: ignore[override]
            return common_pb2.GameSnapshot(game_id=request.game_id, state_json="unary")

    async def scenario() -> None:
        server, port = await _serve(_UnaryOnly())
        router = EngineRouter(f"127.0.0.1:{port}", "gateway", SECRET, 16)
        await router.start()
        try:
            # An engine of before ActBatches (a rolling upgrade): its answer to the stream is
            # UNIMPLEMENTED, and the action goes as an Act call, as do the next ones.
            for number in range(3):
                reply = await router.Act(engine_pb2.ActRequest(game_id=f"g_unary{number:011d}"), timeout=5)
                assert reply.state_json == "unary"
        finally:
            await router.close()
            await server.stop(0)

    asyncio.run(scenario())
