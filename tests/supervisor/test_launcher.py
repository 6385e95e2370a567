"""`boxedin up` and the Stack behind it: ports bound as the servers bind them (a port in TIME_WAIT
is free, one something listens on is refused, saying why, and nothing starts); a supervised child
that dies is started again with a growing pause, and what it left behind is killed; Ctrl-C stops
everything and leaves no process behind (the AI's and Celery's pool processes included), and so
does a SIGKILL of `boxedin up`; a start stops what an earlier run that was killed left running;
Redis keeps every game in the data folder across runs."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from boxedin.common.grpc_server import SERVER_OPTIONS, listen
from boxedin.supervisor.launcher import ROOT, Stack, free_port, port_is_free, redis_server_binary
from boxedin.supervisor.leftovers import ChildrenRecord
from boxedin.supervisor.process_groups import group_members, start_time
from boxedin.supervisor.up import _Port, choose_ports

from stacks import OUTPUT
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

PYTHON = [sys.executable, "-c"]


def in_time_wait() -> int:
    """A loopback port nothing listens on whose last connection is in TIME_WAIT on the side that
    listened, as after a server (which listens with SO_REUSEADDR, as uvicorn, grpc and Redis do)
    stopped with clients connected."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port: int = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        served, _ = listener.accept()
        served.close()  # the server's side closes first: it is the side left in TIME_WAIT
        client.recv(1)
        client.close()
    time.sleep(0.05)
    with socket.socket() as plain, pytest.raises(OSError):
        plain.bind(("127.0.0.1", port))  # without SO_REUSEADDR the port looks taken
    return port


@contextlib.contextmanager
def listening() -> Iterator[int]:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_a_port_in_time_wait_is_free_and_a_listened_one_is_not() -> None:
    assert port_is_free(in_time_wait())
    with listening() as port:
        assert not port_is_free(port)


def test_a_taken_default_port_is_replaced_and_named_in_plain_words() -> None:
    with listening() as taken:
        wanted = [_Port("the engine's metrics", "127.0.0.1", taken, None)]
        said = io.StringIO()
        assert choose_ports(wanted, said) == []
    replacement = wanted[0].port
    assert replacement != taken
    assert said.getvalue() == (
        f"boxedin up: port {taken}, the default for the engine's metrics, is taken; using {replacement}\n"
    )
    assert "'s port" not in said.getvalue()


def test_a_grpc_service_listens_on_a_port_in_time_wait_and_refuses_a_taken_one() -> None:
    async def check() -> None:
        server = grpc.aio.server(options=SERVER_OPTIONS)
        assert listen(server, "test", f"127.0.0.1:{in_time_wait()}")
        # A server of another run still listening, as grpc does by default (SO_REUSEPORT on):
        # without our options the second server would share its port without a word.
        with listening() as taken, pytest.raises(RuntimeError, match="taken"):
            listen(grpc.aio.server(options=SERVER_OPTIONS), "test", f"127.0.0.1:{taken}")
        other = grpc.aio.server()
        port = other.add_insecure_port("127.0.0.1:0")
        await other.start()
        try:
            with pytest.raises(RuntimeError, match="taken"):
                listen(grpc.aio.server(options=SERVER_OPTIONS), "test", f"127.0.0.1:{port}")
        finally:
            await other.stop(None)

    asyncio.run(check())


# --- supervising --------------------------------------------------------------------------------


def wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout} s")
        time.sleep(0.02)


def test_a_supervised_child_comes_back_at_once_then_later_each_time_it_keeps_dying() -> None:
    stack = Stack()
    stack._start("flaky", [sys.executable, "-c", "raise SystemExit(3)"], dict(os.environ))
    stack.start_supervising()
    try:
        wait_for(lambda: stack.restarts.get("flaky", 0) >= 4, 15, "four restarts")
    finally:
        stack.stop()
    first, second, third = stack.recoveries[:3]
    assert first.exit == "exit status 3" and (first.number, second.number, third.number) == (1, 2, 3)
    pauses = [r.started_at - r.stopped_at for r in (first, second, third)]  # type: ignore[operator]
    assert pauses[0] < 0.4 and 0.45 < pauses[1] < 1.5 and 0.95 < pauses[2] < 2.5, pauses
    assert not stack.processes


def test_a_crash_is_restarted_and_what_it_left_is_killed_a_stop_or_kill_is_not_restarted() -> None:
    # A child with a pool process of its own, as the AI service and the Celery worker have.
    parent = (
        "import subprocess, sys, time; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    )
    stack = Stack()
    for name in ("pooled", "stopped", "killed"):
        stack._start(name, [sys.executable, "-c", parent], dict(os.environ))
    stack.start_supervising()
    try:
        pid = stack.processes["pooled"].pid
        wait_for(lambda: len(group_members(pid) or []) == 2, 10, "the pool process started")
        crashed_at = stack.crash("pooled")  # the child alone, as a crash: its pool process is left
        recovery = stack.wait_recovered("pooled", crashed_at, timeout=10)
        assert recovery.exit == "killed by SIGKILL" and stack.restarts == {"pooled": 1}
        assert group_members(pid) == [], "the crashed child's pool process was not killed"
        assert stack.processes["pooled"].pid != pid
        stopped, killed = stack.processes["stopped"].pid, stack.processes["killed"].pid
        stack.stop_process("stopped")
        stack.kill_process("killed")
        time.sleep(1)
        assert set(stack.processes) == {"pooled"} and stack.restarts == {"pooled": 1}
        assert group_members(stopped) == [] and group_members(killed) == []
    finally:
        stack.stop()
    assert not stack.processes


def test_a_crashed_child_with_a_warm_spare_comes_back_as_that_spare_and_gets_another() -> None:
    port = free_port()
    stack = Stack(spares=("served",))
    url = f"http://127.0.0.1:{port}/"
    serve = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)]
    stack._start("served", serve, dict(os.environ), lambda timeout: stack.wait_http(url, timeout, "served"))
    stack.start_supervising()
    try:
        stack.wait_http(url, 10, "served")
        stack.wait_spare_warm("served", 10)
        spare = stack._children["served"].spare
        assert spare is not None
        crashed_at = stack.crash("served")
        stack.wait_recovered("served", crashed_at, timeout=10)
        assert stack.processes["served"] is spare.process, "the restart did not take the spare"
        with urllib.request.urlopen(url, timeout=5) as reply:
            assert reply.status == 200
        stack.wait_spare_warm("served", 10)
        another = stack._children["served"].spare
        assert another is not None and another is not spare
    finally:
        stack.stop()
    assert another.process.poll() is not None and not stack.processes


# --- boxedin up ---------------------------------------------------------------------------------


def up_environment(key_prefix: str) -> dict[str, str]:
    """Every port `boxedin up` takes, chosen (so no default port of another run is in the way),
    and the AI paced for tests."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("BOXEDIN_")}
    env.pop("REDIS_URL", None)
    env.update({
        "BOXEDIN_KEY_PREFIX": key_prefix,
        "BOXEDIN_AI_PAUSE_NORMAL_SECONDS": "0.05",
        "BOXEDIN_AI_PAUSE_FAST_SECONDS": "0.01",
        "PYTHONUNBUFFERED": "1",
    })  # fmt: skip
    for name in ("ENGINE", "AI", "STATS", "MATCHMAKER"):
        env[f"BOXEDIN_{name}_ADDRESS"] = f"127.0.0.1:{free_port()}"
    for name in ("GATEWAY", "ENGINE", "AI", "WORKER", "STATS", "MATCHMAKER"):
        env[f"BOXEDIN_{name}_METRICS_PORT"] = str(free_port())
    return env


class Up:
    """A `boxedin up` in a process of its own, its output in a file."""

    def __init__(self, args: list[str], env: dict[str, str], output: Path) -> None:
        self.output = output
        self.process = subprocess.Popen(
            [sys.executable, "-m", "boxedin.cli", "up", *args],
            env=env,
            cwd=ROOT,
            stdout=output.open("wb"),
            stderr=subprocess.STDOUT,
        )

    def text(self) -> str:
        return self.output.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text())
            if found:
                return found
            assert self.process.poll() is None, f"boxedin up ended:\n{self.text()}"
            time.sleep(0.1)
        raise AssertionError(f"no {pattern!r} within {timeout} s:\n{self.text()}")

    def stop(self, sig: signal.Signals = signal.SIGINT) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


def processes() -> dict[int, tuple[int, int, str]]:
    """Every live process: pid -> (parent pid, process group, command line)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] in ("Z", "X"):
                continue
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            found[int(entry)] = (int(fields[1]), int(fields[2]), command)
    return found


def tree(root: int) -> dict[int, str]:
    """The processes started by ``root``, however deep, and every member of their groups."""
    table = processes()
    members: dict[int, str] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _, command) in table.items():
            if ppid == parent and pid not in members:
                members[pid] = command
                frontier.append(pid)
    groups = {table[pid][1] for pid in members if pid in table}
    members |= {pid: command for pid, (_, group, command) in table.items() if group in groups and group != os.getpgrp()}
    return members


def test_boxedin_up_refuses_a_taken_port_and_starts_nothing(tmp_path: Path) -> None:
    env = up_environment("test-up-refuses:")
    with listening() as taken, listening() as metrics:
        env["BOXEDIN_AI_METRICS_PORT"] = str(metrics)
        result = subprocess.run(
            [sys.executable, "-m", "boxedin.cli", "up", "--port", str(taken), "--data", str(tmp_path)],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert f"port {taken} on 127.0.0.1, given for the gateway by --port, is taken" in result.stderr
    assert f"port {metrics} on 127.0.0.1, given for the ai's metrics by BOXEDIN_AI_METRICS_PORT" in result.stderr
    assert "nothing was started" in result.stderr and "Starting" not in result.stdout


def test_boxedin_up_restarts_a_crash_keeps_games_across_runs_and_leaves_nothing_behind(tmp_path: Path) -> None:
    """The whole of `boxedin up`: it serves on the port it was given though that port is in
    TIME_WAIT, and its metrics on theirs; a SIGKILLed AI service comes back and its pool processes
    go; Ctrl-C stops every process it started; a second run finds the game in the data folder."""
    logs = OUTPUT / "logs" / "launcher-up"
    data = tmp_path / "data"
    env = up_environment("test-up:")
    port = in_time_wait()
    first = Up(["--port", str(port), "--data", str(data), "--logs", str(logs)], env, tmp_path / "first.txt")
    try:
        first.wait_for(r"Boxed In is running: open http://127\.0\.0\.1:(\d+)", 120)
        assert f"http://127.0.0.1:{port} " in first.text() and "is taken" not in first.text()
        metrics = f"http://127.0.0.1:{env['BOXEDIN_ENGINE_METRICS_PORT']}/metrics"
        with urllib.request.urlopen(metrics, timeout=5) as reply:
            assert b"boxedin" in reply.read()
        # Another run on the same data folder is refused while this one runs.
        second_env = up_environment("test-up-second:")
        refused = subprocess.run(
            [sys.executable, "-m", "boxedin.cli", "up", "--port", str(free_port()), "--data", str(data)],
            env=second_env, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert refused.returncode == 2 and "another `boxedin up` runs with the data folder" in refused.stderr

        browser = Browser(f"http://127.0.0.1:{port}")
        try:
            browser.hello()
            browser.new_game(mode="mini", opponent="ai", level="normal", first=2, ai_speed="fast")
            # The computer moved, so the AI's pool processes run; it is our turn: kill the AI.
            browser.wait_until(lambda s: (s["to_move"] == 1 and not s["ai_thinking"]) or s["over"])
            assert browser.seq > 0
            ai = next(pid for pid, command in tree(first.process.pid).items() if "boxedin.ai.service" in command)
            pool = group_members(ai) or []
            assert len(pool) >= 2, "the AI's pool processes"
            os.kill(ai, signal.SIGKILL)
            first.wait_for(r"ai stopped \(killed by SIGKILL\); starting it again at once \(restart 1 of ai\)", 10)
            first.wait_for(r"ai is back", 60)
            alive = set(processes())
            assert not alive & set(pool), "the killed AI's pool processes outlived it"
            # The game goes on with the new AI service: the computer moves again.
            before = len(browser.updates)
            deadline = time.monotonic() + 60
            while not any(u["action"].get("by") == 2 for u in browser.updates[before:]):
                assert time.monotonic() < deadline and browser.state is not None and not browser.state["over"]
                if browser.my_turn():
                    browser.play_turn()
                else:
                    browser.receive()
            saved = browser.wait_until(lambda s: (s["to_move"] == 1 and not s["ai_thinking"]) or s["over"])
            assert not saved["over"]
        finally:
            browser.close()
        started = tree(first.process.pid)
        assert len(started) >= 10, started  # Redis, 4 services, the gateway, pools, Celery's children
        assert first.stop(signal.SIGINT) == 0, first.text()
        assert "Stopped." in first.text()
        assert "restarts in this run: ai 1" in first.text()
        left = set(processes()) & set(started)
        assert not left, [started[pid] for pid in left]
    finally:
        first.stop()  # Ctrl-C: every process it started goes, even when the test failed

    # Started again on the same data folder: Redis reads its append-only file back.
    second = Up(["--port", str(free_port()), "--data", str(data), "--no-worker"], env, tmp_path / "second.txt")
    try:
        url = second.wait_for(r"Boxed In is running: open (http://[\d.:]+)", 120).group(1)
        again = Browser(url, device=browser.device)
        try:
            welcome = again.hello(game=saved["game"])
            assert welcome["saved"] is not None and welcome["saved"]["game"] == saved["game"]
            state = again.state
            assert state is not None and state["game"] == saved["game"]
            assert (state["seq"], state["scores"], state["edges"]) == (saved["seq"], saved["scores"], saved["edges"])
        finally:
            again.close()
        assert second.stop(signal.SIGTERM) == 0, second.text()
    finally:
        second.stop()


# --- a `boxedin up` that is killed ---------------------------------------------------------------


@pytest.fixture(scope="module")
def run_after_a_killed_one(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Up, dict[str, object]]]:
    """A `boxedin up` started on a data folder whose record names what an earlier, killed run left
    running: a process that holds the port this run is given (as a gateway left behind would),
    and a process that took a recorded pid over since (its start time is not the recorded one)."""
    folder = tmp_path_factory.mktemp("killed-up")
    data = folder / "data"
    data.mkdir()
    port = free_port()
    holder = (
        "import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
        f"s.bind(('127.0.0.1', {port})); s.listen(); print('listening', flush=True); time.sleep(120)"
    )
    left = subprocess.Popen([*PYTHON, holder], stdout=subprocess.PIPE, start_new_session=True)
    other = subprocess.Popen([*PYTHON, "import time; time.sleep(120)"], start_new_session=True)
    try:
        assert left.stdout is not None and left.stdout.readline() == b"listening\n"
        record = ChildrenRecord(data / "children")
        record.write({"gateway": left.pid, "engine": other.pid})
        # The engine's pid was used again: the process on it started later than the recorded one.
        text = record.path.read_text()
        started = start_time(other.pid)
        record.path.write_text(text.replace(f"engine {other.pid} {started}", f"engine {other.pid} {started - 1}"))
        args = ["--port", str(port), "--data", str(data), "--no-lan"]
        up = Up(args, up_environment("test-up-killed:"), folder / "up.txt")
        try:
            yield up, {"port": port, "left": left, "other": other}
        finally:
            up.stop()
    finally:
        for process in (left, other):
            process.kill()
            process.wait()


def test_a_start_stops_what_a_killed_run_left_running_and_no_process_that_took_a_pid_over(
    run_after_a_killed_one: tuple[Up, dict[str, object]],
) -> None:
    up, made = run_after_a_killed_one
    left, other = made["left"], made["other"]
    assert isinstance(left, subprocess.Popen) and isinstance(other, subprocess.Popen)
    up.wait_for(rf"Boxed In is running: open http://127\.0\.0\.1:{made['port']} ", 120)
    assert f"left gateway (pid {left.pid}) running; stopped them" in up.text()
    assert left.wait(1) == -signal.SIGTERM
    assert other.poll() is None, "a process that took a recorded pid over was signalled"
    assert "is taken" not in up.text() and "engine (pid" not in up.text()


def test_a_sigkilled_boxedin_up_takes_every_process_it_started_with_it(
    run_after_a_killed_one: tuple[Up, dict[str, object]],
) -> None:
    """The AI's and Celery's pool processes included: they are not the supervisor's children."""
    up, made = run_after_a_killed_one
    up.wait_for(r"Boxed In is running", 120)
    browser = Browser(f"http://127.0.0.1:{made['port']}")
    try:
        browser.hello()
        browser.new_game(mode="mini", opponent="ai", level="normal", first=2, ai_speed="fast")
        # The computer moved: the AI's pool processes run.
        browser.wait_until(lambda s: (s["to_move"] == 1 and not s["ai_thinking"]) or s["over"])
    finally:
        browser.close()
    started = tree(up.process.pid)
    ai = next(pid for pid, command in started.items() if "boxedin.ai.service" in command)
    worker = next(pid for pid, command in started.items() if "celery" in command and "worker" in command)
    assert len(group_members(ai) or []) >= 2 and len(group_members(worker) or []) >= 2, "the pool processes"
    up.process.kill()
    up.process.wait()
    wait_for(lambda: not set(processes()) & set(started), 10, "every process it started gone")


def test_boxedin_up_refuses_a_data_folder_an_unrecorded_redis_still_writes_in(tmp_path: Path) -> None:
    """A Redis that no record names (an earlier run's, from before runs recorded their children)."""
    folder = tmp_path / "data" / "redis"
    folder.mkdir(parents=True)
    redis = subprocess.Popen(
        [redis_server_binary(), "--port", str(free_port()), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: Path(f"/proc/{redis.pid}/cwd").resolve() == folder, 10, "Redis in its folder")
        result = subprocess.run(
            [sys.executable, "-m", "boxedin.cli", "up", "--port", str(free_port()), "--data", str(tmp_path / "data")],
            env=up_environment("test-up-redis-left:"), cwd=ROOT, capture_output=True, text=True, timeout=60,
            check=False,
        )  # fmt: skip
    finally:
        redis.kill()
        redis.wait()
    assert result.returncode == 2, result.stderr
    assert f"a Redis of an earlier run (pid {redis.pid}) still uses the data folder" in result.stderr


def test_children_started_beside_live_grpc_calls_are_never_aborted_by_grpc() -> None:
    """Every child is started by fork() with a preexec_fn; with gRPC's fork support on, about one
    start in a hundred in a process that is making gRPC calls was aborted by gRPC before its exec
    (SIGABRT: "epoll_wait error: Bad file descriptor"), as the stats service once was while a
    test's stack started. The supervisor turns that support off before gRPC is imported."""
    from concurrent import futures

    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    from boxedin.supervisor.parent_death import Spawner, ending_with_parent

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    calling = True

    def call_on() -> None:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while calling:
                stub.Check(health_pb2.HealthCheckRequest(), timeout=5)

    callers = [threading.Thread(target=call_on, daemon=True) for _ in range(4)]
    for caller in callers:
        caller.start()
    spawner = Spawner()
    try:
        ends = [
            spawner.run(
                lambda: subprocess.Popen(["true"], preexec_fn=ending_with_parent(), start_new_session=True)
            ).wait()
            for _ in range(400)
        ]
    finally:
        calling = False
        for caller in callers:
            caller.join()
        spawner.close()
        server.stop(None)
    assert [end for end in ends if end != 0] == []


def test_an_engine_listens_for_actions_on_a_port_the_launcher_handed_out(live_stack: Stack) -> None:
    """Every port of a stack is handed out by free_port before its process starts, the engine's
    action port too: one left to the system could be a port handed out to a process not yet
    started, which would then fail to listen."""
    from boxedin.supervisor import ports
    from boxedin.v1 import engine_pb2, engine_pb2_grpc

    async def asked() -> int:
        async with live_stack.channel(live_stack.engine_port, "gateway") as channel:
            reply = await engine_pb2_grpc.EngineStub(channel).GetActPort(engine_pb2.ActPortRequest(), timeout=5)
            return int(reply.port)

    port = asyncio.run(asked())
    assert port in ports._HANDED_OUT and port not in (live_stack.engine_port, *live_stack.metrics_ports.values())
