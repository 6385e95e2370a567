"""Health that follows the work, on the real processes (issue 28): each loop a service owns,
frozen by the test-only control, takes its service out of readiness while its liveness stays
SERVING (Kubernetes would stop sending it work, not restart it), and back when it goes round
again. A Redis blip shorter than BOXEDIN_REDIS_BLIP_SECONDS keeps the gateway ready (/readyz 200,
"reconnecting"); longer, /readyz answers 503; the web page never does."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from boxedin.supervisor.launcher import Stack

from stacks import OUTPUT, make_stack

pytestmark = pytest.mark.stack

SERVING, NOT_SERVING = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING
LIVENESS = "boxedin.liveness"
FREEZE = OUTPUT / "health-follows-work.freeze"
BLIP_SECONDS = 4.0


def fetch(url: str) -> tuple[int, dict[str, object] | str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            status, text = reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def check(port: int, service: str) -> int:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        request = health_pb2.HealthCheckRequest(service=service)
        return int(health_pb2_grpc.HealthStub(channel).Check(request, timeout=5).status)


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {what}")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    FREEZE.parent.mkdir(parents=True, exist_ok=True)
    FREEZE.unlink(missing_ok=True)
    stack = make_stack(
        "health-follows-work",
        worker=False,
        extra_env={
            "BOXEDIN_TEST_CONTROLS": "1",
            "BOXEDIN_TEST_FREEZE_FILE": str(FREEZE),
            # Stalls noticed within seconds (a reader's round is 3 s: allowed 3 s), restarts far later.
            "BOXEDIN_HEALTH_STALL_FACTOR": "1",
            "BOXEDIN_HEALTH_STALL_MIN_SECONDS": "1",
            "BOXEDIN_HEALTH_LIVENESS_FACTOR": "40",
            "BOXEDIN_REDIS_BLIP_SECONDS": str(BLIP_SECONDS),
        },
    )
    try:
        stack.start()
        yield stack
    finally:
        FREEZE.unlink(missing_ok=True)
        stack.stop()


@contextlib.contextmanager
def frozen(names: str) -> Iterator[None]:
    FREEZE.write_text(names + "\n")
    try:
        yield
    finally:
        FREEZE.unlink(missing_ok=True)


@pytest.mark.parametrize(
    ("loop", "service"), [("ai.turns", "ai"), ("engine.deadlines", "engine"), ("stats.counter", "stats")]
)
def test_a_frozen_loop_takes_its_service_out_of_readiness_but_not_liveness(
    stack: Stack, loop: str, service: str
) -> None:
    port = {"ai": stack.ai_port, "engine": stack.engine_port, "stats": stack.stats_port}[service]
    assert check(port, "") == SERVING and check(port, LIVENESS) == SERVING
    with frozen(loop):
        wait_for(lambda: check(port, "") == NOT_SERVING, f"{service} not ready while {loop} is frozen")
        assert check(port, LIVENESS) == SERVING  # stalled, not stuck: no restart
        assert check(port, f"boxedin.v1.{service.capitalize()}") == NOT_SERVING
    wait_for(lambda: check(port, "") == SERVING, f"{service} ready again once {loop} goes round")
    assert check(port, LIVENESS) == SERVING


def test_a_frozen_update_listener_takes_the_gateway_out_of_readiness(stack: Stack) -> None:
    url = stack.url()
    assert fetch(url + "/readyz")[0] == 200
    with frozen("gateway.updates"):
        wait_for(lambda: fetch(url + "/readyz")[0] == 503, "/readyz 503 while the update listener is frozen")
        status, body = fetch(url + "/readyz")
        assert status == 503 and isinstance(body, dict) and body["updates"] == "stalled", body
        assert fetch(url + "/healthz") == (200, {"status": "ok"})  # alive: not restarted
        assert fetch(url + "/")[0] == 200
    wait_for(lambda: fetch(url + "/readyz")[0] == 200, "/readyz 200 once the update listener goes round")


def test_a_redis_blip_keeps_the_gateway_ready_and_a_longer_outage_does_not(stack: Stack) -> None:
    url = stack.url()
    redis_pid = stack.processes["redis"].pid
    wait_for(lambda: fetch(url + "/readyz")[0] == 200, "ready before the outage")
    os.kill(redis_pid, signal.SIGSTOP)  # Redis answers nothing, as in a network blip
    stopped = time.monotonic()
    try:
        seen: list[tuple[float, int, object]] = []
        while time.monotonic() - stopped < BLIP_SECONDS + 8:
            status, body = fetch(url + "/readyz")
            seen.append((time.monotonic() - stopped, status, body))
            assert fetch(url + "/")[0] == 200  # the page never answers 503 because of Redis
            if status == 503:
                break
        blip = [(at, status, body) for at, status, body in seen if at <= BLIP_SECONDS]
        assert blip and all(status == 200 for _, status, _ in blip), seen
        assert any(isinstance(body, dict) and body["redis"] == "reconnecting" for _, _, body in blip), seen
        at, status, body = seen[-1]
        assert status == 503 and isinstance(body, dict) and str(body["redis"]).startswith("down"), seen
        assert at > BLIP_SECONDS, seen
        assert fetch(url + "/healthz")[0] == 200  # Redis away never restarts a gateway
    finally:
        os.kill(redis_pid, signal.SIGCONT)
    wait_for(lambda: fetch(url + "/readyz")[0] == 200, "/readyz 200 once Redis is back")
