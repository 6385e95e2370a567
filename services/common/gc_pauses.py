"""Garbage collection in a long-running service: timed, and kept from stopping the world often.

A collection of the oldest generation walks every object the process holds. A replica with
thousands of games in memory (the engine's copies of games and their last states, the gateway's
connections) holds millions, and such a collection then pauses every call for 100 to 250 ms,
which is the tail of the round trip (`boxedin load --own-stack` reports the pauses). Reference
counting frees almost everything the services make; the cycle collector only finds cycles. So
the oldest generation is collected ten times less often than Python's default, and the objects
made while starting (modules, classes, settings), which live as long as the process, are moved
out of the collector's sight."""

from __future__ import annotations

import gc
import time
from collections import deque
from typing import Any

from .metrics import GC_PAUSE

# Python's default is (700, 10, 10): a full collection after ten collections of the middle one
# (and once a quarter of the old objects are new since the last). The youngest generation is
# kept at 700 (issue 32): collected less often, it lets more of a gateway's objects that live a
# player's think time survive into the middle one, whose collections then grew from about 2 ms
# to 18 (2,000) and 60-270 ms (10,000) at 1,500 players, for 2-5% less CPU.
THRESHOLDS = (700, 10, 100)


def settle_gc() -> None:
    """Called once the process has started: freezes what starting made, sets the thresholds and
    times every collection from now on (boxedin_gc_pause_seconds)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    if _timed not in gc.callbacks:
        gc.callbacks.append(_timed)


_started = 0.0
# The last collections, (start, end) on time.perf_counter(): what a stall of the event loop was
# (boxedin.common.stalls).
_recent: deque[tuple[float, float]] = deque(maxlen=256)


def _timed(phase: str, info: dict[str, Any]) -> None:
    global _started
    if phase == "start":
        _started = time.perf_counter()
    else:
        ended = time.perf_counter()
        GC_PAUSE.labels(str(info["generation"])).observe(ended - _started)
        _recent.append((_started, ended))


def collected_between(start: float, end: float) -> float:
    """The seconds garbage collections took between two moments (time.perf_counter())."""
    return sum(min(end, stop) - max(start, began) for began, stop in _recent if stop > start and began < end)
