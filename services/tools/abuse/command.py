"""`boxedin abuse`: the figures of issue 31 for the budgets per address. Live players, each from
an address of its own (127.1.0.1 on: twenty people, not one household over its own budgets), play
local games (loadtest.play_one) while one abuse of attacks.py runs from one source address or from
ten; their action round trip p99 before and during the abuse is the figure, with what the abuse
got (connections, refusals, closes) and whether /healthz and a new player's hello kept answering
during it. The goal is met only if no live player was refused meanwhile either. It starts a
stack of its own with the default settings, unless --url names a running gateway on this machine."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import queue
import statistics
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import websockets

from boxedin.tools.load.loadtest import Pace, Tally, TimeUp, percentile, play_one, ws_url
from boxedin.tools.load.own_stack import cpu_seconds

from . import attacks

KINDS = ("reconnect", "frames", "actions", "idle", "half_open")
# How many clients each abuse has in all, spread over its addresses (issue 31, point 3 and 4).
CLIENTS = {"reconnect": 1, "frames": 300, "actions": 200, "idle": 1000, "half_open": 20_000}
GOAL_ABOVE_MS, GOAL_MAX_MS = 20.0, 50.0


@dataclass
class Probe:
    """/healthz and a new player's hello, asked every half second during the abuse."""

    asked: int = 0
    failed: int = 0
    slowest_ms: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)  # the failures, by kind


@dataclass
class Scenario:
    kind: str
    addresses: int
    clients: int
    before_p99_ms: float
    during_p99_ms: float
    before_actions: int
    during_actions: int
    # The gateway's CPU, milliseconds a second, while the players played alone and during the
    # abuse: what the abuse costs the gateway, a figure a busy machine blurs less than a p99.
    before_cpu_ms: float | None = None
    during_cpu_ms: float | None = None
    abuse: dict[str, Any] = field(default_factory=dict)
    healthz: Probe = field(default_factory=Probe)
    new_player: Probe = field(default_factory=Probe)
    # What the live players were refused during the abuse (by code), and their games cut short.
    players_refused: dict[str, int] = field(default_factory=dict)
    players_failed_games: int = 0

    @property
    def met(self) -> bool:
        return (
            self.during_p99_ms <= self.before_p99_ms + GOAL_ABOVE_MS
            and self.during_p99_ms <= GOAL_MAX_MS
            and not self.healthz.failed
            and not self.new_player.failed
            and not self.players_refused
            and not self.players_failed_games
        )


def player_address(index: int) -> str:
    """Live player ``index``'s client address: apart from every abuser's (127.0.x.y)."""
    return f"127.1.{index // 250}.{1 + index % 250}"


async def _players(url: str, players: int, seconds: float, think: float) -> Tally:
    """``players`` live players, each playing local games one after another for ``seconds``."""
    tally = Tally()
    started = time.perf_counter()
    pace = Pace(think, started, started + seconds)

    async def one(index: int) -> None:
        game = 0
        while time.perf_counter() < pace.stop_at:
            game += 1
            with contextlib.suppress(TimeUp):
                try:
                    await play_one(url, "mini", tally, index * 100_000 + game, pace, player_address(index))
                except (RuntimeError, OSError, websockets.exceptions.WebSocketException):
                    tally.failed_games += 1
                    await asyncio.sleep(1)  # as the web client waits before it reconnects

    await asyncio.gather(*(one(index) for index in range(players)))
    return tally


async def _probe(probe: Probe, ask: Callable[[], Coroutine[Any, Any, None]]) -> None:
    while True:
        started = time.perf_counter()
        probe.asked += 1
        try:
            await asyncio.wait_for(ask(), 5)
        except Exception as failure:  # any failure is what is counted
            probe.failed += 1
            kind = f"{type(failure).__name__}: {failure}"[:80]
            probe.errors[kind] = probe.errors.get(kind, 0) + 1
        probe.slowest_ms = max(probe.slowest_ms, 1000 * (time.perf_counter() - started))
        await asyncio.sleep(0.5)


def _abuse(
    kind: str, url: str, host: str, port: int, sources: list[str], clients: int, ready: Any, stop: Any, reports: Any
) -> None:
    """The abuser process: runs ``clients`` clients of ``kind`` (``ready`` once they have started)
    until ``stop`` is set, then reports what they got."""
    try:
        reports.put(asyncio.run(_abuse_until(kind, url, host, port, sources, clients, ready, stop)))
    except BaseException as failure:
        reports.put({"report": f"the abuser failed: {type(failure).__name__}: {failure}"})
        raise


async def _abuse_until(
    kind: str, url: str, host: str, port: int, sources: list[str], clients: int, ready: Any, stop: Any
) -> dict[str, Any]:
    counts = attacks.Counts()
    if kind == "half_open":
        attacks.socket_limit()
    tasks = []
    for index in range(clients):
        source = sources[index % len(sources)]
        work = (
            attacks.half_open(host, port, source, counts)
            if kind == "half_open"
            else getattr(attacks, kind)(url, source, counts)
        )
        tasks.append(asyncio.create_task(work))
    ready.set()
    while not stop.is_set():
        await asyncio.sleep(0.1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "connections": counts.connections,
        "refused": dict(counts.refused),
        "closes": dict(counts.closes),
        "frames": counts.frames,
        "most_held": counts.most_held,
    }


def together(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The abuser processes' reports as one: counts added up (``most_held`` is the sum of each
    process's most, an upper bound on what was held at once), failures listed."""
    if len(reports) == 1:
        return reports[0]
    total: dict[str, Any] = {"connections": 0, "refused": Counter(), "closes": Counter(), "frames": 0, "most_held": 0}
    failures = []
    for report in reports:
        if "report" in report:
            failures.append(report["report"])
            continue
        for name in ("connections", "frames", "most_held"):
            total[name] += report[name]
        for name in ("refused", "closes"):
            total[name].update(report[name])
    total["refused"], total["closes"] = dict(total["refused"]), dict(total["closes"])
    if failures:
        total["report"] = "; ".join(failures)
    return total


def _ms(tally: Tally) -> float:
    return round(1000 * percentile(tally.round_trips, 0.99), 1)


async def _measured(pid: int | None, work: Coroutine[Any, Any, Tally]) -> tuple[Tally, float | None]:
    """The players' tally, and the gateway's CPU milliseconds a second meanwhile (with its pid)."""
    started, cpu = time.perf_counter(), cpu_seconds(pid) if pid else 0.0
    tally = await work
    if not pid:
        return tally, None
    return tally, round(1000 * (cpu_seconds(pid) - cpu) / (time.perf_counter() - started), 1)


async def scenario(
    base: str,
    kind: str,
    addresses: int,
    *,
    players: int,
    seconds: float,
    think: float,
    scale: float,
    first: int,
    gateway_pid: int | None = None,
) -> Scenario:
    """The players' p99 alone, then during ``kind`` from ``addresses`` source addresses (from
    127.0.``first``.2 on, so that no scenario inherits another's penalties)."""
    url = ws_url(base)
    parts = urlsplit(base)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    before, before_cpu = await _measured(gateway_pid, _players(url, players, seconds, think))
    # At least one client an address: "from ten addresses" is ten clients' doing at the least.
    clients = max(addresses, round(CLIENTS[kind] * scale))
    sources = [f"127.0.{first}.{2 + n}" for n in range(addresses)]
    # The abuse runs in processes of its own: on the players' event loop it would delay their
    # round trips itself, and the figure is the gateway's. Half-open connections are one
    # descriptor each: as many processes as this machine's per-process limit needs.
    per_process = attacks.socket_limit() - 500 if kind == "half_open" else clients
    shares = [min(per_process, clients - start) for start in range(0, clients, per_process)]
    context = multiprocessing.get_context("spawn")
    stop, reports = context.Event(), context.Queue()
    readies = [context.Event() for _ in shares]
    abusers = [
        context.Process(
            target=_abuse, args=(kind, url, host, port, sources, share, ready, stop, reports), daemon=True
        )
        for share, ready in zip(shares, readies, strict=True)
    ]
    for abuser in abusers:
        abuser.start()
    for ready in readies:
        await asyncio.to_thread(ready.wait, 120)  # a process takes a while to import what it needs
    result = Scenario(kind, addresses, clients, _ms(before), 0.0, len(before.round_trips), 0, before_cpu)

    async def healthz() -> None:
        def get() -> None:
            with urllib.request.urlopen(base + "/healthz", timeout=5) as reply:
                reply.read()

        await asyncio.to_thread(get)

    async def new_player() -> None:
        async with websockets.connect(url, ping_interval=None, open_timeout=5) as ws:
            await ws.send(json.dumps({"type": "hello"}))
            assert json.loads(await ws.recv())["type"] == "welcome"

    probes = [
        asyncio.create_task(_probe(result.healthz, healthz)),
        asyncio.create_task(_probe(result.new_player, new_player)),
    ]
    try:
        await asyncio.sleep(min(3.0, seconds) + 1)  # the abuse starts (and is cut down)
        during, result.during_cpu_ms = await _measured(gateway_pid, _players(url, players, seconds, think))
    finally:
        stop.set()
        for task in probes:
            task.cancel()
        await asyncio.gather(*probes, return_exceptions=True)
        said = []
        for _ in abusers:
            try:
                said.append(await asyncio.to_thread(reports.get, True, 120))
            except queue.Empty:
                said.append({"report": "an abuser process said nothing within 120 s"})
        result.abuse = together(said)
        for abuser in abusers:
            abuser.join(30)
            if abuser.is_alive():
                abuser.kill()
    result.during_p99_ms, result.during_actions = _ms(during), len(during.round_trips)
    result.players_refused, result.players_failed_games = dict(during.errors), during.failed_games
    return result


async def run_abuse(
    base: str,
    kinds: list[str],
    address_counts: list[int],
    *,
    players: int = 20,
    seconds: float = 8.0,
    think: float = 0.2,
    scale: float = 1.0,
    gateway_pid: int | None = None,
) -> list[Scenario]:
    """Every kind from each count of addresses, one after another against the gateway at ``base``."""
    results = []
    for number, (kind, count) in enumerate((k, c) for k in kinds for c in address_counts):
        result = await scenario(
            base,
            kind,
            count,
            players=players,
            seconds=seconds,
            think=think,
            scale=scale,
            first=10 + number,
            gateway_pid=gateway_pid,
        )
        print(f"{kind} from {count}: p99 {result.before_p99_ms} -> {result.during_p99_ms} ms", file=sys.stderr)
        results.append(result)
    return results


def _table(runs: list[list[Scenario]]) -> list[str]:
    lines = [
        "abuse        from  clients | p99 before ms       | p99 during ms       | gateway CPU ms/s before -> during"
        " | healthz / new player / live games failed | goal",
    ]
    for index, first in enumerate(runs[0]):
        same = [run[index] for run in runs]
        before = [s.before_p99_ms for s in same]
        during = [s.during_p99_ms for s in same]

        def spread(values: list[float]) -> str:
            middle = statistics.median(values)
            return f"{middle:6.1f} ({min(values):.1f}-{max(values):.1f})"

        failed = (
            f"{sum(s.healthz.failed for s in same)} / {sum(s.new_player.failed for s in same)}"
            f" / {sum(s.players_failed_games for s in same)}"
        )
        cpu = " ".join(f"{s.before_cpu_ms}->{s.during_cpu_ms}" for s in same)
        met = sum(s.met for s in same)
        lines.append(
            f"{first.kind:<12} {first.addresses:>4}  {first.clients:>7} | {spread(before)} | {spread(during)} | "
            f"{cpu} | {failed:>38} | {met}/{len(same)} runs"
        )
    return lines


def _own_stack(logs: Path | None) -> tuple[Any, str, int]:
    from boxedin.supervisor.launcher import Stack

    stack = Stack.on_free_ports("abuse:", worker=False, log_dir=logs)
    stack.start()
    return stack, stack.url(), stack.processes["gateway"].pid


def run(args: argparse.Namespace) -> int:
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise SystemExit(f"boxedin abuse: unknown kinds {unknown}; the kinds are {', '.join(KINDS)}")
    counts = [int(n) for n in args.addresses.split(",")]
    if any(not 1 <= n <= 200 for n in counts):
        raise SystemExit("boxedin abuse: --addresses are counts of source addresses from 1 to 200")
    attacks.socket_limit()
    runs: list[list[Scenario]] = []
    for n in range(args.runs):
        stack = None
        base, pid = args.url, args.pid
        if base is None:
            stack, base, pid = _own_stack(None if args.logs is None else Path(args.logs) / f"run-{n + 1}")
        try:
            runs.append(
                asyncio.run(
                    run_abuse(
                        base,
                        kinds,
                        counts,
                        players=args.players,
                        seconds=args.seconds,
                        think=args.think,
                        scale=args.scale,
                        gateway_pid=pid,
                    )
                )
            )
        finally:
            if stack is not None:
                stack.stop()
    if args.json:
        print(json.dumps([[asdict(s) | {"met": s.met} for s in run] for run in runs], indent=2))
    else:
        print("\n".join(_table(runs)))
        for number, run_ in enumerate(runs, 1):
            for s in run_:
                print(f"run {number} {s.kind} from {s.addresses}: {json.dumps(s.abuse)}")
    return 0 if all(s.met for run_ in runs for s in run_) else 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "abuse",
        help="measure live players' round trip during each abuse of one or ten client addresses",
        description=__doc__,
    )
    parser.add_argument("--kinds", default=",".join(KINDS), help="the abuses (default: all of %(default)s)")
    parser.add_argument("--addresses", default="1,10", help="counts of source addresses (default %(default)s)")
    parser.add_argument("--players", type=int, default=20, help="live players (default 20)")
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds measured before and during (default 8)")
    parser.add_argument("--think", type=float, default=0.2, help="players' mean seconds between actions (default 0.2)")
    parser.add_argument("--scale", type=float, default=1.0, help="the abuses' clients times this (default 1)")
    parser.add_argument("--runs", type=int, default=1, help="runs, each on a fresh stack (default 1)")
    parser.add_argument("--url", help="a running gateway on this machine instead of a stack of its own")
    parser.add_argument("--pid", type=int, help="with --url: the gateway's process id, to read its CPU (same machine)")
    parser.add_argument("--json", action="store_true", help="print every figure as JSON")
    parser.add_argument(
        "--logs", help="a folder for the own stack's logs, one folder per run (its stalls say what held a tail up)"
    )
    parser.set_defaults(handler=run)
