"""What the benchmarks that measure Celery workers share: a Redis of their own, named in the
settings before the Celery app is imported, and a worker pool of N processes started and stopped
around each measure, answering before it is measured."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

# How long a worker has to answer Celery's ping after it starts.
START_SECONDS = 60


@contextmanager
def own_redis(prefix: str) -> Iterator[str]:
    """A Redis of the benchmark's own, in BOXEDIN_REDIS_URL and BOXEDIN_KEY_PREFIX (``prefix``)
    with the settings read afresh: the Celery app takes its broker from them when imported, so
    import it inside. Yields the URL."""
    from boxedin.supervisor.launcher import Stack

    stack = Stack()
    try:
        stack.start_redis()
        os.environ.update({"BOXEDIN_REDIS_URL": str(stack.redis_url), "BOXEDIN_KEY_PREFIX": prefix})
        from boxedin.common.settings import settings

        settings.cache_clear()
        yield str(stack.redis_url)
    finally:
        stack.stop()


@contextmanager
def celery_workers(processes: int, queue: str | None = None) -> Iterator[None]:
    """A Celery worker of ``processes`` pool processes (on ``queue``, or the default queue) on
    the Redis the settings name, answering its ping; stopped on leaving."""
    from boxedin.supervisor.launcher import ROOT

    env = {**os.environ, "BOXEDIN_WORKER_METRICS_PORT": "0"}
    command = [sys.executable, "-m", "celery", "-A", "boxedin.ai.tasks", "worker", "--concurrency", str(processes),
               "--prefetch-multiplier", "1", "--pool", "prefork", "--loglevel", "WARNING",
               "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip
    if queue is not None:
        command += ["-Q", queue]
    worker = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ping = [sys.executable, "-m", "celery", "-A", "boxedin.ai.tasks", "inspect", "ping", "--timeout", "1"]
        deadline = time.monotonic() + START_SECONDS
        while subprocess.run(ping, env=env, cwd=ROOT, capture_output=True, check=False).returncode:
            if worker.poll() is not None:
                raise RuntimeError(f"the Celery worker stopped while starting (exit {worker.returncode})")
            if time.monotonic() > deadline:
                raise RuntimeError("the Celery worker did not answer")
        yield
    finally:
        worker.terminate()
        worker.wait()
