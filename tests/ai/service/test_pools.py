"""A process pool the AI service stops leaves no process and no thread behind: Python's exit
hook would otherwise wake the pool's thread through a pipe it may be closing, and hang."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

from boxedin.ai.service.pools import stop_pool


def _pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn"))


def test_an_idle_pool_stops_with_its_processes_and_its_thread() -> None:
    pool = _pool()
    assert list(pool.map(abs, [-1, -2])) == [1, 2]
    processes = list(pool._processes.values())
    manager = pool._executor_manager_thread
    assert manager is not None and manager.is_alive() and processes
    stop_pool(pool)
    assert not manager.is_alive()
    assert all(p.exitcode is not None for p in processes)


def test_a_busy_worker_is_killed_after_the_grace_and_the_pool_still_stops() -> None:
    pool = _pool()
    busy = pool.submit(time.sleep, 60)
    while not busy.running():
        time.sleep(0.01)
    processes = list(pool._processes.values())
    manager = pool._executor_manager_thread
    assert manager is not None
    started = time.monotonic()
    stop_pool(pool, grace=0.2)
    assert time.monotonic() - started < 10
    assert not manager.is_alive()
    assert all(p.exitcode is not None for p in processes)
