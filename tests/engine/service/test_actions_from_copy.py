"""An action changes the engine process's own copy of a game without reading it first, and the
commit compares the stored seq and record revision (issue 14, Capacity). These tests put two
engine replicas on one Redis, so that one replica's copy falls behind, and check that what it
does is what reading the game first would have done."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from boxedin.common.keys import Keys
from boxedin.common.reasons import Refusal
from boxedin.common.service_auth import act_as
from boxedin.engine.service.server import EngineService
from boxedin.engine.service.store import GameStore
from boxedin.v1 import common_pb2, engine_pb2

DEVICE = "copy-device-0123456789abcdef"


def _draw(game_id: str, edge: tuple[str, int, int], seq: int = -1, repeat_key: str = "") -> engine_pb2.ActRequest:
    kind, row, col = edge
    return engine_pb2.ActRequest(
        game_id=game_id, device=DEVICE, actor=common_pb2.ACTOR_HUMAN, expected_seq=seq, whole_state=True,
        action=common_pb2.Action(draw=common_pb2.Edge(orientation=kind, row=row, col=col)), repeat_key=repeat_key,
    )  # fmt: skip


def _roll(game_id: str, seq: int = -1) -> engine_pb2.ActRequest:
    return engine_pb2.ActRequest(
        game_id=game_id, device=DEVICE, actor=common_pb2.ACTOR_HUMAN, expected_seq=seq, whole_state=True,
        action=common_pb2.Action(roll=True),
    )  # fmt: skip


@contextlib.asynccontextmanager
async def _two_replicas(redis_url: str, prefix: str) -> AsyncIterator[tuple[EngineService, EngineService]]:
    """Two engine replicas on one Redis, under keys of the test's own."""
    client = aioredis.Redis.from_url(redis_url)
    keys = Keys(prefix)
    act_as("gateway")
    try:
        yield EngineService(GameStore(client, keys)), EngineService(GameStore(client, keys))
    finally:
        await client.aclose()


async def _new_classic_game(engine: EngineService) -> common_pb2.GameSnapshot:
    # A seeded game, whose first roll is a 6: the tests draw up to three edges in the turn.
    setup = common_pb2.GameSetup(mode="classic", opponent="local", seed="copies 4")
    snapshot = await engine._create(engine_pb2.CreateGameRequest(device=DEVICE, setup=setup))
    rolled = await engine.act(_roll(snapshot.game_id, 0))
    assert json.loads(rolled.state_json)["roll"] == 6
    return rolled


def _edges(snapshot: common_pb2.GameSnapshot) -> set[tuple[str, int, int]]:
    state: dict[str, Any] = json.loads(snapshot.state_json)
    return {(kind, row, col) for kind, row, col, _ in state["edges"]}


def test_an_action_on_a_copy_another_replica_left_behind_goes_on_from_the_stored_game(redis_url: str) -> None:
    async def scenario() -> None:
        async with _two_replicas(redis_url, "test-copy-behind:") as (first, second):
            rolled = await _new_classic_game(first)  # the first replica keeps its copy at seq 1
            game_id = rolled.game_id
            moved = await second.act(_draw(game_id, ("h", 0, 0)))  # the stored game moves on
            assert moved.seq == 2
            # With no seq but a repeat key (as the gateway sends an action with an id), from a
            # copy at seq 1, which the commit finds behind:
            after = await first.act(_draw(game_id, ("h", 0, 1), repeat_key="0123456789abcdef"))
            assert after.seq == 3 and not after.repeat_of
            assert first.copies.is_behind(game_id)  # the replica now reads this game first
            assert {("h", 0, 0), ("h", 0, 1)} <= _edges(after)
            read = await second._get(game_id, DEVICE)
            assert read.seq == 3 and _edges(read) == _edges(after)
            update = json.loads(after.update_json)
            assert update["seq"] == 3 and update["action"]["draw"] == ["h", 0, 1]

    asyncio.run(scenario())


def test_a_stale_action_is_refused_as_stale_even_from_a_copy_at_its_seq(redis_url: str) -> None:
    async def scenario() -> None:
        async with _two_replicas(redis_url, "test-copy-stale:") as (first, second):
            rolled = await _new_classic_game(first)
            await second.act(_draw(rolled.game_id, ("h", 0, 0)))
            with pytest.raises(Refusal) as refused:
                await first.act(_draw(rolled.game_id, ("h", 0, 1), seq=rolled.seq))
            assert refused.value.reason == "stale"
            read = await second._get(rolled.game_id, DEVICE)
            assert read.seq == 2 and ("h", 0, 1) not in _edges(read)

    asyncio.run(scenario())


def test_a_record_renewed_at_the_same_seq_is_kept_by_the_next_action_from_a_copy(redis_url: str) -> None:
    """A lease renewal writes the record without a new seq; an action from a copy made before it
    must not put the old record back."""

    async def scenario() -> None:
        async with _two_replicas(redis_url, "test-copy-renewed:") as (first, second):
            rolled = await _new_classic_game(first)
            stored = await second.store.load(rolled.game_id)
            assert stored is not None
            stored.table.ai_speed = "fast"  # any field: what matters is that it was written
            assert await second.store.touch(stored) == 1
            after = await first.act(_draw(rolled.game_id, ("v", 0, 0), seq=rolled.seq))  # from its copy
            assert after.seq == 2 and after.ai_speed == "fast"
            assert first.copies.is_behind(rolled.game_id)
            again = await second.store.load(rolled.game_id)
            assert again is not None and again.table.ai_speed == "fast" and again.seq == 2

    asyncio.run(scenario())


def test_the_same_action_again_is_answered_as_the_repeat_of_the_first_not_applied(redis_url: str) -> None:
    async def scenario() -> None:
        async with _two_replicas(redis_url, "test-copy-repeat:") as (first, second):
            rolled = await _new_classic_game(first)
            draw = _draw(rolled.game_id, ("h", 3, 3), seq=rolled.seq, repeat_key="feedc0de" * 4)
            applied = await first.act(draw)
            again = await second.act(draw)  # on the other replica, its reply lost, say
            assert applied.seq == 2 and again.repeat_of == 2 and again.seq == 2 and not again.update_json
            read = await first._get(rolled.game_id, DEVICE)
            assert read.seq == 2
            with pytest.raises(Refusal) as refused:
                await first.act(_draw(rolled.game_id, ("h", 3, 2), seq=rolled.seq, repeat_key="0" * 32))
            assert refused.value.reason == "stale"  # another action at that seq: simply stale
            bad = _draw(rolled.game_id, ("h", 3, 2), seq=2, repeat_key="not hex!")
            with pytest.raises(Refusal) as malformed:
                await first.act(bad)
            assert malformed.value.reason == "malformed"
            assert (await first._get(rolled.game_id, DEVICE)).seq == 2

    asyncio.run(scenario())


def test_an_action_sent_again_after_the_turn_passed_to_the_computer_is_answered_as_the_repeat(
    redis_url: str,
) -> None:
    """A player's last edge of a turn, whose reply was lost (Redis went down as it answered): by
    the time it comes again it is the computer's turn, and it is answered as the repeat of the
    edge it drew, not refused as out of turn (seen in the Redis fault test)."""

    async def scenario() -> None:
        async with _two_replicas(redis_url, "test-copy-repeat-turn:") as (first, second):
            setup = common_pb2.GameSetup(mode="standard", opponent="ai", level="normal", first=1)
            created = await first._create(engine_pb2.CreateGameRequest(device=DEVICE, setup=setup))
            draw = _draw(created.game_id, ("h", 0, 0), repeat_key="5eed" * 8)
            applied = await first.act(draw)
            assert json.loads(applied.state_json)["to_move"] == 2  # the computer's turn now
            again = await second.act(draw)
            assert again.repeat_of == applied.seq and again.seq == applied.seq
            assert (await first._get(created.game_id, DEVICE)).seq == applied.seq

    asyncio.run(scenario())


def test_an_act_reply_carries_the_whole_state_only_when_asked(redis_url: str) -> None:
    async def scenario() -> None:
        async with _two_replicas(redis_url, "test-copy-whole:") as (first, _):
            rolled = await _new_classic_game(first)
            lean = _draw(rolled.game_id, ("h", 1, 1))
            lean.whole_state = False
            reply = await first.act(lean)
            assert reply.state_json == "" and json.loads(reply.update_json)["seq"] == reply.seq
            whole = await first.act(_draw(rolled.game_id, ("h", 2, 2)))
            assert json.loads(whole.state_json)["seq"] == whole.seq

    asyncio.run(scenario())


def test_an_act_reply_carries_the_serialised_game_only_when_asked(redis_url: str) -> None:
    async def scenario() -> None:
        async with _two_replicas(redis_url, "test-copy-record:") as (first, _):
            rolled = await _new_classic_game(first)
            # A player's action, as the gateway sends it: the reply has no record.
            lean = await first.act(_draw(rolled.game_id, ("h", 1, 1), rolled.seq))
            assert lean.record == b"" and lean.update_json
            # Asked for (the AI chooses its next action from it), it is the game as it stands.
            asked = _draw(rolled.game_id, ("h", 2, 2), lean.seq)
            asked.with_record = True
            full = await first.act(asked)
            assert full.record and full.seq == lean.seq + 1
            read = await first._get(rolled.game_id, DEVICE)
            assert read.record == full.record
            assert {("h", 1, 1), ("h", 2, 2)} <= _edges(read)

    asyncio.run(scenario())


class _CountedStore(GameStore):
    """A store that counts the games it reads whole."""

    reads = 0

    async def load(self, game_id: str) -> Any:
        self.reads += 1
        return await super().load(game_id)


@pytest.mark.parametrize(("copies", "in_play", "reads"), [(3, 3, 0), (3, 4, 4)])
def test_the_games_an_engine_keeps_are_as_many_as_its_copies_say(
    redis_url: str, copies: int, in_play: int, reads: int
) -> None:
    """BOXEDIN_ENGINE_GAME_COPIES: as many games in play as the copies are acted on in turn
    without a read; one more, and each finds its copy gone (the oldest one is the next to act)."""

    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        act_as("gateway")
        try:
            store = _CountedStore(client, Keys(f"test-copies-kept-{in_play}:"))
            engine = EngineService(store, copies=copies)
            # Each game a device's own: a device's new game replaces its saved one.
            devices = [f"copies-kept-device-{n}-0123456789" for n in range(in_play)]
            setup = common_pb2.GameSetup(mode="classic", opponent="local", seed="copies kept")
            games = [await engine._create(engine_pb2.CreateGameRequest(device=d, setup=setup)) for d in devices]
            store.reads = 0
            for game, device in zip(games, devices, strict=True):  # each game's roll, in turn
                roll = engine_pb2.ActRequest(
                    game_id=game.game_id, device=device, actor=common_pb2.ACTOR_HUMAN, expected_seq=game.seq,
                    action=common_pb2.Action(roll=True),
                )  # fmt: skip
                assert (await engine.act(roll)).seq == game.seq + 1
            assert store.reads == reads
            assert len(engine.copies) == copies
        finally:
            await client.aclose()

    asyncio.run(scenario())
