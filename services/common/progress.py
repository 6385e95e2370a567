"""Health that follows the work: the loops a service owns report a round each time they go
round (a heartbeat), and a service is ready only while each of them keeps going.

- **Readiness** (gRPC health service ``""``, the gateway's ``/readyz``): NOT_SERVING while a loop
  has made no round for longer than its allowed stall (``max(health_stall_min_seconds,
  health_stall_factor × its interval)``), or while Redis has been out of reach for longer than
  ``redis_blip_seconds``. Kubernetes takes such a pod out of its Service and puts it back when the
  loop goes round again.
- **Liveness** (gRPC health service ``boxedin.liveness``, the gateway's ``/healthz``):
  NOT_SERVING only when the process is stuck: a loop stalled ``health_liveness_factor`` times
  longer than its readiness allows. An event loop that does not answer at all fails the probe by
  its timeout (the health service runs on that loop). Redis being away never restarts a process.

A test-only control freezes loops: with ``BOXEDIN_TEST_CONTROLS=1``, while the file named by
``BOXEDIN_TEST_FREEZE_FILE`` exists and names a loop (its name or its group, one a line), that
loop's rounds block before doing any work. Settings refuse both in production.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .metrics import REDIS_UP

if TYPE_CHECKING:
    from grpc_health.v1 import health

    from .settings import Settings

log = logging.getLogger("boxedin.progress")
# The gRPC health service name the liveness probes ask for ("" is readiness).
LIVENESS = "boxedin.liveness"
# How often a frozen loop looks whether it is still frozen.
_FROZEN_POLL = 0.05


@dataclass
class Policy:
    stall_factor: float = 5.0
    stall_min_seconds: float = 10.0
    liveness_factor: float = 6.0
    redis_blip_seconds: float = 10.0
    freeze_file: Path | None = None

    @classmethod
    def of(cls, config: Settings) -> Policy:
        freeze = Path(config.test_freeze_file) if config.test_controls and config.test_freeze_file else None
        return cls(
            config.health_stall_factor,
            config.health_stall_min_seconds,
            config.health_liveness_factor,
            config.redis_blip_seconds,
            freeze,
        )


class Blip:
    """Tells a short outage from a long one: ``ok`` while the thing answers, ``reconnecting``
    while it has failed for no longer than ``seconds``, ``down`` after."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.failing_since: float | None = None

    def report(self, ok: bool, now: float) -> str:
        if ok:
            self.failing_since = None
            return "ok"
        if self.failing_since is None:
            self.failing_since = now
        return "reconnecting" if now - self.failing_since <= self.seconds else "down"


class Loop:
    """One loop a service owns: ``await round()`` at the top of each round."""

    def __init__(self, watch: Watch, name: str, interval: float, group: str) -> None:
        self.watch = watch
        self.name = name
        self.group = group
        self.interval = interval
        self.last = watch.clock()

    async def round(self) -> None:
        """A heartbeat; blocks first while a test freezes this loop."""
        while self.watch.frozen(self):
            await asyncio.sleep(_FROZEN_POLL)
        self.last = self.watch.clock()

    def allowed_stall(self) -> float:
        policy = self.watch.policy
        return max(policy.stall_min_seconds, policy.stall_factor * self.interval)

    def stalled_for(self, now: float) -> float:
        return max(0.0, now - self.last)


@dataclass(frozen=True)
class Health:
    ready: bool
    live: bool
    stalled: list[str] = field(default_factory=list)  # loops past their allowed stall
    stuck: list[str] = field(default_factory=list)  # loops past the liveness threshold
    redis: str = "ok"


def _redis_up() -> bool:
    """What this process's loops last saw of Redis (``boxedin_redis_up``)."""
    for family in REDIS_UP.collect():
        for sample in family.samples:
            return sample.value >= 1
    return True


class Watch:
    """The loops of one process, and what their progress says of its health."""

    def __init__(self, policy: Policy | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy or Policy()
        self.clock = clock
        self.loops: dict[str, Loop] = {}
        self.redis = Blip(self.policy.redis_blip_seconds)

    def configure(self, config: Settings) -> None:
        self.policy = Policy.of(config)
        self.redis.seconds = self.policy.redis_blip_seconds

    def loop(self, name: str, interval: float, group: str | None = None) -> Loop:
        """Registers a loop (again under the same name: the same loop, its interval updated)."""
        loop = self.loops.get(name)
        if loop is None:
            loop = self.loops[name] = Loop(self, name, interval, group or name)
        loop.interval = interval
        return loop

    def forget(self, name: str) -> None:
        self.loops.pop(name, None)

    def frozen(self, loop: Loop) -> bool:
        path = self.policy.freeze_file
        if path is None:
            return False
        try:
            names = {line.strip() for line in path.read_text().splitlines()}
        except OSError:
            return False
        return bool(names & {loop.name, loop.group, "*"})

    def stalls(self) -> tuple[list[str], list[str]]:
        """The loops past their allowed stall (not ready), and those among them stalled
        ``liveness_factor`` times longer (stuck: not alive)."""
        now = self.clock()
        stalled, stuck = [], []
        for loop in list(self.loops.values()):
            waited, allowed = loop.stalled_for(now), loop.allowed_stall()
            if waited > allowed:
                stalled.append(loop.name)
                if waited > allowed * self.policy.liveness_factor:
                    stuck.append(loop.name)
        return stalled, stuck

    def health(self, redis_ok: bool | None = None) -> Health:
        """Readiness and liveness now. ``redis_ok``: what the caller saw of Redis; by default,
        ``boxedin_redis_up`` (looked at only in a process that has loops: they set it)."""
        now = self.clock()
        stalled, stuck = self.stalls()
        if redis_ok is None:
            redis_ok = _redis_up() if self.loops else True
        redis = self.redis.report(redis_ok, now)
        return Health(ready=not stalled and redis != "down", live=not stuck, stalled=stalled, stuck=stuck, redis=redis)


# The process's own watch: each service is a process of its own.
WATCH = Watch()


async def follow(servicer: health.aio.HealthServicer, names: list[str], watch: Watch = WATCH) -> None:
    """Keeps the gRPC health of ``names`` (readiness: ``""`` and the service's own name) and of
    ``LIVENESS`` following the watch, until cancelled."""
    from grpc_health.v1 import health_pb2

    serving, not_serving = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING
    was: Health | None = None
    while True:
        now = watch.health()
        if was is None or (now.ready, now.live) != (was.ready, was.live):
            for name in names:
                await servicer.set(name, serving if now.ready else not_serving)
            await servicer.set(LIVENESS, serving if now.live else not_serving)
            if was is not None:
                level = logging.INFO if now.ready else logging.WARNING
                log.log(level, "health changed", extra={"ready": now.ready, "live": now.live,
                                                        "stalled": now.stalled, "stuck": now.stuck,
                                                        "redis": now.redis})  # fmt: skip
        was = now
        await asyncio.sleep(_tick(watch))


def _tick(watch: Watch) -> float:
    """Looks often enough to notice the shortest allowed stall within a quarter of it."""
    shortest = min((loop.allowed_stall() for loop in watch.loops.values()), default=watch.policy.stall_min_seconds)
    return max(0.05, min(1.0, shortest / 4, watch.policy.redis_blip_seconds / 4))
