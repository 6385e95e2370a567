"""Stalls of a service's event loop, and what each one was (issue 32: the round trip's tail).

A task wakes every ``TICK_SECONDS`` and measures how late it woke: the time every callback of
the loop waited then. A wake-up ``STALL_SECONDS`` late or more is a stall, made of three parts,
and counted by the largest:

- ``gc``: garbage collections (boxedin.common.gc_pauses) took that long;
- ``busy``: the loop's thread ran that long besides: a callback that holds the loop (a long
  computation, a large reply taken apart);
- ``starved``: the rest, while the loop's thread did not run: it waited for a CPU (the
  machine's other processes) or for the GIL (a thread of the process's own).

A ``busy`` stall is where the code can do better, ``starved`` where the machine or the number
of processes per core can. ``boxedin load --own-stack`` reports the stalls of each process.
With BOXEDIN_STALL_STACKS set, a thread also looks at the loop every ``TICK_SECONDS`` and, when
it has not woken for ``STALL_SECONDS``, logs where the loop's thread is then (a ``busy`` stall's
culprit; for measurements only: the look costs about a millisecond of CPU a second)."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
import traceback
from dataclasses import dataclass

from .gc_pauses import collected_between
from .metrics import LOOP_LAG, LOOP_STALLS, at_zero

log = logging.getLogger("boxedin.stalls")
TICK_SECONDS = 0.02
STALL_SECONDS = 0.05
CAUSES = ("gc", "busy", "starved")
at_zero(LOOP_STALLS, *((cause,) for cause in CAUSES))


@dataclass(frozen=True, slots=True)
class Stall:
    seconds: float  # how late the watch woke
    wall: float  # from the watch's sleep to its wake-up
    ran: float  # the loop thread's CPU seconds in it
    collecting: float  # seconds of garbage collection in it

    @property
    def cause(self) -> str:
        return cause_of(self.wall, self.ran, self.collecting)


def cause_of(wall: float, ran: float, collecting: float) -> str:
    """The largest part of a stall of ``wall`` seconds, given the loop thread's CPU seconds in it
    and the seconds its garbage collections took (a collection starved of CPU counts as the
    collector's: it held the loop)."""
    parts = {"gc": collecting, "busy": max(0.0, ran - collecting), "starved": max(0.0, wall - max(ran, collecting))}
    return max(parts, key=lambda cause: parts[cause])


class StallWatch:
    """Started and stopped on the loop it watches. Its tick is a plain timer callback, no task.
    A loop at work is awake anyway, and the tick costs nothing measurable there (280 actions a
    second on an own stack: the same CPU per action with it as without); an idle process pays
    about 3 ms of CPU a second for being woken 50 times."""

    def __init__(self, stacks: bool = False) -> None:
        self.stacks = stacks
        self._watcher: threading.Thread | None = None
        self._stopping = threading.Event()
        self._woke = time.perf_counter()
        self._timer: asyncio.TimerHandle | None = None
        self._before = self._ran_before = 0.0
        self.last: Stall | None = None  # the last stall seen

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._arm()
        if self.stacks:
            self._watcher = threading.Thread(
                target=self._look, args=(threading.get_ident(),), name="stall-stacks", daemon=True
            )
            self._watcher.start()

    async def stop(self) -> None:
        self._stopping.set()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self) -> None:
        self._before, self._ran_before = self._loop.time(), time.thread_time()
        self._timer = self._loop.call_later(TICK_SECONDS, self._tick)

    def _tick(self) -> None:
        now, ran = self._loop.time(), time.thread_time()
        self._woke = time.perf_counter()
        wall = now - self._before
        late = wall - TICK_SECONDS
        LOOP_LAG.observe(max(0.0, late))
        if late >= STALL_SECONDS:
            stall = Stall(late, wall, ran - self._ran_before, collected_between(self._woke - wall, self._woke))
            self.last = stall
            LOOP_STALLS.labels(stall.cause).inc()
            log.info(
                "event loop stall",
                extra={"seconds": round(late, 3), "cause": stall.cause, "ran": round(stall.ran, 3),
                       "gc": round(stall.collecting, 3)},
            )  # fmt: skip
        if not self._stopping.is_set():
            self._arm()

    def _look(self, loop_thread: int) -> None:
        reported = 0.0
        while not self._stopping.wait(TICK_SECONDS):
            woke = self._woke
            if time.perf_counter() - woke < STALL_SECONDS or woke == reported:
                continue
            reported = woke
            frame = sys._current_frames().get(loop_thread)
            if frame is not None:
                where = "".join(traceback.format_stack(frame, limit=30))
                log.info("event loop held", extra={"since": round(time.perf_counter() - woke, 3), "stack": where})
