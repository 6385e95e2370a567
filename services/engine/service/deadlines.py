"""The deadline loop each engine replica runs: it claims the deadlines that fell due (one Lua
script per partition: a claimed deadline is leased to one replica alone) and applies each
through the same path as an action. A replica that dies holding a claim lets the lease run
out, and another replica claims the deadline again; a deadline applied twice is refused the
second time by the game's seq."""

from __future__ import annotations

import asyncio
import logging
import time

import redis.asyncio as redis

from boxedin.common.background import Background
from boxedin.common.metrics import DEADLINE_LATENESS, DEADLINE_LOOP_TICK, DEADLINES_FIRED, REDIS_UP, at_zero

from .server import EngineService

log = logging.getLogger("boxedin.engine.deadlines")
# What came of a claimed deadline: exported at 0 from the start ("Deadlines by outcome").
OUTCOMES = ("applied", "nothing_due")
at_zero(DEADLINES_FIRED, *((outcome,) for outcome in OUTCOMES))


class DeadlineLoop(Background):
    def __init__(self, service: EngineService, poll_seconds: float = 0.1, lease_seconds: float = 5.0) -> None:
        self.service = service
        self.poll_seconds = poll_seconds
        self.lease_seconds = lease_seconds
        self._firing: set[asyncio.Task[None]] = set()

    async def stop(self) -> None:
        """Stops claiming deadlines and lets the ones being applied finish."""
        await super().stop()
        if self._firing:
            await asyncio.wait(self._firing, timeout=2)

    async def _run(self) -> None:
        while True:
            await self.round("engine.deadlines", max(self.poll_seconds, 1.0))  # health follows it
            try:
                now = time.time()
                due = await self.service.store.claim_due(now, self.lease_seconds)
            except redis.RedisError as exc:
                REDIS_UP.set(0)
                log.warning("cannot read the deadlines", extra={"error": str(exc)})
                await asyncio.sleep(1)
                continue
            except Exception:
                # The loop must outlive anything one round meets, or no deadline fires again.
                log.exception("reading the deadlines failed")
                await asyncio.sleep(1)
                continue
            REDIS_UP.set(1)
            DEADLINE_LOOP_TICK.set(now)
            for game_id, fell_due in due:
                DEADLINE_LATENESS.observe(max(0.0, now - fell_due))
                task = asyncio.create_task(self._fire(game_id))
                self._firing.add(task)
                task.add_done_callback(self._firing.discard)
            await asyncio.sleep(self.poll_seconds)

    async def _fire(self, game_id: str) -> None:
        try:
            acted = await self.service.fire_deadline(game_id)
        except Exception:
            log.exception("applying a deadline failed", extra={"game": game_id})
            return
        DEADLINES_FIRED.labels(OUTCOMES[0] if acted else OUTCOMES[1]).inc()
