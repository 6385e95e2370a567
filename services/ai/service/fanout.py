"""Expert's evaluation spread over the Celery worker pool, within the turn's time budget.

Each worker plays the candidates out from the same position for most of the budget, numbering
its playouts in a range of its own, and the statistics are added up. A worker that has not
answered when the budget is spent is not waited for: that share is evaluated in-process
instead (a fallback, counted), so a turn never waits on a missing pool. Nor on a missing broker:
Redis gone or coming back is a pool that did not answer, not a failed turn (a failed turn would
wait for another replica to claim it, seconds later).
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from ..evaluation import CandidateStats, Replies
from ..tasks import evaluate, evaluate_for, stats_from_json

log = logging.getLogger("boxedin.ai.fanout")

# Playout numbers of worker k start at k * SHARE_STRIDE, so shares never overlap.
SHARE_STRIDE = 1 << 32
# Of the budget: the workers play for the first part and their answers are awaited until the
# second. If no worker has taken a task by the third, there is no pool to wait for: the rest of
# the budget is spent playing out here.
WORK_FRACTION = 0.85
WAIT_FRACTION = 0.95
PICKUP_FRACTION = 0.3
POLL_SECONDS = 0.005


@dataclass
class FanoutReport:
    tasks_done: int = 0
    failed: int = 0
    fallbacks: int = 0
    seconds: list[float] = field(default_factory=list)
    # Each answered task: from sending it to its answer.
    task_seconds: list[float] = field(default_factory=list)


class CeleryEvaluator:
    """A ``PlanContext.evaluate`` that hands the playouts to ``shares`` Celery tasks."""

    def __init__(self, rules: list[Any], shares: int, expiry: float) -> None:
        # [boxes, sizes, overlap code, die or 0, capturing edge free, capture owes a line]:
        # with the raw state, enough for a worker to rebuild the position.
        self.rules = rules
        self.shares = shares
        self.expiry = expiry
        self.report = FanoutReport()

    def __call__(
        self,
        pos: Any,
        candidates: list[tuple[int, ...]],
        seed: int,
        horizon: int | None,
        seconds: float,
        replies: Replies | None = None,
    ) -> list[CandidateStats]:
        started = time.perf_counter()
        wait_until = started + seconds * WAIT_FRACTION
        pickup_by = started + seconds * PICKUP_FRACTION
        state = list(pos.state_array())
        work_until = time.time() + max(0.01, seconds * WORK_FRACTION)
        totals = [CandidateStats() for _ in candidates]
        pending: list[Any] = []
        try:
            for k in range(self.shares):
                pending.append(
                    evaluate.apply_async(
                        args=(
                            self.rules,
                            state,
                            [list(c) for c in candidates],
                            work_until,
                            seed,
                            horizon,
                            k * SHARE_STRIDE,
                            None if replies is None else [[list(r) for r in faces] for faces in replies],
                        ),
                        expires=self.expiry,
                        # No publishing retries: the turn's budget is shorter than they are.
                        retry=False,
                    )
                )
            totals = self._collect(pending, totals, started, wait_until, pickup_by)
        except Exception as exc:  # the broker or the result store is away (any kombu or redis error)
            self.report.failed += len(pending) or 1
            log.warning("the worker pool's Redis did not answer; the turn is played out here",
                        extra={"error": str(exc)})  # fmt: skip
            pending = [None]
        missing = len(pending)
        for result in pending:
            if result is not None:
                with contextlib.suppress(Exception):
                    result.revoke()
        if missing or not any(t.playouts for t in totals):
            # No worker (or not every worker) answered in time: play out here for what is left.
            self.report.fallbacks += 1
            spare = max(0.02, started + seconds - time.perf_counter())
            local = evaluate_for(pos, [list(c) for c in candidates], spare, seed, self.rules[3] or None, horizon,
                                 self.shares * SHARE_STRIDE, replies)  # fmt: skip
            totals = [a + b for a, b in zip(totals, local, strict=True)]
        self.report.seconds.append(time.perf_counter() - started)
        return totals

    def _collect(
        self, pending: list[Any], totals: list[CandidateStats], started: float, wait_until: float, pickup_by: float
    ) -> list[CandidateStats]:
        """Adds up the answers that come in time; ``pending`` keeps the ones that did not."""
        # Poll rather than block in get(): the result backend's own waiting rounds the timeout
        # up to whole seconds, far beyond a turn's budget.
        taken = False
        while pending and time.perf_counter() < wait_until:
            if not taken:
                taken = any(r.state != "PENDING" for r in pending) or len(pending) < self.shares
                if not taken and time.perf_counter() > pickup_by:
                    break
            for result in [r for r in pending if r.ready()]:
                pending.remove(result)
                if result.successful():
                    self.report.task_seconds.append(time.perf_counter() - started)
                    raw = result.get(disable_sync_subtasks=False)
                    totals = [a + stats_from_json(b) for a, b in zip(totals, raw, strict=True)]
                    self.report.tasks_done += 1
                else:
                    self.report.failed += 1
            if pending:
                time.sleep(POLL_SECONDS)
        return totals
