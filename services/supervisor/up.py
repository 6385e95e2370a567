"""`boxedin up`: the whole service on one machine (boxedin.supervisor.launcher's Stack, supervised), with its
ports checked, and Redis keeping its append-only file in a data folder that outlives the run. The
data folder also names the run's children, so that a start stops what an earlier run that was
killed left running before it looks at the ports."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .launcher import Stack
from .leftovers import ChildrenRecord
from .ports import free_port, port_is_free


def default_data_dir() -> Path:
    """Where `boxedin up` keeps its Redis's data unless told: $XDG_DATA_HOME/boxedin, else
    ~/.local/share/boxedin."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "boxedin"


def _set_in_environment(*names: str) -> bool:
    """Whether one of the settings ``names`` is set (pydantic-settings reads them in any case)."""
    present = {key.upper() for key in os.environ}
    return any(name in present for name in names)


@dataclass
class _Port:
    """A port `boxedin up` listens on: who, where, and whether the user chose it."""

    what: str
    host: str
    port: int
    chosen_by: str | None  # "--port", "BOXEDIN_ENGINE_ADDRESS": the user's; None: the default


def choose_ports(wanted: list[_Port], out: TextIO) -> list[str]:
    """Checks every port: a default one that is taken is replaced by a free one (said on ``out``);
    a port the user chose that is taken, or named twice, is a problem (returned) and nothing is
    replaced for it."""
    problems = []
    seen: dict[int, str] = {}
    for entry in wanted:
        if entry.port in seen:
            if entry.chosen_by is not None:
                problems.append(f"{entry.what} ({entry.chosen_by}) and {seen[entry.port]} both want port {entry.port}")
                continue
        elif port_is_free(entry.port, entry.host):
            seen[entry.port] = entry.what
            continue
        elif entry.chosen_by is not None:
            problems.append(
                f"port {entry.port} on {entry.host}, given for {entry.what} by {entry.chosen_by}, is taken: "
                f"another program listens on it (`ss -ltnp 'sport = :{entry.port}'` names it); stop it or give "
                "another port"
            )
            continue
        replacement = free_port()
        # "port N, the default for X": X may be a possessive already ("the engine's metrics").
        print(f"boxedin up: port {entry.port}, the default for {entry.what}, is taken; using {replacement}", file=out)
        entry.port = replacement
        seen[entry.port] = entry.what
    return problems


def _redis_using(folder: Path) -> int | None:
    """A running redis-server whose --dir is ``folder``, from /proc: Redis works in that folder
    (its command line is no help: Redis rewrites it to "redis-server 127.0.0.1:port")."""
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            with contextlib.suppress(OSError):
                if (
                    b"redis-server" in Path(f"/proc/{entry}/cmdline").read_bytes()
                    and Path(f"/proc/{entry}/cwd").resolve() == folder.resolve()
                ):
                    return int(entry)
    return None


def _hold_data_dir(data: Path, record: ChildrenRecord) -> tuple[TextIO | None, str | None]:
    """Locks the data folder for this run and stops what an earlier run left running there:
    (the open lock file, None), or (None, why not)."""
    try:
        data.mkdir(parents=True, exist_ok=True)
        lock = open(data / "lock", "a+")  # noqa: SIM115 - held for the whole run
    except OSError as exc:
        return None, f"cannot use the data folder {data}: {exc.strerror}"
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return None, f"another `boxedin up` runs with the data folder {data}"
    # The lock is free, so the run that recorded these is gone: what it left runs unsupervised.
    stopped = record.stop_leftovers()
    if stopped:
        names = ", ".join(f"{child.name} (pid {child.pid})" for child in stopped)
        said = f"boxedin up: an earlier run with the data folder {data} left {names} running; stopped them"
        print(said, file=sys.stderr)
    # A Redis of an earlier run that outlived it and was not recorded still writes there.
    pid = _redis_using(data / "redis")
    if pid is not None:
        lock.close()
        return None, f"a Redis of an earlier run (pid {pid}) still uses the data folder {data}: stop it first"
    return lock, None


def run(args: argparse.Namespace) -> int:
    from boxedin.common.settings import settings

    config = settings()
    redis_url = os.environ.get("BOXEDIN_REDIS_URL") or os.environ.get("REDIS_URL")
    if args.engines < 1:
        print("boxedin up: --engines is at least 1", file=sys.stderr)
        return 2

    def grpc_port(address: str) -> int:
        return int(address.rsplit(":", 1)[1])

    gateway = _Port(
        "the gateway",
        config.gateway_host,
        args.port or config.gateway_port,
        "--port" if args.port else ("BOXEDIN_GATEWAY_PORT" if _set_in_environment("BOXEDIN_GATEWAY_PORT") else None),
    )
    services: dict[str, _Port] = {}
    for name in ("engine", "ai", "stats", "matchmaker"):
        variable = f"BOXEDIN_{name.upper()}_ADDRESS"
        address = getattr(config, f"{name}_address")
        services[name] = _Port(
            f"the {name} service", "127.0.0.1", grpc_port(address), variable if _set_in_environment(variable) else None
        )
    metrics: dict[str, _Port] = {}
    for name in ("gateway", "engine", "ai", "worker", "stats", "matchmaker"):
        if name == "worker" and args.no_worker:
            continue
        variable = f"BOXEDIN_{name.upper()}_METRICS_PORT"
        metrics[name] = _Port(
            f"the {name}'s metrics",
            config.metrics_host,
            getattr(config, f"{name}_metrics_port"),
            variable if _set_in_environment(variable) else None,
        )
    # Absolute: Redis runs in the repository's folder, not the caller's.
    data = (Path(args.data).expanduser() if args.data else default_data_dir()).resolve()
    # Before the ports are looked at: an earlier run's children may hold them.
    record = ChildrenRecord(data / "children")
    lock, refusal = _hold_data_dir(data, record)
    if lock is None:
        print(f"boxedin up: {refusal}", file=sys.stderr)
        return 2
    # The Same Wi-Fi app (boxedin lan) of this machine: the menu's Same Wi-Fi tab opens it, at the
    # address the gateway names, so without --lan-port any free port will do when 8090 is taken.
    lan_port = None if args.no_lan else args.lan_port or (8090 if port_is_free(8090, "127.0.0.1") else free_port())
    chosen_lan = [_Port("the Same Wi-Fi app", "127.0.0.1", args.lan_port, "--lan-port")] if args.lan_port else []
    problems = choose_ports([gateway, *services.values(), *metrics.values(), *chosen_lan], sys.stderr)
    if problems:
        for problem in problems:
            print(f"boxedin up: {problem}", file=sys.stderr)
        print("boxedin up: nothing was started", file=sys.stderr)
        lock.close()
        return 2

    # The built web client: the one BOXEDIN_WEB_DIST names (absolute: the children run in the
    # repository's folder), else the repository's web/dist. An installed wheel has no repository.
    web_dist = str(Path(config.web_dist).resolve()) if _set_in_environment("BOXEDIN_WEB_DIST") else Stack.web_dist
    stack = Stack(
        redis_url=redis_url,
        web_dist=web_dist,
        key_prefix=config.key_prefix,
        gateway_port=gateway.port,
        engine_port=services["engine"].port,
        ai_port=services["ai"].port,
        stats_port=services["stats"].port,
        matchmaker_port=services["matchmaker"].port,
        engine_replicas=args.engines,
        metrics_ports={"worker": config.worker_metrics_port} | {name: entry.port for name, entry in metrics.items()},
        worker=not args.no_worker,
        analysis_worker=not args.no_worker,
        log_dir=Path(args.logs) if args.logs else None,
        redis_data=None if redis_url else data / "redis",
        supervise=True,
        reporter="boxedin up",
        lan_port=lan_port,
        record=record,
    )

    def stop(*_: object) -> None:
        stack.request_stop()

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    try:
        parts = [
            "Redis at REDIS_URL" if redis_url else "a local Redis",
            "the engine" if args.engines == 1 else f"{args.engines} engine replicas",
            "the AI",
            "the statistics",
            "the matchmaker",
        ]
        parts += ["a Celery worker"] * stack.worker + ["a review worker"] * stack.analysis_worker
        parts += ["the Same Wi-Fi app"] * (lan_port is not None) + ["the gateway"]
        print(f"Starting Boxed In: {', '.join(parts)}...", flush=True)
        if not redis_url:
            print(f"Games are kept in {data} (Redis's append-only file; --data DIR for another folder).", flush=True)
        stack.start()
        print(f"\nBoxed In is running: open {stack.url()} in your browser.  (Ctrl-C stops it.)\n", flush=True)
        stack.wait_stop_requested()
        return 0
    except RuntimeError as exc:
        if stack.stop_requested:
            return 0  # Ctrl-C while starting
        print(f"boxedin up: {exc}", file=sys.stderr)
        return 1
    finally:
        print("Stopping Boxed In...", file=sys.stderr, flush=True)
        stack.stop()
        if stack.restarts:
            counts = ", ".join(f"{name} {count}" for name, count in sorted(stack.restarts.items()))
            print(f"boxedin up: restarts in this run: {counts}", file=sys.stderr)
        lock.close()
        print("Stopped.", file=sys.stderr, flush=True)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("up", help="run the whole service locally")
    parser.add_argument("--port", type=int, help="the gateway's port (default BOXEDIN_GATEWAY_PORT or 8000)")
    parser.add_argument("--no-worker", action="store_true", help="no Celery worker: Expert thinks in-process")
    parser.add_argument(
        "--engines", type=int, default=1, metavar="N",
        help="engine replicas (default 1): the first on BOXEDIN_ENGINE_ADDRESS's port, the others on free ports",
    )  # fmt: skip
    parser.add_argument("--logs", help="a folder for each process's log (default: logs are not kept)")
    parser.add_argument("--lan-port", type=int, help="the Same Wi-Fi app's port (boxedin lan; default 8090)")
    parser.add_argument("--no-lan", action="store_true", help="no Same Wi-Fi app (the tab says how to start one)")
    parser.add_argument(
        "--data",
        help="the run's folder, across runs: the local Redis keeps every game there, and the run names its "
        "processes there, for the next start to stop them if they outlived it (default $XDG_DATA_HOME/boxedin or "
        "~/.local/share/boxedin)",
    )
    parser.set_defaults(handler=run)
