"""Computer turns from the work streams: every AI replica reads all partitions through one
consumer group, plays each turn through the engine like any player, and acknowledges it when
the turn is over. A replica keeps its turns' entries fresh while it plays them; one that dies
leaves them pending, and after ``ai_claim_idle_seconds`` another replica claims them
(``XAUTOCLAIM``) and plays the turn on from where the game stands.

A turn is never played twice: every action names the seq it was chosen for, so the engine
applies each move once whoever sends it, and a job for a turn that is over (the game moved on
to another turn, or ended) is acknowledged without acting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

import grpc
import redis.asyncio as redis
from redis.typing import StreamIdT

from boxedin.common.choices import LEVELS
from boxedin.common.keys import AI_GROUP, Keys, analysis_queue, celery_queue
from boxedin.common.metrics import (
    AI_THINK,
    AI_TURNS,
    CELERY_FALLBACKS,
    CELERY_QUEUE,
    CELERY_TASK_LATENCY,
    CELERY_TASKS,
    COMPUTER_TURNS_TAKEN,
    REVIEW_QUEUE,
    at_zero,
)
from boxedin.common.reasons import refusal_of
from boxedin.common.settings import Settings
from boxedin.common.streams import BLOCK_MS, GroupReader
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

from .thinking import Thinker

log = logging.getLogger("boxedin.ai.turns")
# Exported at 0 from the start, so that a level nobody played shows 0, not "No data".
at_zero(AI_TURNS, *((level,) for level in (*LEVELS, "practice")))
at_zero(COMPUTER_TURNS_TAKEN, ("read",), ("reclaimed",))
at_zero(CELERY_TASKS, ("done",))
# Races lost on one turn (another replica, or the player's screen going away) before giving the
# job back to the group.
_RETRIES = 20
# Refusals after which the turn is not the computer's to play any more.
_OVER = ("no_game", "game_over", "not_your_turn", "not_your_game")
# Waits between tries while the engine or Redis is coming back: doubling from 0.1 s, at most
# 0.5 s. A longer wait is what the player waits on top of the computer's pause and thinking
# once the store is back (with a 2 s cap, the Redis fault test once resumed after 3.03 s).
_BACK_SOON = 0.05
_BACK_AT_MOST = 0.5


def action_to_proto(action: dict[str, Any]) -> common_pb2.Action:
    if "draw" in action:
        orientation, row, col = action["draw"]
        return common_pb2.Action(draw=common_pb2.Edge(orientation=orientation, row=row, col=col))
    if "end_turn" in action:
        return common_pb2.Action(end_turn=True)
    if "roll" in action:
        return common_pb2.Action(roll=True)
    raise ValueError(f"the computer does not take actions like {action}")


@dataclass(frozen=True, slots=True)
class Job:
    """A work stream entry: named by its stream and entry id."""

    stream: str
    entry_id: bytes
    turn: common_pb2.ComputerTurn = field(compare=False, hash=False)


class TurnPlayer(GroupReader):
    def __init__(
        self, config: Settings, client: redis.Redis, engine: engine_pb2_grpc.EngineAsyncStub, thinker: Thinker
    ) -> None:
        super().__init__(client, AI_GROUP, "computer turns", "ai.turns")
        self.config = config
        self.keys: Keys = config.keys()
        self.engine = engine
        self.thinker = thinker
        self._capacity = asyncio.Semaphore(config.ai_concurrent_turns)
        self._active: set[Job] = set()
        # One turn of a game at a time in this replica: [lock, jobs holding or awaiting it].
        self._game_locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    # --- running ------------------------------------------------------------------------------

    async def start(self) -> None:
        for stream in self.keys.work_streams():
            await self.ensure_group(stream)
        for stream in self.keys.work_streams():
            self.spawn(self._read(stream))
        self.spawn(self._reclaim())
        self.spawn(self._keep_fresh())
        self.spawn(self._watch_queue())
        log.info("reading computer turns", extra={"consumer": self.consumer, "partitions": self.keys.partitions})

    async def _read(self, stream: str) -> None:
        """New turns of one partition, as they are written."""
        while True:
            await self._room(stream)
            handed_on = False
            try:
                for entry_id, fields in await self.read(stream, 1):
                    COMPUTER_TURNS_TAKEN.labels("read").inc()
                    self.spawn(self._take(self._job(stream, entry_id, fields), release=True))
                    handed_on = True
            finally:
                if not handed_on:
                    self._capacity.release()

    async def _room(self, stream: str) -> None:
        """Room for one more turn. Waiting for it (every slot playing a turn) is no stall: it
        counts as the reader going round (boxedin.common.progress)."""
        while True:
            try:
                await asyncio.wait_for(self._capacity.acquire(), BLOCK_MS / 1000)
                return
            except TimeoutError:
                await self.round(stream)

    async def _reclaim(self) -> None:
        """Turns whose replica died: pending and untouched for longer than the claim idle."""
        idle_ms = round(self.config.ai_claim_idle_seconds * 1000)
        while True:
            await asyncio.sleep(self.config.ai_claim_idle_seconds / 2)
            for stream in self.keys.work_streams():
                for entry_id, fields in await self.claim_idle(stream, idle_ms, 50):
                    job = self._job(stream, entry_id, fields)
                    if job in self._active:
                        continue
                    COMPUTER_TURNS_TAKEN.labels("reclaimed").inc()
                    log.info("took over a computer turn", extra={"game": job.turn.game_id, "turn": job.turn.turn})
                    self.spawn(self._take(job, release=False))

    async def _keep_fresh(self) -> None:
        """Marks the turns this replica plays as alive, so nobody claims them from it."""
        while True:
            await asyncio.sleep(self.config.ai_claim_idle_seconds / 3)
            by_stream: dict[str, list[StreamIdT]] = {}
            for job in list(self._active):
                by_stream.setdefault(job.stream, []).append(job.entry_id)
            for stream, ids in by_stream.items():
                with contextlib.suppress(redis.RedisError):
                    await self.redis.xclaim(stream, self.group, self.consumer, 0, ids, justid=True)

    async def _watch_queue(self) -> None:
        """Expert's evaluation tasks waiting for a Celery worker, for the operator (and for
        scaling the workers on their queue)."""
        broker = redis.Redis.from_url(self.config.celery_url)
        try:
            while True:
                with contextlib.suppress(redis.RedisError):
                    CELERY_QUEUE.set(await broker.llen(celery_queue(self.config.key_prefix)))
                    REVIEW_QUEUE.set(await broker.llen(analysis_queue(self.config.key_prefix)))
                await asyncio.sleep(5)
        finally:
            await broker.aclose()

    @staticmethod
    def _job(stream: str, entry_id: bytes, fields: dict[bytes, bytes]) -> Job:
        return Job(stream, entry_id, common_pb2.ComputerTurn.FromString(fields[b"job"]))

    # --- one turn -----------------------------------------------------------------------------

    async def _take(self, job: Job, *, release: bool) -> None:
        self._active.add(job)
        game_id = job.turn.game_id
        lock, holders = self._game_locks.setdefault(game_id, (asyncio.Lock(), [0]))
        holders[0] += 1
        try:
            async with lock:
                done = await self._play(job.turn)
            if done:
                await self.done(job.stream, job.entry_id)
        except Exception:
            log.exception("a computer turn failed", extra={"game": job.turn.game_id})
        finally:
            self._active.discard(job)
            holders[0] -= 1
            if not holders[0]:
                del self._game_locks[game_id]
            if release:
                self._capacity.release()

    async def _snapshot(self, game_id: str) -> common_pb2.GameSnapshot:
        return await self.engine.GetGame(engine_pb2.GetGameRequest(game_id=game_id), timeout=5)

    async def _play(self, job: common_pb2.ComputerTurn) -> bool:
        """Plays the computer's turn to its end; True when the job is done with (played, or no
        longer the computer's), False to leave it to be claimed again (the engine is down)."""
        retries = 0
        while True:
            try:
                snapshot = await self._snapshot(job.game_id)
                if not snapshot.facts.ai_thinking or snapshot.facts.turn != job.turn:
                    return True
                await self._play_on(snapshot)
                return True
            except grpc.RpcError as exc:
                refusal = refusal_of(exc)
                if refusal.reason in _OVER:
                    log.info("computer turn stopped", extra={"game": job.game_id, "reason": refusal.reason})
                    return True
                if refusal.reason in ("stale", "busy") and retries < _RETRIES:
                    # The game moved on under this turn (its screen went away, or another
                    # replica plays it too): look again and go on from where it stands.
                    retries += 1
                    continue
                if refusal.reason == "unavailable" and retries < _RETRIES:
                    # The engine or Redis is coming back: keep the turn (it stays fresh while
                    # active) and try again shortly rather than leave it idle to be claimed.
                    retries += 1
                    await asyncio.sleep(min(_BACK_AT_MOST, _BACK_SOON * 2**retries))
                    continue
                log.warning("computer turn interrupted", extra={"game": job.game_id, "reason": refusal.reason})
                return False

    async def _act(self, snapshot: common_pb2.GameSnapshot, action: common_pb2.Action) -> common_pb2.GameSnapshot:
        # The reply's record is what the next action is chosen from.
        request = engine_pb2.ActRequest(
            game_id=snapshot.game_id, actor=common_pb2.ACTOR_AI, action=action, expected_seq=snapshot.seq,
            with_record=True,
        )  # fmt: skip
        return await self.engine.Act(request, timeout=10)

    async def _play_on(self, snapshot: common_pb2.GameSnapshot) -> None:
        """Plays until the computer is no longer to move (its turn ended, or the game did)."""
        while snapshot.facts.ai_thinking:
            fast = snapshot.ai_speed == "fast"
            pause = self.config.ai_pause_fast_seconds if fast else self.config.ai_pause_normal_seconds
            level = snapshot.level or "practice"
            if snapshot.facts.phase == "roll":
                await asyncio.sleep(pause)
                snapshot = await self._act(snapshot, common_pb2.Action(roll=True))
                continue
            thought = await self.thinker.think(snapshot.record, level)
            log.info(
                "computer turn chosen",
                extra={"game": snapshot.game_id, "seq": snapshot.seq, "ai_level": level,
                       "seconds": round(thought.seconds, 3), "actions": len(thought.actions),
                       "fallbacks": thought.fallbacks},
            )  # fmt: skip
            AI_THINK.labels(level).observe(thought.seconds)
            CELERY_TASKS.labels("done").inc(thought.tasks_done)
            CELERY_FALLBACKS.inc(thought.fallbacks)
            for seconds in thought.task_seconds:
                CELERY_TASK_LATENCY.observe(seconds)
            for action in thought.actions:
                await asyncio.sleep(pause)
                snapshot = await self._act(snapshot, action_to_proto(action))
            AI_TURNS.labels(level).inc()
