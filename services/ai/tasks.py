"""The Celery worker pool for Expert: each task evaluates candidate turns by playouts.

Redis is the broker (and keeps the results for a minute); a worker takes one task at a time
(prefetch 1), and a task that waited longer than its expiry is dropped unrun: by then the AI
service has gone on without it.

    celery -A boxedin.ai.tasks worker --concurrency 2 --prefetch-multiplier 1

The reviews' turns (``review_turn``) go to a queue of their own, ``analysis``, which a worker of
its own serves (``-Q analysis``), so that an Expert turn in play never waits behind a review.
Those tasks are acknowledged only once they ran, and one whose pool process died goes back on
the queue (``review_work``).
"""

from __future__ import annotations

import time
from typing import Any

import redis
from celery import Celery
from celery.signals import worker_init, worker_process_init
from celery.worker import state as worker_state
from prometheus_client import start_http_server

from boxedin.common.keys import ANALYSIS_QUEUE, celery_prefix
from boxedin.common.metrics import WORKERS_BUSY
from boxedin.common.settings import settings
from boxedin.engine.backend import core
from boxedin.engine.board import geometry

from .context import Position
from .evaluation import CandidateStats, Replies, evaluate_candidates, exact_lookahead
from .review_work import analyse

REVIEW_TASK = "boxedin.review.turn"
_config = settings()
app = Celery("boxedin", broker=_config.celery_url, backend=_config.celery_url)
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    worker_prefetch_multiplier=1,
    task_acks_late=False,
    result_expires=60,
    # A task reports when a worker takes it, so the AI service knows at once whether a pool
    # is there to wait for.
    task_track_started=True,
    broker_connection_retry_on_startup=True,
    # Every key Celery writes starts with the installation's prefix.
    # The visibility timeout brings back a review turn taken by a worker that vanished whole
    # (a killed pool process's turn comes back at once); Expert's tasks are acknowledged when
    # taken, so it never applies to them.
    broker_transport_options={"global_keyprefix": celery_prefix(_config.key_prefix), "visibility_timeout": 300},
    task_routes={REVIEW_TASK: {"queue": ANALYSIS_QUEUE}},
    # No retrying a lost result store: the AI service polls for its answers within a turn's
    # budget and plays the turn out itself when they do not come; Celery's own 20 reconnects a
    # second apart would hold the turn for as long (Redis restarting).
    result_backend_transport_options={
        "global_keyprefix": celery_prefix(_config.key_prefix),
        "retry_policy": {"max_retries": 0},
    },
)


@worker_init.connect
def serve_metrics(**_: Any) -> None:
    """The worker's own Prometheus figures, from its main process, which dispatches the tasks to
    the pool and so knows which are running."""
    if _config.worker_metrics_port:
        WORKERS_BUSY.set_function(lambda: len(worker_state.active_requests))
        start_http_server(_config.worker_metrics_port, addr=_config.metrics_host)


@worker_process_init.connect
def warm_up(**_: Any) -> None:
    """Builds every preset board and plays a few playouts in each new worker process, so that
    the first real task is as quick as the rest (a slow first answer misses its turn)."""
    from boxedin.engine.rules import MODES

    for mode in MODES.values():
        rules = mode.rules
        position = core().Position(geometry(rules.boxes, rules.sizes), int(rules.overlap), rules.die or 0,
                                   rules.capturing_edge_free, rules.capture_owes_line, 0)  # fmt: skip
        evaluate_for(position, [[position.open_edge_list()[0]]], 0.01, 1, rules.die, None, 0)


def position_from(rules: list[Any], state: list[int]) -> Position:
    """A position rebuilt from its rules (boxes, sizes, overlap code, die or 0, capturing edge
    free, capture owes a line) and its raw state."""
    boxes, sizes, overlap, die, free, owes = rules
    position: Position = core().Position(geometry(boxes, tuple(sizes)), overlap, die, free, owes, 0)
    position.set_state(state)
    return position


@app.task(name="boxedin.expert.evaluate")
def evaluate(
    rules: list[Any],
    state: list[int],
    candidates: list[list[int]],
    until: float,
    seed: int,
    horizon: int | None,
    first_playout: int,
    replies: list[list[list[int]]] | None = None,
    cut_share: float = 1.0,
) -> list[dict[str, Any]]:
    """Plays the candidates out in batches from the position (the turn's roll made) until the
    wall-clock time ``until`` (a deadline, not a duration, so a task that starts late still
    answers in time), numbering playouts from ``first_playout`` so that several workers never
    repeat each other's. ``replies``: the opponent's next turn after each candidate on every
    face of the die (``evaluation.evaluate_candidates``), or None; ``cut_share``: how a cut
    playout is scored (the same)."""
    seconds = max(0.005, until - time.time())
    position = position_from(rules, state)
    die = rules[3] or None
    return [
        s.to_json()
        for s in evaluate_for(position, candidates, seconds, seed, die, horizon, first_playout, replies, cut_share)
    ]


def evaluate_for(
    position: Position,
    candidates: list[list[int]],
    seconds: float,
    seed: int,
    die: int | None,
    horizon: int | None,
    first_playout: int,
    replies: Replies | None = None,
    cut_share: float = 1.0,
) -> list[CandidateStats]:
    """``evaluate_candidates`` in growing batches until ``seconds`` are spent; just one batch
    where the playouts are exact (``exact_lookahead``: every face of the reply, cut after it)."""
    deadline = time.perf_counter() + seconds
    totals = [CandidateStats() for _ in candidates]
    # With replies, a multiple of the die: each batch then meets every face of the opponent's
    # roll equally often (``evaluate_candidates`` starts playout j from face j % die + 1).
    batch, done = (len(replies[0]) if replies else 2), 0
    while True:
        started = time.perf_counter()
        stats = evaluate_candidates(
            position, candidates, playouts=batch, seed=seed, die=die, horizon=horizon,
            first_playout=first_playout + done, replies=replies, cut_share=cut_share,
        )  # fmt: skip
        totals = [a + b for a, b in zip(totals, stats, strict=True)]
        done += batch
        if exact_lookahead(horizon, replies):
            return totals
        spent = time.perf_counter() - started
        if deadline - time.perf_counter() <= spent * 1.2:
            return totals
        if spent < 0.02:
            batch *= 2


_review_redis: redis.Redis | None = None


@app.task(name=REVIEW_TASK, acks_late=True, reject_on_worker_lost=True)
def review_turn(game_id: str, index: int) -> bool:
    """One turn of a review (``review_work.analyse``): True when this run kept its figures."""
    global _review_redis
    if _review_redis is None:
        _review_redis = redis.Redis.from_url(_config.redis_url)
    return analyse(_review_redis, _config.keys(), game_id, index, _config.review_estimate_seconds)


def stats_from_json(raw: dict[str, Any]) -> CandidateStats:
    return CandidateStats(raw["playouts"], raw["total"], raw["total_sq"], raw["wins"], raw["losses"], raw["cross"])
