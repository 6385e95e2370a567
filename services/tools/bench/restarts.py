"""`boxedin bench restarts`: what a SIGKILL of a service costs a player, and where the time goes
(issue 31, point 9). A supervised stack of its own (no Celery worker, no Same Wi-Fi app) and one
player, who connects every 0.05 s, as the test players reconnect, and starts a local game (the
gateway, the engine and Redis answer it); each round kills the process, and the player's first
new game after the kill ends the outage. For the gateway the rounds alternate
between a restart through a warm spare (boxedin.supervisor.standby) and a cold start (a new
interpreter importing the gateway), so that both are measured under the same load.

Per round: detect = kill -> the supervisor sees it gone; pause = -> started again; start = ->
ready again (its readiness check); outage = kill -> the player's new game answered again (the
player may get in before the supervisor's check sees it ready)."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any

from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

from boxedin.supervisor.launcher import Stack, free_port

RETRY_SECONDS = 0.05


@dataclass
class Round:
    kind: str
    how: str  # "spare" or "cold" (the gateway), "cold" (the others)
    detect: float
    pause: float
    start: float
    outage: float


def answered(url: str) -> bool:
    """Whether a new game asked for on a new connection is answered with its state."""
    try:
        with connect(url, open_timeout=1, close_timeout=0.2) as ws:
            ws.send(json.dumps({"type": "hello", "id": 1}))
            ws.send(json.dumps({"type": "new_game", "mode": "mini", "opponent": "local", "id": 2}))
            while True:
                frame = json.loads(ws.recv(timeout=2))
                if frame.get("type") == "error":
                    return False
                if frame.get("reply_to") == 2:
                    return True
    except (OSError, TimeoutError, WebSocketException):
        return False


def crash_once(stack: Stack, kind: str, how: str, url: str) -> Round:
    if kind == "gateway":
        stack.spares = ("gateway",) if how == "spare" else ()
        with stack._lock:
            child = stack._children[kind]
            if how == "cold" and child.spare is not None:
                child.spare.end()
                child.spare = None
        if how == "spare":
            stack._keep_spare(kind)
            stack.wait_spare_warm(kind)
    while not answered(url):  # the player is in before the kill
        time.sleep(RETRY_SECONDS)
    killed_at = stack.crash(kind)
    while not answered(url):
        time.sleep(RETRY_SECONDS)
    back = time.monotonic()
    recovery = stack.wait_recovered(kind, killed_at)
    assert recovery.started_at is not None and recovery.ready_at is not None
    return Round(
        kind,
        how,
        recovery.stopped_at - killed_at,
        recovery.started_at - recovery.stopped_at,
        recovery.ready_at - recovery.started_at,
        back - killed_at,
    )


def summary(rounds: list[Round]) -> dict[str, dict[str, float]]:
    figures = {}
    for name in ("detect", "pause", "start", "outage"):
        values = [getattr(r, name) for r in rounds]
        figures[name] = {"median": statistics.median(values), "max": max(values)}
    return figures


def run(args: argparse.Namespace) -> int:
    stack = Stack.on_free_ports(
        f"bench-restarts-{free_port()}:",
        worker=False,
        supervise=True,
        redis_aof=True,
    )
    url = f"ws://127.0.0.1:{stack.gateway_port}/ws"
    rounds: list[Round] = []
    try:
        stack.start()
        for kind in args.kinds:
            ways = ["spare", "cold"] if kind == "gateway" else ["cold"]
            for number in range(args.rounds * len(ways)):
                rounds.append(crash_once(stack, kind, ways[number % len(ways)], url))
                # A child that stays up less than STABLE_SECONDS would be restarted later each time.
                stack._children[kind].failures = 0
    finally:
        stack.stop()
    groups: dict[str, list[Round]] = {}
    for r in rounds:
        groups.setdefault(f"{r.kind} {r.how}", []).append(r)
    if args.json:
        every = {name: summary(group) for name, group in groups.items()}
        print(json.dumps({"rounds": [asdict(r) for r in rounds], "summary": every}))
        return 0
    print(f"SIGKILL -> the player answered again, {args.rounds} rounds each (s: median / max)")
    print(f"{'killed':<16} {'detect':>13} {'pause':>13} {'start':>13} {'outage':>13}")
    for name, group in groups.items():
        figures = summary(group)
        cells = " ".join(f"{figures[f]['median']:>6.2f}/{figures[f]['max']:<6.2f}" for f in figures)
        print(f"{name:<16} {cells}")
    return 0


def add_to(targets: Any) -> None:
    parser = targets.add_parser("restarts", help="what a SIGKILL of a service costs a player, spare against cold")
    parser.add_argument(
        "--kinds", nargs="+", default=["gateway"], choices=["gateway", "engine", "redis"],
        help="the processes to kill (default gateway)",
    )  # fmt: skip
    parser.add_argument("--rounds", type=int, default=5, help="kills of each kind and way (default 5)")
    parser.add_argument("--json", action="store_true", help="print every round and the figures as JSON")
    parser.set_defaults(handler=run)
