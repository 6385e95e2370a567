"""The AI service: when the computer is to move it chooses the whole turn and plays it through
the engine service like any player, edge by edge at the game's AI speed.

One replica plays a game's turn at a time: a Redis lock per game, refreshed while it plays.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

import grpc
import redis.asyncio as redis

from boxedin.common.metrics import AI_THINK, AI_TURNS, CELERY_FALLBACKS, CELERY_TASKS
from boxedin.common.reasons import Refusal, abort, refusal_of
from boxedin.common.settings import Settings
from boxedin.v1 import ai_pb2, ai_pb2_grpc, common_pb2, engine_pb2, engine_pb2_grpc

from ..cli import ai_turn
from .thinking import choose_turn

log = logging.getLogger("boxedin.ai")
LOCK_MS = 30_000
# How far past its budget a turn may run before its worker process is given up on.
THINK_GRACE_SECONDS = 15.0
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


def action_to_proto(action: dict[str, Any]) -> Any:
    if "draw" in action:
        orientation, row, col = action["draw"]
        return common_pb2.Action(draw=common_pb2.Edge(orientation=orientation, row=row, col=col))
    if "end_turn" in action:
        return common_pb2.Action(end_turn=True)
    if "roll" in action:
        return common_pb2.Action(roll=True)
    raise ValueError(f"the computer does not take actions like {action}")


class AiService(ai_pb2_grpc.AiServicer):
    def __init__(self, config: Settings, client: redis.Redis, make_executor: Callable[[], Executor]) -> None:
        self.config = config
        self.redis = client
        self.make_executor = make_executor
        self.executor = make_executor()
        self.channel = grpc.aio.insecure_channel(config.engine_address)
        self.engine = engine_pb2_grpc.EngineStub(self.channel)
        self._release = client.register_script(_RELEASE)
        self._turns: set[asyncio.Task[None]] = set()

    def _lock_key(self, game_id: str) -> str:
        return f"{self.config.key_prefix}ai-turn:{game_id}"

    async def PlayTurn(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        token = secrets.token_hex(8)
        try:
            if not await self.redis.set(self._lock_key(request.game_id), token, nx=True, px=LOCK_MS):
                return ai_pb2.PlayTurnReply(started=False)
            snapshot = await self.engine.GetGame(
                engine_pb2.GetGameRequest(game_id=request.game_id), timeout=5
            )
        except redis.RedisError:
            await abort(context, Refusal("unavailable", "the game store cannot be reached"))
        except grpc.RpcError as exc:
            await self._release(keys=[self._lock_key(request.game_id)], args=[token])
            await abort(context, refusal_of(exc))
        if not snapshot.computer_to_move:
            await self._release(keys=[self._lock_key(request.game_id)], args=[token])
            return ai_pb2.PlayTurnReply(started=False)
        task = asyncio.create_task(self._play(request.game_id, token, snapshot))
        self._turns.add(task)
        task.add_done_callback(self._turns.discard)
        return ai_pb2.PlayTurnReply(started=True)

    async def _act(self, snapshot: Any, action: Any) -> Any:
        request = engine_pb2.ActRequest(
            game_id=snapshot.game_id, actor=common_pb2.ACTOR_AI, action=action, expected_seq=snapshot.seq
        )
        return await self.engine.Act(request, timeout=10)

    async def _play(self, game_id: str, token: str, snapshot: Any) -> None:
        """Plays until the computer is no longer to move (its turn ended, or the game did)."""
        lock = self._lock_key(game_id)
        try:
            while snapshot.computer_to_move:
                pause = (
                    self.config.ai_pause_fast_seconds
                    if snapshot.ai_speed == "fast"
                    else self.config.ai_pause_normal_seconds
                )
                level = snapshot.level or "practice"
                if json.loads(snapshot.state_json)["phase"] == "roll":
                    await asyncio.sleep(pause)
                    snapshot = await self._act(snapshot, common_pb2.Action(roll=True))
                    continue
                thought = await self._think(snapshot.record, level)
                log.info(
                    "computer turn chosen",
                    extra={"game": game_id, "seq": snapshot.seq, "level": level, "seconds": round(thought.seconds, 3),
                           "actions": len(thought.actions), "fallbacks": thought.fallbacks},
                )  # fmt: skip
                AI_THINK.labels(level).observe(thought.seconds)
                CELERY_TASKS.labels("done").inc(thought.tasks_done)
                CELERY_FALLBACKS.inc(thought.fallbacks)
                for action in thought.actions:
                    await asyncio.sleep(pause)
                    snapshot = await self._act(snapshot, action_to_proto(action))
                    await self.redis.pexpire(lock, LOCK_MS)
                AI_TURNS.labels(level).inc()
        except grpc.RpcError as exc:
            refusal = refusal_of(exc)
            # The game moved on (resigned, discarded, replaced): nothing left to play.
            log.info("computer turn stopped", extra={"game": game_id, "reason": refusal.reason})
        except Exception:
            log.exception("computer turn failed", extra={"game": game_id})
        finally:
            await self._release(keys=[lock], args=[token])

    async def _think(self, record: bytes, level: str) -> Any:
        """Chooses the turn in a worker process. A worker that does not answer well past the
        budget is replaced, so that one stuck process cannot stall every game, and the turn is
        chosen again: by the same level on the new workers, and if that fails too, by Hard
        in this process, so that the game goes on."""
        try:
            return await self._think_in_pool(record, level)
        except TimeoutError:
            pass
        try:
            return await self._think_in_pool(record, level)
        except TimeoutError:
            log.error("a turn failed twice in the worker processes; Hard chooses it", extra={"level": level})
            return await asyncio.to_thread(choose_turn, record, "hard", self.config.expert_budget_seconds, False, 0.0)

    async def _think_in_pool(self, record: bytes, level: str) -> Any:
        loop = asyncio.get_running_loop()
        call = loop.run_in_executor(
            self.executor,
            choose_turn,
            record,
            level,
            self.config.expert_budget_seconds,
            self.config.use_celery,
            self.config.celery_task_expiry_seconds,
        )
        try:
            return await asyncio.wait_for(call, timeout=self.config.expert_budget_seconds + THINK_GRACE_SECONDS)
        except TimeoutError:
            log.error("a turn took far too long; replacing the worker processes", extra={"level": level})
            stuck = self.executor
            self.executor = self.make_executor()
            # shutdown() would wait on the stuck process forever; it has to be stopped.
            for process in list(getattr(stuck, "_processes", {}).values()):
                process.kill()
            stuck.shutdown(wait=False, cancel_futures=True)
            raise

    async def ChooseTurn(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if request.level not in ("easy", "normal", "hard", "expert", "practice"):
            await abort(context, Refusal("bad_setup", f"unknown AI level {request.level!r}"))
        budget = request.budget_seconds or self.config.expert_budget_seconds
        status, output = await asyncio.get_running_loop().run_in_executor(
            self.executor, ai_turn, request.transcript_json, request.level, request.seed or None, budget
        )
        if status:
            error = output["error"]
            await abort(context, Refusal(error["code"], error["message"]))
        return ai_pb2.ChooseTurnReply(actions_json=json.dumps(output))

    async def close(self) -> None:
        for task in list(self._turns):
            task.cancel()
        if self._turns:
            await asyncio.wait(self._turns, timeout=2)
        await self.channel.close()
