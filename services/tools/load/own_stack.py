"""`boxedin load --own-stack`: the local-games load against a stack the command starts for itself
(Redis, ``engines`` engine replicas, ``gateways`` gateways, the stats service and the matchmaker;
no AI: the games are local), so that it can say where the time goes: the CPU seconds each process
spent per 1,000 actions, read from /proc, beside the round trips. Each gateway sends a game's
calls to the engine replica of its partition (boxedin.common.engine_router), or with ``routing``
round_robin every call to the next replica, the baseline of `boxedin bench replicas`; the players
are spread evenly over the gateways."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
import urllib.request
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, cast

import redis
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from boxedin.common import event_loop
from boxedin.common.logs import JsonFormatter
from boxedin.common.stalls import CAUSES as STALL_CAUSES
from boxedin.common.stalls import StallWatch
from boxedin.supervisor.launcher import Stack, free_port

from .loadtest import run_load, ws_url

_TICKS = os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine spent busy so far (Linux /proc/stat: all but idle
    and iowait)."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / _TICKS


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process has used (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as stat:
        # The command name is in parentheses and may hold spaces: the fields after it count.
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


Sample = tuple[str, dict[str, str], float]  # a series' name, its labels and its value


def _scrape(metrics_url: str) -> list[Sample]:
    with urllib.request.urlopen(metrics_url, timeout=10) as reply:
        text = reply.read().decode()
    return [(s.name, s.labels, s.value) for family in text_string_to_metric_families(text) for s in family.samples]


def _total(samples: list[Sample], name: str, **labels: str) -> float:
    return sum(value for n, got, value in samples if n == name and labels.items() <= got.items())


def actions_applied(metrics_url: str) -> int:
    """The actions an engine replica applied, from its Prometheus counter."""
    return round(_total(_scrape(metrics_url), "boxedin_actions_total"))


def gc_pauses(metrics_url: str) -> dict[str, tuple[float, float, float]]:
    """A process's garbage collections so far, by generation: seconds paused, collections, and
    those over 50 ms."""
    samples = _scrape(metrics_url)
    figures = {}
    for generation in ("0", "1", "2"):
        count = _total(samples, "boxedin_gc_pause_seconds_count", generation=generation)
        within = _total(samples, "boxedin_gc_pause_seconds_bucket", generation=generation, le="0.05")
        paused = _total(samples, "boxedin_gc_pause_seconds_sum", generation=generation)
        figures[generation] = (paused, count, count - within)
    return figures


def stalls(metrics_url: str) -> dict[str, float]:
    """A process's event loop stalls so far, by cause (boxedin.common.stalls)."""
    samples = _scrape(metrics_url)
    return {cause: _total(samples, "boxedin_event_loop_stalls_total", cause=cause) for cause in STALL_CAUSES}


def game_reads(redis_url: str) -> int:
    """The HGETALL calls Redis has served: an engine reads a game whole with one (store.load),
    when its copy of the game is missing or behind."""
    client = redis.Redis.from_url(redis_url)
    try:
        stats = cast("dict[str, dict[str, int]]", client.info("commandstats"))
    finally:
        client.close()
    return int(stats.get("cmdstat_hgetall", {}).get("calls", 0))


def _cpu(stack: Stack) -> dict[str, float]:
    return {name: cpu_seconds(process.pid) for name, process in stack.processes.items()}


async def _load_over(
    urls: list[str], games: int, concurrency: int, mode: str, *, think: float, seconds: float | None, ramp: float
) -> dict[str, Any]:
    """The load, its players spread evenly over the gateways; the totals of every gateway's."""
    if len(urls) == 1:
        return await run_load(urls[0], games, concurrency, mode, think=think, seconds=seconds, ramp=ramp)
    shares = [(games * (i + 1)) // len(urls) - (games * i) // len(urls) for i in range(len(urls))]
    players = [(concurrency * (i + 1)) // len(urls) - (concurrency * i) // len(urls) for i in range(len(urls))]
    parts = await asyncio.gather(
        *(
            run_load(url, max(1, share), max(1, each), mode, think=think, seconds=seconds, ramp=ramp)
            for url, share, each in zip(urls, shares, players, strict=True)
        )
    )
    seconds_taken = max(part["seconds"] for part in parts)
    errors: dict[str, int] = {}
    for part in parts:
        for code, count in part["errors"].items():
            errors[code] = errors.get(code, 0) + count
    return {
        "games": sum(part["games"] for part in parts),
        "failed_games": sum(part["failed_games"] for part in parts),
        "concurrency": concurrency,
        "mode": mode,
        "seconds": seconds_taken,
        "actions": sum(part["actions"] for part in parts),
        "actions_per_second": round(sum(part["actions"] for part in parts) / seconds_taken, 1) if seconds_taken else 0,
        "round_trip_ms_by_gateway": [part["round_trip_ms"] for part in parts],
        "errors": errors,
        "all_actions": sum(part["all_actions"] for part in parts),
    }


async def _watched_load(load: Coroutine[Any, Any, dict[str, Any]], stacks_log: Path | None = None) -> dict[str, Any]:
    """The load, with the stalls of the load client's own event loop: a round trip it measures
    late because its own loop was held is not the stack's. With ``stacks_log``, each stall is
    written there with where the loop was, as the services write theirs (BOXEDIN_STALL_STACKS)."""
    def counts() -> dict[str, float]:
        return {
            cause: REGISTRY.get_sample_value("boxedin_event_loop_stalls_total", {"cause": cause}) or 0.0
            for cause in STALL_CAUSES
        }

    stalls_log = logging.getLogger("boxedin.stalls")
    level = stalls_log.level
    handler: logging.Handler | None = None
    if stacks_log is not None:
        handler = logging.FileHandler(stacks_log)
        handler.setFormatter(JsonFormatter("load client"))
        stalls_log.addHandler(handler)
        stalls_log.setLevel(logging.INFO)
    # The client's own garbage collections are no part of the stack's round trip: a full one over
    # 2,000 players' games held its loop 50-280 ms (its stalls, with --stall-stacks: where an
    # allocation set it off), and every action in flight then was measured that much slower. The
    # cycles a run leaves are few and freed once it is over.
    gc.disable()
    watch = StallWatch(stacks=stacks_log is not None)
    before = counts()
    watch.start()
    try:
        result = await load
    finally:
        await watch.stop()
        gc.enable()
        if handler is not None:
            stalls_log.removeHandler(handler)
            stalls_log.setLevel(level)
            handler.close()
    after = counts()
    result["client_stalls"] = {cause: round(after[cause] - before[cause]) for cause in STALL_CAUSES}
    return result


def one_address_budgets(players: int) -> dict[str, str]:
    """The settings under which ``players`` simulated players share this machine's address, each
    with the budgets of a person: the address's budgets are theirs together."""
    return {
        "BOXEDIN_CONNECTIONS_PER_ADDRESS": str(players + 100),
        "BOXEDIN_IDLE_CONNECTIONS_PER_ADDRESS": str(players + 100),
        "BOXEDIN_ADDRESS_CONNECTS_BURST": str(players + 100),
        # An automated player acts as fast as the gateway answers, each on its own credits.
        "BOXEDIN_ADDRESS_FRAMES_PER_SECOND": str(1000 * players),
        "BOXEDIN_ADDRESS_FRAMES_BURST": str(1000 * players),
        "BOXEDIN_ADDRESS_ACTIONS_PER_SECOND": str(1000 * players),
        "BOXEDIN_ADDRESS_ACTIONS_BURST": str(1000 * players),
    }


def run_on_own_stack(
    games: int,
    concurrency: int,
    mode: str,
    *,
    engines: int,
    think: float,
    seconds: float | None,
    ramp: float,
    gateways: int = 1,
    routing: str = "partition",
    stack_path: str | None = None,
    stall_stacks: str | None = None,
) -> dict[str, Any]:
    """``stack_path``: the stack's processes import boxedin from this folder (PYTHONPATH), not
    the load's own: scripts/compare-load runs an earlier commit's services under this tree's load.
    ``stall_stacks``: a folder for the processes' logs, in which each stall of an event loop says
    where it was (BOXEDIN_STALL_STACKS)."""
    stack = Stack.on_free_ports(
        "load:",
        worker=False,
        extra_env={
            **one_address_budgets(concurrency),
            **({"PYTHONPATH": stack_path} if stack_path is not None else {}),
            **({"BOXEDIN_STALL_STACKS": "true"} if stall_stacks is not None else {}),
        },
        log_dir=Path(stall_stacks) if stall_stacks is not None else None,
    )
    try:
        stack.start_redis()
        ports = [stack.engine_port] + [free_port() for _ in range(engines - 1)]
        for index, engine_port in enumerate(ports):
            stack.start_engine(engine_port, name="engine" if index == 0 else f"engine-{index + 1}")
        stack.start_stats()
        stack.start_matchmaker()
        engine_address = "ipv4:" + ",".join(f"127.0.0.1:{p}" for p in ports)
        stack.extra_env["BOXEDIN_ENGINE_ADDRESS"] = engine_address
        stack.extra_env["BOXEDIN_ENGINE_ROUTING"] = routing
        gateway_ports = [stack.gateway_port] + [free_port() for _ in range(gateways - 1)]
        for gateway_port in gateway_ports:
            stack.start_gateway(gateway_port)
        for name, engine_port in stack.engines.items():
            stack.wait_serving(name, engine_port)
        stack.wait_serving("stats", stack.stats_port)
        stack.wait_serving("matchmaker", stack.matchmaker_port)
        for gateway_port in gateway_ports:
            stack.wait_ready(gateway_port)
        watched = [*stack.engines, *stack.gateways]
        gc_before = {name: gc_pauses(stack.metrics_url(name)) for name in watched}
        stalls_before = {name: stalls(stack.metrics_url(name)) for name in watched}
        reads_before = game_reads(str(stack.redis_url))
        before, client_before, wall_before = _cpu(stack), time.process_time(), time.perf_counter()
        machine_before = machine_busy_seconds()
        urls = [ws_url(stack.url(replica)) for replica in range(gateways)]
        result = event_loop.run(
            _watched_load(
                _load_over(urls, games, concurrency, mode, think=think, seconds=seconds, ramp=ramp),
                Path(stall_stacks) / "load-client.log" if stall_stacks is not None else None,
            )
        )
        after, client_after, wall_after = _cpu(stack), time.process_time(), time.perf_counter()
        machine_after = machine_busy_seconds()
        reads = game_reads(str(stack.redis_url)) - reads_before
        applied = {name: actions_applied(stack.metrics_url(name)) for name in stack.engines}
        gc_after = {name: gc_pauses(stack.metrics_url(name)) for name in watched}
        stalls_after = {name: stalls(stack.metrics_url(name)) for name in watched}
    finally:
        stack.stop()
    # Every action of the run, the ramp-up's included, cost CPU: count them all here.
    actions = result.pop("all_actions")
    result["all_actions_answered"] = actions
    spent = {name: after[name] - before[name] for name in after if name in before}
    spent["load client"] = client_after - client_before
    result["engines"] = engines
    result["gateways"] = gateways
    result["routing"] = routing
    result["game_reads_per_1000_actions"] = round(1000 * reads / actions, 1) if actions else 0.0
    result["actions_applied_by"] = applied
    result["think_seconds"] = think
    result["cpu_seconds_per_1000_actions"] = {
        name: round(1000 * seconds_used / actions, 3) for name, seconds_used in sorted(spent.items()) if actions
    }
    result["gc"] = {
        name: {
            f"generation {generation}": {
                "paused_seconds": round(gc_after[name][generation][0] - gc_before[name][generation][0], 3),
                "collections": round(gc_after[name][generation][1] - gc_before[name][generation][1]),
                "over_50_ms": round(gc_after[name][generation][2] - gc_before[name][generation][2]),
            }
            for generation in ("0", "1", "2")
        }
        for name in watched
    }
    # Event loop stalls of 50 ms or more during the run, by cause (boxedin.common.stalls).
    result["stalls"] = {
        name: {cause: round(stalls_after[name][cause] - stalls_before[name][cause]) for cause in STALL_CAUSES}
        for name in watched
    }
    result["stalls"]["load client"] = result.pop("client_stalls")
    # What else ran on the machine meanwhile, in cores: a stall "starved" of CPU is theirs.
    others = (machine_after - machine_before) - sum(spent.values())
    result["machine"] = {
        "cores": os.cpu_count(),
        "other_processes_cores": round(max(0.0, others) / (wall_after - wall_before), 2),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    result["cpu_busy_percent"] = {
        name: round(100 * seconds_used / (wall_after - wall_before), 1) for name, seconds_used in sorted(spent.items())
    }
    return result
