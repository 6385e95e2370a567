"""What an operator relies on: health checks, Prometheus figures from every service, graceful
shutdown, and the move clock kept by the server."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from boxedin.supervisor.launcher import Stack

from stacks import make_stack
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def families(url: str) -> set[str]:
    return {family.name for family in text_string_to_metric_families(fetch(url)[1])}


def test_health_checks(live_stack: Stack) -> None:
    assert fetch(live_stack.url() + "/healthz") == (200, '{"status":"ok"}')
    status, body = fetch(live_stack.url() + "/readyz")
    assert status == 200
    assert json.loads(body) == {"status": "ready", "redis": "ok", "engine": "serving", "updates": "ok"}
    for port in (live_stack.engine_port, live_stack.ai_port):
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            # Readiness (""), and liveness under a name of its own (the chart's probes).
            for service in ("", "boxedin.liveness"):
                request = health_pb2.HealthCheckRequest(service=service)
                reply = health_pb2_grpc.HealthStub(channel).Check(request, timeout=5)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING, service


def test_every_service_serves_the_figures_an_operator_needs(live_stack: Stack) -> None:
    browser = Browser(live_stack.url())
    try:
        browser.hello()
        browser.new_game(mode="mini", opponent="ai", level="normal", ai_speed="fast")
        browser.send(type="draw", game=browser.game_id, edge=["h", 0, 0])  # refused: roll first
        browser.play_to_the_end()
        engine = families(f"http://127.0.0.1:{live_stack.metrics_ports['engine']}/metrics")
        ai = families(f"http://127.0.0.1:{live_stack.metrics_ports['ai']}/metrics")
        gateway = families(live_stack.metrics_url("gateway"))
        # Not on the public port, which an Ingress exposes to everyone.
        assert fetch(live_stack.url() + "/metrics")[0] == 404
    finally:
        browser.close()
    assert {"boxedin_games_created", "boxedin_actions", "boxedin_action_seconds", "boxedin_refusals",
            "boxedin_rpc_seconds", "boxedin_cas_conflicts"} <= engine  # fmt: skip
    assert {"boxedin_ai_think_seconds", "boxedin_ai_turns", "boxedin_expert_fallbacks", "boxedin_rpc_seconds"} <= ai
    assert {"boxedin_websocket_connections", "boxedin_websocket_frames", "boxedin_refusals"} <= gateway
    text = fetch(f"http://127.0.0.1:{live_stack.metrics_ports['engine']}/metrics")[1]
    assert 'boxedin_games_created_total{mode="mini",opponent="ai"}' in text
    assert 'boxedin_refusals_total{reason="roll_due"}' in text


@pytest.fixture
def own_stack() -> Iterator[Stack]:
    stack = make_stack("operations", worker=False)
    stack.start()
    yield stack
    stack.stop()


def test_services_stop_gracefully_on_sigterm(own_stack: Stack) -> None:
    for name in ("gateway", "ai", "engine"):
        process = own_stack.processes[name]
        process.send_signal(signal.SIGTERM)
        try:
            status = process.wait(15)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{name} did not stop within 15 s of SIGTERM{own_stack.log_tail(name)}")
        log = (own_stack.log_dir / f"{name}.log").read_text()
        if name == "gateway":
            # uvicorn shuts down, then re-raises the signal so the exit status tells of it.
            assert "Application shutdown complete." in log and status in (0, -signal.SIGTERM)
        else:
            assert status == 0 and '"message": "stopped"' in log, name


def test_the_move_clock_ends_a_turn_and_stands_still_off_screen(own_stack: Stack) -> None:
    browser = Browser(own_stack.url())
    try:
        browser.hello()
        browser.new_game(mode="classic", opponent="local", clock=10)
        state = browser.state
        assert state is not None and state["to_move"] == 1 and 9_000 < state["clock_remaining_ms"] <= 10_000
        browser.request(type="visibility", game=browser.game_id, visible=False)
        held = browser.state["clock_remaining_ms"]
        time.sleep(1.5)
        browser.request(type="visibility", game=browser.game_id, visible=True)
        assert abs(browser.state["clock_remaining_ms"] - held) < 300
        # Nobody rolls: when the clock runs out the server ends the turn as it stands.
        passed = browser.wait_until(lambda s: s["to_move"] == 2, timeout=15)
        assert browser.updates[-1]["action"] == {"timeout": True, "by": 1}
        assert passed["phase"] == "roll" and passed["clock_remaining_ms"] > 9_000
    finally:
        browser.close()


def test_a_service_that_cannot_listen_stops_the_start_and_says_why() -> None:
    stack = make_stack("cannot-listen", worker=False)
    try:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", stack.ai_port))
            taken.listen()
            with pytest.raises(RuntimeError) as stopped:
                stack.start()
    finally:
        stack.stop()
    message = str(stopped.value)
    assert message.startswith("ai stopped while starting (exit status 1); the end of its log:")
    assert f"cannot listen on 127.0.0.1:{stack.ai_port}" in message
