"""A Celery analysis worker whose pool process is killed in the middle of a review's turn loses
nothing: the turn goes back on the queue and the review completes, every turn kept once."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis.asyncio as aioredis
from celery import Celery

from boxedin.ai import review_work
from boxedin.ai.tasks import REVIEW_TASK
from boxedin.common.keys import ANALYSIS_QUEUE, Keys, celery_prefix
from boxedin.engine import codec
from boxedin.engine.game import Game
from boxedin.engine.rules import mode_by_id

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "test-review-kill:"
KEYS = Keys(PREFIX)


def _pool_processes(worker: subprocess.Popen[bytes]) -> list[int]:
    """The worker's pool processes: the children of the worker process this test started."""
    found = subprocess.run(["pgrep", "-P", str(worker.pid)], capture_output=True, text=True, check=False)
    return [int(pid) for pid in found.stdout.split()]


def test_a_pool_process_killed_mid_turn_loses_nothing(redis_url: str) -> None:
    game = Game.from_mode(mode_by_id("practice_4x4"), seed="kill")
    rng = random.Random(7)
    while not game.over:
        game.draw(game.geo.edges[rng.choice(game.position.open_edge_list())])
    env = {**os.environ, "BOXEDIN_REDIS_URL": redis_url, "BOXEDIN_KEY_PREFIX": PREFIX,
           "BOXEDIN_WORKER_METRICS_PORT": "0", "BOXEDIN_REVIEW_ESTIMATE_SECONDS": "0.6"}  # fmt: skip
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "boxedin.ai.tasks", "worker", "-Q", ANALYSIS_QUEUE, "--concurrency", "2",
         "--prefetch-multiplier", "1", "--pool", "prefork", "--loglevel", "WARNING",
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    sender = Celery("test-review-kill", broker=redis_url)
    sender.conf.broker_transport_options = {"global_keyprefix": celery_prefix(PREFIX)}

    async def review() -> review_work.ReviewState:
        client = aioredis.Redis.from_url(redis_url)
        try:
            total = await review_work.start(client, KEYS, "killed", codec.encode(game))
            assert total
            for index in range(total):
                sender.send_task(REVIEW_TASK, args=["killed", index], queue=ANALYSIS_QUEUE)
            killed = False
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                state = await review_work.read(client, KEYS, "killed")
                assert state is not None
                if state.complete:
                    assert killed
                    return state
                # Once the first turns are in (the pool is at work on the next ones), kill one
                # of its processes.
                pool = _pool_processes(worker)
                if not killed and state.done >= 1 and pool:
                    os.kill(pool[0], signal.SIGKILL)
                    killed = True
                await asyncio.sleep(0.05)
            raise AssertionError(f"the review did not complete: {state.done} of {state.total}")
        finally:
            await client.aclose()

    try:
        state = asyncio.run(review())
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert [t["turn"] for t in state.turns if t is not None] == sorted(t["turn"] for t in state.turns if t)
