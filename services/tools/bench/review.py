"""`boxedin bench review`: how long the review of a whole game takes on the Celery analysis queue,
with 1 worker process (the baseline) and 2, in the same run: a Classic game and a Standard 5x5
game (Hard against itself, seeded: every run reviews the same games), each reviewed ``--runs``
times afresh. Prints the wall time per game (median and spread over the runs), the time per turn
and the share of turns whose figures are exact. The goal (issue 29): 30 s or less a game with 2
worker processes.

It starts a Redis of its own and the analysis workers it measures."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from typing import Any

from boxedin.ai.turn import take_turn
from boxedin.engine import codec
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES

from .celery_workers import celery_workers, own_redis

GAMES = ("classic", "standard")


def hard_game(mode: str, seed: str) -> Game:
    """A whole game of Hard against itself."""
    game = Game.from_mode(MODES[mode], None, seed=seed)
    while not game.over:
        for action in take_turn(game, "hard", seed=seed):
            game.apply(action)
    return game


async def review_once(record: bytes, timeout: float) -> dict[str, Any]:
    """One review of the game, from the first ask to its last turn, on whatever workers serve
    the analysis queue."""
    import redis.asyncio as aioredis

    from boxedin.ai import review_work
    from boxedin.ai.tasks import REVIEW_TASK, app
    from boxedin.common.keys import ANALYSIS_QUEUE
    from boxedin.common.settings import settings

    config = settings()
    client = aioredis.Redis.from_url(config.redis_url)
    game_id = uuid.uuid4().hex
    try:
        started = time.perf_counter()
        total = await review_work.start(client, config.keys(), game_id, record)
        assert total is not None
        for index in range(total):
            app.send_task(REVIEW_TASK, args=[game_id, index], queue=ANALYSIS_QUEUE)
        deadline = started + timeout
        while True:
            state = await review_work.read(client, config.keys(), game_id)
            assert state is not None
            if state.complete or time.perf_counter() > deadline:
                break
            await asyncio.sleep(0.05)
        wall = time.perf_counter() - started
        turns = [t for t in state.turns if t is not None]
        return {
            "seconds": wall,
            "turns": state.total,
            "done": len(turns),
            "exact_share": sum(1 for t in turns if t["exact"]) / max(1, len(turns)),
            "turn_seconds": [t["seconds"] for t in turns],
        }
    finally:
        await client.aclose()


def measure(records: dict[str, bytes], runs: int, timeout: float) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for mode, record in records.items():
        results = [asyncio.run(review_once(record, timeout)) for _ in range(runs)]
        walls = [r["seconds"] for r in results]
        per_turn = [s for r in results for s in r["turn_seconds"]]
        figures[mode] = {
            "turns": results[0]["turns"],
            "complete": all(r["done"] == r["turns"] for r in results),
            "game_seconds_median": round(statistics.median(walls), 2),
            "game_seconds_spread": [round(min(walls), 2), round(max(walls), 2)],
            "turn_seconds_median": round(statistics.median(per_turn), 3) if per_turn else None,
            "turn_seconds_max": round(max(per_turn), 3) if per_turn else None,
            "exact_share": round(statistics.mean(r["exact_share"] for r in results), 3),
        }
    return figures


def run(args: argparse.Namespace) -> int:
    if args.runs < 1 or args.timeout <= 0:
        print("boxedin bench review: --runs and --timeout are above 0", file=sys.stderr)
        return 2
    with own_redis("review-bench:"):
        records = {mode: codec.encode(hard_game(mode, f"review-bench:{mode}")) for mode in GAMES}
        results: dict[str, Any] = {"runs": args.runs}
        for workers in args.workers:
            with celery_workers(workers, queue="analysis"):
                results[f"workers_{workers}"] = measure(records, args.runs, args.timeout)
    print(json.dumps(results))
    return 0


def add_to(targets: Any) -> None:
    review = targets.add_parser("review", help="whole-game reviews on the analysis queue with 1 and 2 worker processes")
    review.add_argument("--runs", type=int, default=3, help="reviews of each game per worker count (default 3)")
    review.add_argument(
        "--workers", type=int, nargs="+", default=[1, 2], help="worker processes to measure (default 1 2)"
    )
    review.add_argument("--timeout", type=float, default=300.0, help="seconds one review may take (default 300)")
    review.set_defaults(handler=run)
