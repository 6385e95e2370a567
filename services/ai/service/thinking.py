"""Choosing the computer's turn, in a worker process: the players are CPU-bound, and the
service's event loop keeps pacing other games' moves meanwhile."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from boxedin.common.parent_watch import end_with_parent
from boxedin.common.settings import Settings
from boxedin.engine import codec
from boxedin.engine.actions import Action
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES

from ..turn import take_turn
from .fanout import CeleryEvaluator
from .pools import stop_pool

log = logging.getLogger("boxedin.ai")
# Celery tasks an Expert turn is spread over (one per worker process).
SHARES = 2
# How far past its budget a turn may run before its worker process is given up on.
THINK_GRACE_SECONDS = 15.0


@dataclass
class Thought:
    actions: list[dict[str, Any]]
    seconds: float
    tasks_done: int = 0
    fallbacks: int = 0
    task_seconds: list[float] = field(default_factory=list)


def start_worker(parent: int) -> None:
    """A chooser process's start (its pool's ``initializer``): it ends with its service, and it
    chooses one turn of each kind before it takes any. Otherwise the first turns after a start
    wait on the imports and the first use of the search's tables: 100 games begun together
    waited up to 2.3 s for their first computer move, on a quiet machine."""
    end_with_parent(parent)
    game = Game.from_mode(MODES["classic"])
    for level in ("easy", "normal", "hard"):
        take_turn(game, level, budget=0.05)


def started() -> int:
    """Nothing to do: a task that makes the pool start a process (see Thinker.warm)."""
    return os.getpid()


def choose_turn(record: bytes, level: str, budget: float, use_pool: bool, expiry: float) -> Thought:
    """The rest of the computer's turn in a serialised game (a roll already made), as
    transcript actions; Expert's evaluation goes to the worker pool when ``use_pool``."""
    game = codec.decode(record)
    started = time.perf_counter()
    evaluator = None
    if level == "expert" and use_pool:
        rules = game.rules
        evaluator = CeleryEvaluator(
            [rules.boxes, list(rules.sizes), int(rules.overlap), rules.die or 0, rules.capturing_edge_free,
             rules.capture_owes_line],
            SHARES,
            expiry,
        )  # fmt: skip
    actions: list[Action] = take_turn(game, level, budget=budget, evaluate=evaluator)
    thought = Thought([a.to_json() for a in actions], time.perf_counter() - started)
    if evaluator is not None:
        thought.tasks_done = evaluator.report.tasks_done
        thought.fallbacks = evaluator.report.fallbacks
        thought.task_seconds = evaluator.report.task_seconds
    return thought


class Thinker:
    """Chooses turns in worker processes. A worker that does not answer well past the budget is
    replaced, so that one stuck process cannot stall every game, and the turn is chosen again:
    by the same level on the new workers, and if that fails too, by Hard in this process, so
    that the game goes on."""

    def __init__(self, config: Settings, make_executor: Callable[[], Executor]) -> None:
        self.config = config
        self.make_executor = make_executor
        self.executor = make_executor()

    async def warm(self, processes: int) -> None:
        """Starts the pool's processes, and waits until they can choose (``start_worker``)."""
        loop = asyncio.get_running_loop()
        # A pool starts a process for a task when none is idle: tasks given at once start them all.
        await asyncio.gather(*(loop.run_in_executor(self.executor, started) for _ in range(processes)))

    async def think(self, record: bytes, level: str) -> Thought:
        try:
            return await self._in_pool(record, level)
        except TimeoutError:
            pass
        try:
            return await self._in_pool(record, level)
        except TimeoutError:
            log.error("a turn failed twice in the worker processes; Hard chooses it", extra={"ai_level": level})
            budget = self.config.expert_budget_seconds
            return await asyncio.to_thread(choose_turn, record, "hard", budget, False, 0.0)

    async def _in_pool(self, record: bytes, level: str) -> Thought:
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
            log.error("a turn took far too long; replacing the worker processes", extra={"ai_level": level})
            stuck = self.executor
            self.executor = self.make_executor()
            # shutdown() would wait on the stuck process forever; it has to be stopped.
            await asyncio.to_thread(stop_pool, stuck, 0.0)
            raise

    def shutdown(self) -> None:
        """Stops the worker processes for good; blocking, so off the event loop."""
        stop_pool(self.executor)
