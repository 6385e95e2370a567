"""The AI service's side of a review: reads the finished game from the engine (which checks the
asker holds a seat, or that the asker's watch id leads to the game: the engine keeps the links),
starts the review once, hands its turns to the analysis queue (or to its own
review process without workers), and answers with the review as it stands."""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

import grpc
import redis.asyncio as aioredis

from boxedin.common.keys import ANALYSIS_QUEUE
from boxedin.common.metrics import REVIEW_TURN_SECONDS, REVIEWS_STARTED
from boxedin.common.reasons import Refusal, refusal_of
from boxedin.common.settings import Settings
from boxedin.engine import codec
from boxedin.v1 import ai_pb2, engine_pb2, engine_pb2_grpc

from .. import review_work
from ..review import biggest_mistakes, transcript
from .pools import stop_pool

log = logging.getLogger("boxedin.ai")


class Reviews:
    def __init__(self, config: Settings, client: aioredis.Redis, engine: engine_pb2_grpc.EngineAsyncStub) -> None:
        self.config = config
        self.client = client
        self.engine = engine
        self.keys = config.keys()
        self._executor: Executor | None = None
        self._running: set[asyncio.Future[Any]] = set()
        if not config.review_on_workers:
            # One process of its own: a review never takes the processes that choose turns.
            # Started now, so that the first review does not wait for it to start.
            self._executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            self._executor.submit(review_work.ready)

    async def review(self, game_id: str, device: str, watch_id: str = "") -> ai_pb2.ReviewReply:
        if not game_id or bool(device) == bool(watch_id):
            raise Refusal("malformed", "a review names a game and either the asker's device or the game's watch id")
        request = engine_pb2.GetGameRequest(game_id=game_id, device=device, watch_id=watch_id)
        try:
            snapshot = await self.engine.GetGame(request, timeout=5)
        except grpc.RpcError as exc:
            raise refusal_of(exc) from None
        if not snapshot.over:
            raise Refusal("not_over", "a game can be reviewed once it is over")
        game = codec.decode(snapshot.record)
        state = await review_work.read(self.client, self.keys, game_id)
        if state is None:
            total = await review_work.start(self.client, self.keys, game_id, snapshot.record)
            if total is not None:
                REVIEWS_STARTED.inc()
                await self._send(game_id, list(range(total)))
            state = await review_work.read(self.client, self.keys, game_id)
        else:
            resend = await review_work.claim_resend(self.client, self.keys, game_id, state)
            if resend:
                log.warning("a review stalled; its turns go out again", extra={"game": game_id, "turns": len(resend)})
                await self._send(game_id, resend)
        if state is None:  # expired between the two reads: the game is gone with it
            raise Refusal("no_game")
        done = [t for t in state.turns if t is not None]
        if state.complete and await review_work.claim_report(self.client, self.keys, game_id):
            for t in done:
                REVIEW_TURN_SECONDS.labels("exact" if t["exact"] else "estimated").observe(t["seconds"])
        losses = [(t["turn"], t["player"], t["loss"]) for t in done]
        body = {
            "game": game_id,
            "total": state.total,
            "done": len(done),
            "turns": state.turns,
            "mistakes": [biggest_mistakes(losses, p) for p in (1, 2)],
            "transcript": transcript(game),
        }
        return ai_pb2.ReviewReply(total=state.total, done=len(done), review_json=json.dumps(body))

    async def _send(self, game_id: str, indexes: list[int]) -> None:
        if self.config.review_on_workers:
            await asyncio.to_thread(_send_tasks, game_id, indexes)
            return
        assert self._executor is not None
        config = self.config
        future = asyncio.get_running_loop().run_in_executor(
            self._executor, review_work.run_in_process, config.redis_url, config.key_prefix, config.work_partitions,
            game_id, indexes,
        )  # fmt: skip
        self._running.add(future)
        future.add_done_callback(self._running.discard)

    def shutdown(self) -> None:
        """Stops the review process for good; blocking, so off the event loop."""
        if self._executor is not None:
            stop_pool(self._executor)


def _send_tasks(game_id: str, indexes: list[int]) -> None:
    from ..tasks import REVIEW_TASK, app

    for index in indexes:
        app.send_task(REVIEW_TASK, args=[game_id, index], queue=ANALYSIS_QUEUE)
