"""`boxedin load`: plays local games over websockets against a running service, many at once,
and prints actions per second and the action round trip (frame sent to update received).

`boxedin load --online --pairs N` pairs 2N simulated devices through Find Match instead
(online.py)."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import websockets

from boxedin.common import delta, event_loop


@dataclass
class Tally:
    round_trips: list[float] = field(default_factory=list)
    actions: int = 0  # every action answered, those of the ramp-up included
    games: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    failed_games: int = 0


def open_edges(state: dict[str, Any]) -> list[list[Any]]:
    """The board's edges not drawn yet: plain geometry from the state, no rule (previews of
    every edge are sent only in practice games)."""
    n = state["boxes"]
    drawn = {(o, r, c) for o, r, c, _ in state["edges"]}
    every = [("h", r, c) for r in range(n + 1) for c in range(n)] + [
        ("v", r, c) for r in range(n) for c in range(n + 1)
    ]
    return [list(edge) for edge in every if edge not in drawn]


@dataclass(frozen=True)
class Pace:
    """How a game is played: ``think`` seconds on average between a game's actions, as a person
    takes (0: at once); round trips are counted from ``count_from`` (after the ramp-up), and a
    game in play at ``stop_at`` stops there (its time is up, it did not fail)."""

    think: float = 0.0
    count_from: float = 0.0
    stop_at: float = float("inf")


# With --seconds: how long a player whose game failed waits before the next one.
FAILED_GAME_PAUSE_SECONDS = 1.0


class TimeUp(Exception):
    """A game left at the end of the measured time."""


async def play_one(
    url: str, mode: str, tally: Tally, rng_seed: int, pace: Pace = Pace(), source: str | None = None
) -> None:
    """One local game, both seats drawing open edges in an order of their own; from the client
    address ``source`` (a 127.x.y.z) when given."""
    rng = random.Random(rng_seed)
    local_addr = None if source is None else (source, 0)
    # Keepalive pings off: a client this busy must not drop its own connections.
    opening = websockets.connect(url, max_size=2**24, ping_interval=None, open_timeout=60, local_addr=local_addr)
    try:
        ws = await opening
    except AssertionError as exc:
        # websockets 17 fails its own assertion (close_deadline) when the connection is closed
        # during the handshake, as a gateway refusing the address's connect rate closes it.
        tally.errors["handshake_closed"] = tally.errors.get("handshake_closed", 0) + 1
        raise RuntimeError("the connection was closed during its handshake") from exc
    async with ws:

        async def request(frame: dict[str, Any]) -> dict[str, Any]:
            await ws.send(json.dumps(frame))
            while True:
                reply: dict[str, Any] = json.loads(await ws.recv())
                if reply["type"] in ("welcome", "state", "update", "error"):
                    return reply

        await request({"type": "hello"})
        reply = await request({"type": "new_game", "mode": mode, "opponent": "local"})
        state = reply["game"]
        while not state["over"]:
            if pace.think:
                # From half to one and a half times the mean: people differ, but not by minutes.
                await asyncio.sleep(pace.think * (0.5 + rng.random()))
            if time.perf_counter() >= pace.stop_at:
                raise TimeUp
            if state["phase"] == "roll":
                frame: dict[str, Any] = {"type": "roll", "game": state["game"], "seq": state["seq"]}
            else:
                edge = min(open_edges(state), key=lambda e: hash((tuple(e), rng_seed)))
                frame = {"type": "draw", "game": state["game"], "edge": edge, "seq": state["seq"]}
            # An id, as the web client gives each action: the gateway keeps its answer for a
            # repeat (docs/protocol.md, Actions sent again), which is part of an action's cost.
            frame["id"] = f"a{len(tally.round_trips)}-{rng_seed}-{state['seq']}"
            started = time.perf_counter()
            reply = await request(frame)
            tally.actions += 1
            if started >= pace.count_from:
                tally.round_trips.append(time.perf_counter() - started)
            if reply["type"] == "error":
                tally.errors[reply["code"]] = tally.errors.get(reply["code"], 0) + 1
                raise RuntimeError(f"refused: {reply['code']}")
            if reply["type"] == "state":
                state = reply["game"]
            elif reply["seq"] == state["seq"] + 1:  # an update: what changed since the state before
                state = delta.apply(state, reply["changes"])
            else:
                raise RuntimeError(f"update {reply['seq']} after {state['seq']}: the updates between are missing")
        tally.games += 1


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def run_load(
    url: str,
    games: int,
    concurrency: int,
    mode: str,
    *,
    think: float = 0.0,
    seconds: float | None = None,
    ramp: float = 0.0,
) -> dict[str, Any]:
    """Plays ``games`` games, ``concurrency`` at once; with ``seconds``, each of ``concurrency``
    players plays one game after another for that long instead (games left unfinished then are
    not failures). The first ``ramp`` seconds start the players one by one and are not counted."""
    tally = Tally()
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(games if seconds is None else 0):
        queue.put_nowait(i)
    started = time.perf_counter()
    pace = Pace(think, started + ramp, started + ramp + seconds if seconds is not None else float("inf"))
    indexes = itertools.count(games)

    async def worker(position: int) -> None:
        await asyncio.sleep(ramp * position / concurrency)
        while True:
            if seconds is None:
                try:
                    index = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
            elif time.perf_counter() >= pace.stop_at:
                return
            else:
                index = next(indexes)
            try:
                await play_one(url, mode, tally, index, pace)
            except TimeUp:
                return
            except (OSError, RuntimeError, websockets.WebSocketException):
                tally.failed_games += 1
                if seconds is not None:
                    # As a browser waits before it connects again: a stack past what it can
                    # carry is not also flooded with reconnects (refused for the address's
                    # connect rate, each one a failed game more).
                    await asyncio.sleep(FAILED_GAME_PAUSE_SECONDS)

    async def progress() -> None:
        while True:
            done = tally.games + tally.failed_games
            elapsed = time.perf_counter() - started
            of = f"/{games}" if seconds is None else f" in {elapsed:.0f} of {ramp + seconds:.0f} s,"
            print(
                f"\r{done}{of} games, {tally.actions} actions",
                end="",
                file=sys.stderr,
                flush=True,
            )
            await asyncio.sleep(0.5)

    reporter = asyncio.create_task(progress())
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    reporter.cancel()
    elapsed = time.perf_counter() - (started + ramp if seconds is not None else started)
    print(file=sys.stderr)
    trips = tally.round_trips
    return {
        "games": tally.games,
        "failed_games": tally.failed_games,
        "concurrency": concurrency,
        "mode": mode,
        "seconds": round(elapsed, 2),
        "actions": len(trips),
        "actions_per_second": round(len(trips) / elapsed, 1) if elapsed else 0.0,
        "round_trip_ms": {
            "p50": round(percentile(trips, 0.50) * 1000, 1),
            "p95": round(percentile(trips, 0.95) * 1000, 1),
            "p99": round(percentile(trips, 0.99) * 1000, 1),
        },
        "errors": tally.errors,
        "all_actions": tally.actions,
    }


def ws_url(base: str) -> str:
    """The websocket address of a gateway given as http(s)://host:port (or already ws(s)://)."""
    base = base.rstrip("/")
    if base.endswith("/ws"):
        base = base[: -len("/ws")]
    return base.replace("http://", "ws://").replace("https://", "wss://") + "/ws"


def run(args: argparse.Namespace) -> int:
    if args.drain:
        from .drain import rollout_ok, run_drain

        if args.clients < 2 or args.spread < 0:
            print("boxedin load: --clients is at least 2 and --spread at least 0", file=sys.stderr)
            return 2
        think = 1.0 if not args.think else args.think
        result = run_drain(args.clients, args.spread, think)
        print(json.dumps(result))
        return 0 if rollout_ok(result) else 1
    # Watching needs a game long enough for both phases of a run.
    args.mode = args.mode or ("classic" if args.watchers is not None else "mini")
    if args.watchers is not None:
        from .watch import PACE_SECONDS, run_watch

        args.think = PACE_SECONDS if args.think is None else args.think
        return run_watch(args)
    args.think = args.think or 0.0
    if args.online:
        from .online import run_online

        return run_online(args)
    concurrency = 50 if args.concurrency is None else args.concurrency
    if args.games < 1 or concurrency < 1:
        print("boxedin load: --games and --concurrency are at least 1", file=sys.stderr)
        return 2
    if args.seconds is None:
        concurrency = min(concurrency, args.games)
    if args.own_stack:
        from .own_stack import run_on_own_stack

        if args.engines < 1 or args.gateways < 1:
            print("boxedin load: --engines and --gateways are at least 1", file=sys.stderr)
            return 2

        result = run_on_own_stack(
            args.games, concurrency, args.mode,
            engines=args.engines, think=args.think, seconds=args.seconds, ramp=args.ramp,
            gateways=args.gateways, routing=args.routing, stack_path=args.stack_path,
            stall_stacks=args.stall_stacks,
        )  # fmt: skip
        print(json.dumps(result))
        return 0 if result["failed_games"] == 0 else 1
    url = ws_url(args.url)
    try:
        result = event_loop.run(
            run_load(url, args.games, concurrency, args.mode, think=args.think, seconds=args.seconds, ramp=args.ramp)
        )
    except OSError as exc:
        print(f"boxedin load: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    result.pop("all_actions")
    print(json.dumps(result))
    return 0 if result["failed_games"] == 0 else 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "load", help="play many games over websockets and measure (local games, or --online through Find Match)"
    )
    parser.add_argument("--games", type=int, default=100, help="local games to play (default 100)")
    parser.add_argument(
        "--concurrency",
        type=int,
        help="games at once (default 50; with --online: pairs of players at once, default all)",
    )
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the gateway (default :8000)")
    parser.add_argument("--mode", help="the mode to play (default mini; with --watchers, classic)")
    parser.add_argument("--online", action="store_true", help="pair devices through Find Match and play online games")
    parser.add_argument("--pairs", type=int, default=50, help="with --online: pairs of players (default 50)")
    parser.add_argument("--json", action="store_true", help="with --online: print the figures as JSON, not a table")
    parser.add_argument(
        "--think", type=float, default=None, metavar="S",
        help="local games: S seconds on average between a game's actions, as a person (default 0); with "
        "--online: S seconds on average a player thinks before each action (default 0: back to back); "
        "with --watchers: S seconds between the players' actions (default 0.2; 0: back to back)",
    )  # fmt: skip
    parser.add_argument(
        "--seconds", type=float, metavar="S",
        help="local games: each of --concurrency players plays games one after another for S seconds",
    )  # fmt: skip
    parser.add_argument(
        "--ramp", type=float, default=0.0, metavar="S",
        help="local games: start the players one by one over S seconds, not counted (default 0)",
    )  # fmt: skip
    parser.add_argument(
        "--drain", action="store_true",
        help="a rollout: own stack, two gateways behind a local nginx, --clients players, one gateway SIGTERMed",
    )  # fmt: skip
    parser.add_argument("--clients", type=int, default=300, help="with --drain: players (default 300)")
    parser.add_argument(
        "--spread", type=float, default=10.0, metavar="S",
        help="with --drain: the gateways' BOXEDIN_DRAIN_SPREAD_SECONDS (default 10)",
    )  # fmt: skip
    parser.add_argument(
        "--own-stack", action="store_true",
        help="start a stack of its own (no AI) and report the CPU each process spent per 1,000 actions",
    )  # fmt: skip
    parser.add_argument("--engines", type=int, default=1, help="with --own-stack: engine replicas (default 1)")
    parser.add_argument(
        "--stall-stacks", metavar="DIR",
        help="with --own-stack: the processes' logs in DIR (the load client's own: load-client.log), where each "
        "event loop stall says where it was",
    )  # fmt: skip
    parser.add_argument(
        "--stack-path", metavar="DIR",
        help="with --own-stack: the stack's processes import boxedin from DIR (scripts/compare-load's baseline)",
    )  # fmt: skip
    parser.add_argument("--gateways", type=int, default=1, help="with --own-stack: gateways (default 1)")
    parser.add_argument(
        "--routing", choices=["partition", "round_robin"], default="partition",
        help="with --own-stack: each game's calls to its engine replica (default), or every call to the next",
    )  # fmt: skip
    parser.add_argument(
        "--watchers", type=int, metavar="N",
        help="watch one online game with N watchers on one gateway: their delivery, and the players' round trip "
        "with and without them (with --actions, --runs, --mode, --own-stack)",
    )  # fmt: skip
    parser.add_argument("--actions", type=int, default=70, help="with --watchers: actions per phase (default 70)")
    parser.add_argument("--runs", type=int, default=3, help="with --watchers: runs, a game each (default 3)")
    parser.set_defaults(handler=run)
