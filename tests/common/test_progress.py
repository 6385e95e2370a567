"""Health that follows the work (boxedin.common.progress), without the services: a loop that
stops going round makes its process not ready after its allowed stall, not alive only far
later, and ready again when it goes round; a Redis blip shorter than the setting keeps it ready;
the test-only freeze blocks a loop's rounds while its file names it, and is refused in
production."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from grpc_health.v1 import health, health_pb2
from pydantic import ValidationError

from boxedin.ai.service import turns
from boxedin.ai.service.turns import TurnPlayer
from boxedin.common import progress
from boxedin.common.background import Background
from boxedin.common.metrics import REDIS_UP
from boxedin.common.progress import LIVENESS, Blip, Policy, Watch
from boxedin.common.settings import Settings

SERVING, NOT_SERVING = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def watch_with(clock: Clock, **policy: float) -> Watch:
    return Watch(Policy(**policy), clock)  # type: ignore[arg-type]


def test_the_allowed_stall_follows_the_interval_with_a_minimum() -> None:
    watch = watch_with(Clock(), stall_factor=5, stall_min_seconds=10)
    assert watch.loop("fast", 0.2).allowed_stall() == 10
    assert watch.loop("slow", 3).allowed_stall() == 15


def test_a_stalled_loop_is_not_ready_then_stuck_and_ready_again_when_it_goes_round() -> None:
    clock = Clock()
    watch = watch_with(clock, stall_factor=5, stall_min_seconds=1, liveness_factor=4)
    loop = watch.loop("engine.deadlines", 1.0)  # allowed 5 s; stuck after 20 s
    other = watch.loop("other", 1.0)

    def beat_other() -> None:
        asyncio.run(other.round())

    assert watch.health(redis_ok=True) == progress.Health(ready=True, live=True)
    clock.now += 4.9
    beat_other()
    assert watch.health(redis_ok=True).ready
    clock.now += 0.2
    beat_other()
    health_now = watch.health(redis_ok=True)
    assert (health_now.ready, health_now.live, health_now.stalled) == (False, True, ["engine.deadlines"])
    clock.now += 15
    beat_other()
    health_now = watch.health(redis_ok=True)
    assert (health_now.ready, health_now.live, health_now.stuck) == (False, False, ["engine.deadlines"])
    asyncio.run(loop.round())
    assert watch.health(redis_ok=True) == progress.Health(ready=True, live=True)


def test_a_redis_blip_shorter_than_the_setting_keeps_the_service_ready() -> None:
    clock = Clock()
    watch = watch_with(clock, redis_blip_seconds=10)
    assert watch.health(redis_ok=False).redis == "reconnecting"
    clock.now += 9.5
    assert watch.health(redis_ok=False) == progress.Health(ready=True, live=True, redis="reconnecting")
    assert watch.health(redis_ok=True).redis == "ok"  # back: the next outage counts from zero
    clock.now += 5
    assert watch.health(redis_ok=False).ready
    clock.now += 10.5
    outage = watch.health(redis_ok=False)
    assert (outage.ready, outage.live, outage.redis) == (False, True, "down")  # never restarted for Redis
    assert watch.health(redis_ok=True).ready


def test_blip_counts_one_outage_from_its_first_failure() -> None:
    blip = Blip(2)
    assert [blip.report(ok, now) for ok, now in [(False, 0), (False, 2), (False, 2.1), (True, 3), (False, 4)]] == [
        "reconnecting", "reconnecting", "down", "ok", "reconnecting",
    ]  # fmt: skip


def test_redis_up_is_looked_at_only_in_a_process_with_loops() -> None:
    clock = Clock()
    watch = watch_with(clock, redis_blip_seconds=1)
    REDIS_UP.set(0)
    try:
        clock.now += 5
        assert watch.health().ready  # the matchmaker's case: nothing of it sets boxedin_redis_up
        watch.loop("reader", 1.0)
        watch.health()
        clock.now += 1.5
        assert watch.health().redis == "down"
        REDIS_UP.set(1)
        assert watch.health().ready
    finally:
        REDIS_UP.set(1)


def test_the_freeze_file_blocks_the_rounds_of_the_loops_it_names(tmp_path: Path) -> None:
    freeze = tmp_path / "freeze"
    watch = Watch(Policy(freeze_file=freeze))
    reader = watch.loop("ai.turns:boxedin:work:{0}", 3.0, "ai.turns")
    counter = watch.loop("stats.counter:x", 3.0, "stats.counter")

    async def scenario() -> None:
        freeze.write_text("ai.turns\n")
        blocked = asyncio.create_task(reader.round())
        await asyncio.wait_for(counter.round(), 1)  # not named: goes round
        await asyncio.sleep(0.2)
        assert not blocked.done()
        freeze.unlink()
        await asyncio.wait_for(blocked, 1)
        freeze.write_text("stats.counter:x\n")  # a loop by its own name
        assert watch.frozen(counter) and not watch.frozen(reader)

    asyncio.run(scenario())


def test_without_the_test_controls_the_freeze_file_is_ignored(tmp_path: Path) -> None:
    freeze = tmp_path / "freeze"
    freeze.write_text("*\n")
    off = Settings(test_freeze_file=str(freeze))
    assert Policy.of(off).freeze_file is None
    on = Settings(test_freeze_file=str(freeze), test_controls=True)
    assert Policy.of(on).freeze_file == freeze


@pytest.mark.parametrize("controls", [{"test_controls": True}, {"test_freeze_file": "/tmp/freeze"}])
def test_the_test_controls_are_refused_in_production(controls: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match="refused in production"):
        Settings(production=True, ops_token="x", **controls)  # type: ignore[arg-type]


def test_the_settings_have_their_defaults() -> None:
    policy = Policy.of(Settings())
    assert (policy.stall_factor, policy.stall_min_seconds, policy.liveness_factor, policy.redis_blip_seconds) == (
        5.0, 10.0, 6.0, 10.0,
    )  # fmt: skip


class Ticking(Background):
    def __init__(self) -> None:
        self.rounds = 0

    async def _run(self) -> None:
        while True:
            await self.round("ticking", 0.01)
            self.rounds += 1
            await asyncio.sleep(0.01)


def test_a_background_loop_reports_its_rounds_and_is_forgotten_when_stopped() -> None:
    async def scenario() -> None:
        ticking = Ticking()
        ticking.start()
        while ticking.rounds < 3:
            await asyncio.sleep(0.01)
        assert "ticking" in progress.WATCH.loops
        await ticking.stop()
        assert "ticking" not in progress.WATCH.loops

    asyncio.run(scenario())


def test_the_grpc_health_follows_the_watch(tmp_path: Path) -> None:
    """Readiness ("" and the service's name) and liveness, as the probes ask for them."""
    freeze = tmp_path / "freeze"
    watch = Watch(Policy(stall_factor=1, stall_min_seconds=0.2, liveness_factor=3, freeze_file=freeze))
    loop = watch.loop("ai.turns:s", 0.1, "ai.turns")

    async def scenario() -> None:
        servicer = health.aio.HealthServicer()

        class NotYet(Exception):
            pass

        class Context:
            async def abort(self, code: object) -> None:
                raise NotYet(code)  # NOT_FOUND: not set yet

        async def status(name: str) -> int:
            try:
                reply = await servicer.Check(health_pb2.HealthCheckRequest(service=name), Context())
            except NotYet:
                return -1
            return int(reply.status)

        async def until(name: str, wanted: int) -> None:
            deadline = asyncio.get_running_loop().time() + 5
            while await status(name) != wanted:
                assert asyncio.get_running_loop().time() < deadline, (name, wanted)
                await asyncio.sleep(0.02)

        async def run_loop() -> None:
            while True:
                await loop.round()
                await asyncio.sleep(0.05)

        running = asyncio.create_task(run_loop())
        following = asyncio.create_task(progress.follow(servicer, ["", "boxedin.v1.Ai"], watch))
        await until(LIVENESS, SERVING)  # set last
        assert await status("") == SERVING
        assert await status("boxedin.v1.Ai") == SERVING and await status(LIVENESS) == SERVING
        freeze.write_text("ai.turns\n")
        await until("", NOT_SERVING)
        assert await status("boxedin.v1.Ai") == NOT_SERVING
        assert await status(LIVENESS) == SERVING  # not ready, but not restarted
        await until(LIVENESS, NOT_SERVING)  # stalled three times longer than readiness allows
        freeze.unlink()
        await until("", SERVING)
        assert await status(LIVENESS) == SERVING
        for task in (running, following):
            task.cancel()
        await asyncio.gather(running, following, return_exceptions=True)

    asyncio.run(scenario())


def test_an_ai_reader_waiting_for_room_goes_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every slot playing a turn is busy, not stalled: the reader waiting for room reports rounds
    (its readiness holds), and takes the room once a turn ends."""
    # A round of waiting is a read's block (2 s in service): shorter here, the same rounds.
    monkeypatch.setattr(turns, "BLOCK_MS", 50)

    async def scenario() -> None:
        config = Settings(ai_concurrent_turns=1)
        player = TurnPlayer(config, aioredis.Redis(), None, None)  # type: ignore[arg-type]
        stream = config.keys().work_streams()[0]
        await player._capacity.acquire()  # the one slot plays a turn
        waiting = asyncio.create_task(player._room(stream))
        name = f"ai.turns:{stream}"
        while name not in progress.WATCH.loops:
            await asyncio.sleep(0.05)
        first = progress.WATCH.loops[name].last
        while progress.WATCH.loops[name].last == first:
            await asyncio.sleep(0.05)
        assert not waiting.done()
        player._capacity.release()
        await asyncio.wait_for(waiting, 1)
        await player.stop()
        assert name not in progress.WATCH.loops

    asyncio.run(asyncio.wait_for(scenario(), 10))
