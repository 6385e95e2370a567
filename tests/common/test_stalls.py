"""Stalls of an event loop, told by their cause (boxedin.common.stalls): the time a callback held
the loop computing ("busy"), the time the loop's thread did not run ("starved"), the time
garbage collection took ("gc"); the largest names the stall."""

from __future__ import annotations

import asyncio
import time

from prometheus_client import REGISTRY

from boxedin.common import gc_pauses
from boxedin.common.stalls import CAUSES, StallWatch, cause_of


def _stalls(cause: str) -> float:
    return REGISTRY.get_sample_value("boxedin_event_loop_stalls_total", {"cause": cause}) or 0.0


async def _counted_any(before: dict[str, float]) -> None:
    async with asyncio.timeout(5):
        while all(_stalls(cause) == count for cause, count in before.items()):
            await asyncio.sleep(0.01)


async def _counted(cause: str, before: float) -> None:
    async with asyncio.timeout(5):
        while _stalls(cause) == before:
            await asyncio.sleep(0.01)


def test_a_stall_of_the_loop_is_counted_by_what_held_it() -> None:
    async def scenario() -> None:
        watch = StallWatch()
        watch.start()
        try:
            await asyncio.sleep(0.05)
            # A callback computing for 0.15 s of CPU: the stall's "busy" part. (On a busy machine
            # the thread also waits for a CPU meanwhile: the largest part names the stall.)
            counted = {cause: _stalls(cause) for cause in CAUSES}
            spun = time.thread_time()
            while time.thread_time() < spun + 0.15:
                pass
            await _counted_any(counted)
            stall = watch.last
            assert stall is not None and stall.ran >= 0.15 and stall.collecting < 0.05
            assert _stalls(stall.cause) == counted[stall.cause] + 1
            # The thread not running at all (as while it waits for a CPU): starved.
            starved = _stalls("starved")
            time.sleep(0.15)
            await _counted("starved", starved)
            assert watch.last is not stall and watch.last.cause == "starved" and watch.last.ran < 0.05
        finally:
            await watch.stop()

    asyncio.run(scenario())


def test_a_stall_mostly_spent_collecting_is_the_collector_s() -> None:
    start = time.perf_counter()
    gc_pauses._timed("start", {"generation": 1})
    while time.perf_counter() < gc_pauses._started + 0.03:  # a collection of 30 ms
        pass
    gc_pauses._timed("stop", {"generation": 1})
    end = time.perf_counter()
    collecting = gc_pauses.collected_between(start - 0.01, end + 0.01)
    assert 0.03 <= collecting <= end - start
    assert gc_pauses.collected_between(end + 1, end + 2) == 0
    assert cause_of(0.05, ran=0.05, collecting=0.03) == "gc"
    assert cause_of(0.05, ran=0.05, collecting=0.01) == "busy"
    assert cause_of(0.05, ran=0.01, collecting=0.0) == "starved"
    # A collection the machine starved of CPU held the loop all the same.
    assert cause_of(0.2, ran=0.02, collecting=0.15) == "gc"
    assert cause_of(0.2, ran=0.08, collecting=0.0) == "starved"
