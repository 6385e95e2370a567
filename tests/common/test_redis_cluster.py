"""The whole stack against a real three-node Redis Cluster (Debian's redis-server in cluster mode
on loopback ports, made here): whole games against the AI and local games, the deadline loop,
the work streams and the statistics, with no cross-slot error anywhere."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest
import redis

from boxedin.supervisor.launcher import Stack, free_port, port_is_free, redis_server_binary

from stacks import OUTPUT, make_stack
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

SLOTS = 16384


def cluster_port() -> int:
    """A free port whose cluster bus port (the port + 10000) is free too."""
    while True:
        port = free_port()
        if port + 10000 < 65536 and port_is_free(port + 10000):
            return port


@contextlib.contextmanager
def redis_cluster(nodes: int = 3) -> Iterator[list[int]]:
    folder = tempfile.mkdtemp(prefix="boxedin-cluster-")
    ports = [cluster_port() for _ in range(nodes)]
    (OUTPUT / "logs").mkdir(parents=True, exist_ok=True)
    log = (OUTPUT / "logs" / "redis-cluster.log").open("ab")
    servers = [
        subprocess.Popen(
            [
                redis_server_binary(),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                f"nodes-{port}.conf",
                "--dir",
                folder,
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=log,
            stderr=log,
        )
        for port in ports
    ]
    try:
        clients = [redis.Redis(port=port) for port in ports]
        deadline = time.monotonic() + 20
        while True:
            try:
                for client in clients:
                    client.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "the cluster's nodes did not start"
                time.sleep(0.05)
        share = SLOTS // nodes
        for i, client in enumerate(clients):
            last = SLOTS - 1 if i == nodes - 1 else (i + 1) * share - 1
            client.execute_command("CLUSTER", "ADDSLOTSRANGE", i * share, last)
        for port in ports[1:]:
            clients[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port)
        deadline = time.monotonic() + 30
        while not all(c.execute_command("CLUSTER", "INFO").decode().find("cluster_state:ok") >= 0 for c in clients):
            assert time.monotonic() < deadline, "the cluster did not come together"
            time.sleep(0.1)
        yield ports
    finally:
        for server in servers:
            server.terminate()
            server.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster_stack() -> Iterator[Stack]:
    with redis_cluster() as ports:
        stack = make_stack(
            "redis-cluster",
            worker=False,
            redis_url=f"redis://127.0.0.1:{ports[0]}/0",
            extra_env={"BOXEDIN_REDIS_CLUSTER": "true", "BOXEDIN_USE_CELERY": "false"},
        )
        try:
            stack.start()
            yield stack
        finally:
            stack.stop()


def test_games_against_the_ai_and_local_games_play_to_the_end_on_a_cluster(cluster_stack: Stack) -> None:
    for setup in (
        {"mode": "mini", "opponent": "ai", "level": "easy", "ai_speed": "fast", "first": 2},
        {"mode": "mini", "opponent": "ai", "level": "normal", "ai_speed": "fast"},
        {"mode": "quick", "opponent": "local"},
    ):
        browser = Browser(cluster_stack.url())
        try:
            browser.hello()
            browser.new_game(**setup)
            final = browser.play_to_the_end(timeout=120)
            assert final["over"], setup
            if setup["opponent"] == "ai":
                assert any(u["action"].get("by") == 2 for u in browser.updates), "the computer played"
                result = browser.request(type="game_result", game=final["game"])
                assert result["type"] == "result"
        finally:
            browser.close()


def test_the_deadline_loop_ends_a_turn_on_a_cluster(cluster_stack: Stack) -> None:
    browser = Browser(cluster_stack.url())
    try:
        browser.hello()
        browser.new_game(mode="classic", opponent="local", clock=10)
        state = browser.wait_until(lambda s: s["to_move"] == 2, timeout=20)
        assert browser.updates[-1]["action"] == {"timeout": True, "by": 1} and state["phase"] == "roll"
    finally:
        browser.close()


def test_no_service_met_a_cross_slot_error(cluster_stack: Stack) -> None:
    assert cluster_stack.log_dir is not None
    for log in cluster_stack.log_dir.glob("*.log"):
        text = log.read_text(errors="replace")
        assert "CROSSSLOT" not in text and "MOVED" not in text, log.name
