"""`boxedin load`: plays local games over websockets against a running service, many at once,
and prints actions per second and the action round trip (frame sent to update received)."""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import websockets


@dataclass
class Tally:
    round_trips: list[float] = field(default_factory=list)
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


async def play_one(url: str, mode: str, tally: Tally, rng_seed: int) -> None:
    """One local game, both seats drawing open edges in an order of their own."""
    async with websockets.connect(url, max_size=2**24) as ws:

        async def request(frame: dict[str, Any]) -> dict[str, Any]:
            await ws.send(json.dumps(frame))
            while True:
                reply: dict[str, Any] = json.loads(await ws.recv())
                if reply["type"] in ("welcome", "state", "update", "error"):
                    return reply

        await request({"type": "hello", "device": secrets.token_urlsafe(24)})
        reply = await request({"type": "new_game", "mode": mode, "opponent": "local"})
        state = reply["game"]
        while not state["over"]:
            if state["phase"] == "roll":
                frame: dict[str, Any] = {"type": "roll", "game": state["game"], "seq": state["seq"]}
            else:
                edge = min(open_edges(state), key=lambda e: hash((tuple(e), rng_seed)))
                frame = {"type": "draw", "game": state["game"], "edge": edge, "seq": state["seq"]}
            started = time.perf_counter()
            reply = await request(frame)
            tally.round_trips.append(time.perf_counter() - started)
            if reply["type"] == "error":
                tally.errors[reply["code"]] = tally.errors.get(reply["code"], 0) + 1
                raise RuntimeError(f"refused: {reply['code']}")
            state = reply["game"]
        tally.games += 1


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def run_load(url: str, games: int, concurrency: int, mode: str) -> dict[str, Any]:
    tally = Tally()
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(games):
        queue.put_nowait(i)
    started = time.perf_counter()

    async def worker() -> None:
        while True:
            try:
                index = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                await play_one(url, mode, tally, index)
            except (OSError, RuntimeError, websockets.WebSocketException):
                tally.failed_games += 1

    async def progress() -> None:
        while True:
            done = tally.games + tally.failed_games
            print(
                f"\r{done}/{games} games, {len(tally.round_trips)} actions",
                end="",
                file=sys.stderr,
                flush=True,
            )
            await asyncio.sleep(0.5)

    reporter = asyncio.create_task(progress())
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    reporter.cancel()
    elapsed = time.perf_counter() - started
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
    }


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or args.concurrency < 1:
        print("boxedin load: --games and --concurrency are at least 1", file=sys.stderr)
        return 2
    url = args.url.rstrip("/").replace("http://", "ws://").replace("https://", "wss://") + "/ws"
    try:
        result = asyncio.run(run_load(url, args.games, min(args.concurrency, args.games), args.mode))
    except OSError as exc:
        print(f"boxedin load: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0 if result["failed_games"] == 0 else 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("load", help="play many local games over websockets and measure")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--concurrency", type=int, default=50, help="games at once (default 50)")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the gateway (default :8000)")
    parser.add_argument("--mode", default="mini", help="the mode to play (default mini)")
    parser.set_defaults(handler=run)
