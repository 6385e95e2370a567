"""Where a review is kept (boxedin.ai.review_work), on a real Redis: asking twice computes once,
a turn analysed twice is kept once, and the review lives as long as its finished game."""

from __future__ import annotations

import asyncio
import json
import random

import redis
import redis.asyncio as aioredis

from boxedin.ai import review_work
from boxedin.ai.review import review_turn, turns_of
from boxedin.common.keys import FINISHED_GAME_TTL, Keys
from boxedin.engine import codec
from boxedin.engine.game import Game
from boxedin.engine.rules import mode_by_id

KEYS = Keys("test-review:")


def _finished_game(seed: int) -> Game:
    game = Game.from_mode(mode_by_id("practice_2x2"), seed=f"work-{seed}")
    rng = random.Random(seed)
    while not game.over:
        game.draw(game.geo.edges[rng.choice(game.position.open_edge_list())])
    return game


def test_asking_twice_computes_once(redis_url: str) -> None:
    game = _finished_game(1)
    record = codec.encode(game)

    async def ask_twice() -> tuple[int | None, int | None]:
        client = aioredis.Redis.from_url(redis_url)
        try:
            first = await review_work.start(client, KEYS, "g1", record)
            second = await review_work.start(client, KEYS, "g1", record)
            return first, second
        finally:
            await client.aclose()

    first, second = asyncio.run(ask_twice())
    plays = turns_of(game)
    assert (first, second) == (len(plays), None)
    sync = redis.Redis.from_url(redis_url)
    try:
        assert 0 < sync.ttl(KEYS.review("g1")) <= FINISHED_GAME_TTL
        assert review_work.analyse(sync, KEYS, "g1", 0) is True
        kept = sync.hget(KEYS.review("g1"), review_work.turn_field(0))
        # Done already: the second run neither computes nor writes.
        assert review_work.analyse(sync, KEYS, "g1", 0) is False
        assert sync.hget(KEYS.review("g1"), review_work.turn_field(0)) == kept
        assert kept is not None
        figures = json.loads(kept)
        expected = review_turn(game, plays[0]).to_json()
        assert {k: v for k, v in figures.items() if k != "seconds"} == json.loads(json.dumps(expected))
        for index in range(1, len(plays)):
            review_work.analyse(sync, KEYS, "g1", index)
    finally:
        sync.close()

    async def read() -> review_work.ReviewState | None:
        client = aioredis.Redis.from_url(redis_url)
        try:
            return await review_work.read(client, KEYS, "g1")
        finally:
            await client.aclose()

    state = asyncio.run(read())
    assert state is not None and state.complete and state.total == len(plays)
    assert [t["turn"] for t in state.turns if t is not None] == [p.turn for p in plays]


def test_a_turn_of_a_review_that_is_gone_is_not_brought_back(redis_url: str) -> None:
    sync = redis.Redis.from_url(redis_url)
    try:
        assert review_work.analyse(sync, KEYS, "never-asked", 0) is False
        assert not sync.exists(KEYS.review("never-asked"))
    finally:
        sync.close()
