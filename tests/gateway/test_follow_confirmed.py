"""Following a game misses nothing published before the gateway listened (docs/protocol.md,
"Sequence numbers"): the hub's follow returns once Redis has confirmed the game's channel, and
the feed, given a snapshot that the game has since moved past, sends the moves made meanwhile. The
computer's first turn of a game it begins used to be over before the gateway subscribed, and the
player then waited for ever for a move already made (100 games begun together: 5 stuck)."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as redis

from boxedin.common.keys import Keys
from boxedin.gateway.feed import GameFeed
from boxedin.gateway.hub import UpdateHub
from boxedin.supervisor.launcher import Stack
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

from stacks import issued_device

pytestmark = pytest.mark.stack


def test_a_feed_given_an_old_snapshot_sends_the_moves_made_before_it_followed(live_stack: Stack) -> None:
    device = issued_device(live_stack)

    async def scenario() -> list[dict]:
        client = redis.Redis.from_url(str(live_stack.redis_url))
        hub = UpdateHub(client, Keys(live_stack.key_prefix))
        await hub.start()
        sent: list[dict] = []
        try:
            async with live_stack.channel(live_stack.engine_port, "gateway") as channel:
                engine = engine_pb2_grpc.EngineStub(channel)
                setup = common_pb2.GameSetup(mode="standard", opponent="local", first=1)
                first = await engine.CreateGame(engine_pb2.CreateGameRequest(device=device, setup=setup))
                # Two moves made (and published) before this gateway follows the game.
                snapshot = first
                for row in (0, 1):
                    snapshot = await engine.Act(
                        engine_pb2.ActRequest(
                            game_id=first.game_id, device=device, actor=common_pb2.ACTOR_HUMAN,
                            action=common_pb2.Action(draw=common_pb2.Edge(orientation="h", row=row, col=0)),
                            expected_seq=snapshot.seq,
                        )
                    )  # fmt: skip
                assert snapshot.seq == first.seq + 2
                feed = GameFeed(engine, hub,  # type: ignore[arg-type]
                    lambda text: sent.append(json.loads(text)))
                feed.device = device
                await feed.attach(first)
                assert feed.seq == snapshot.seq
                await feed.detach()
        finally:
            await hub.stop()
            await client.aclose()
        return sent

    sent = asyncio.run(scenario())
    assert [(frame["type"], frame["seq"]) for frame in sent] == [("state", 0), ("update", 1), ("update", 2)]
