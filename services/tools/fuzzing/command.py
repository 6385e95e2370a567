"""`boxedin fuzz`: fuzzes a running gateway with the frames of draws.py and prints what came back
(the suite's tests/tools/test_fuzzing.py runs the same, smaller). Needs hypothesis, a
development dependency: pip install -e '.[dev]'."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fuzz",
        help="fuzz a running gateway's websocket with malformed and valid frames",
        description="Sends frames drawn from the protocol's grammar (valid, mutated, junk, binary, "
        "oversize) to a running gateway and checks every answer against docs/protocol.md: no "
        "connection closed but the documented ones, every frame answered with a documented frame, a "
        "held game unchanged, and (with --pid) the gateway's memory. Exits 1 on any violation.",
    )
    parser.add_argument("--frames", type=int, default=100_000, help="messages to send (default 100000)")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the gateway (default %(default)s)")
    parser.add_argument("--connections", type=int, default=64, help="connections at once (default 64)")
    parser.add_argument(
        "--rate",
        type=float,
        default=18.0,
        help="frames a second per connection, under the gateway's frame credits (default 18: they refill at 20 a "
        "second); 0: as fast as the gateway answers (a gateway with its limits raised)",
    )
    parser.add_argument("--pid", type=int, help="the gateway's process id, to report its memory (same machine)")
    parser.add_argument("--seed", type=int, help="draw the same frames as another run with this seed")
    parser.add_argument("--warmup", type=int, default=1000, help="messages sent first, not counted (default 1000)")
    parser.add_argument("--log", help="the gateway's log file: report the lines it grew by, and how many a second")
    parser.add_argument(
        "--own-stack",
        action="store_true",
        help="fuzz a stack of its own, its limits on one client raised out of the way (as --rate 0 needs), its "
        "gateway's memory and log read; --url, --pid and --log are then its own",
    )
    parser.set_defaults(handler=run)


# The limits on one client (docs/protocol.md, Limits) out of the fuzz's way on a stack of its own:
# it sends as fast as the gateway answers, and some of its connections never say hello.
RAISED_LIMITS = {
    "BOXEDIN_FRAME_CREDITS": "1000000",
    "BOXEDIN_FRAME_CREDITS_PER_SECOND": "1000000",
    "BOXEDIN_HELLO_TIMEOUT_SECONDS": "3600",
    "BOXEDIN_IDLE_TIMEOUT_SECONDS": "3600",
    "BOXEDIN_ADDRESS_CONNECTS_BURST": "100000",
    "BOXEDIN_ADDRESS_CONNECTS_PER_SECOND": "100000",
    "BOXEDIN_ADDRESS_FRAMES_BURST": "1000000",
    "BOXEDIN_ADDRESS_FRAMES_PER_SECOND": "1000000",
    "BOXEDIN_ADDRESS_ACTIONS_BURST": "1000000",
    "BOXEDIN_ADDRESS_ACTIONS_PER_SECOND": "1000000",
    "BOXEDIN_IDLE_CONNECTIONS_PER_ADDRESS": "100000",
}


def _log_lines(path: str, since: int) -> int:
    with open(path, "rb") as log:
        log.seek(since)
        return log.read().count(b"\n")


def run(args: argparse.Namespace) -> int:
    try:
        from . import run as fuzzing
    except ImportError as exc:  # hypothesis is a development dependency
        print(f"boxedin fuzz needs the development dependencies (pip install -e '.[dev]'): {exc}", file=sys.stderr)
        return 2
    stack = None
    if args.own_stack:
        import tempfile

        from boxedin.supervisor.launcher import Stack

        folder = tempfile.mkdtemp(prefix="boxedin-fuzz-")
        stack = Stack.on_free_ports(
            "fuzz:",
            worker=False,
            log_dir=Path(folder),
            extra_env=RAISED_LIMITS,
        )
        stack.start()
        args.url, args.pid, args.log = stack.url(), stack.processes["gateway"].pid, f"{folder}/gateway.log"
    try:
        since = os.path.getsize(args.log) if args.log else 0
        summary = asyncio.run(
            fuzzing.run(
                args.url,
                args.frames,
                connections=args.connections,
                rate=args.rate or None,
                pid=args.pid,
                seed=args.seed,
                warmup=args.warmup,
            )
        )
        if args.log:
            lines = _log_lines(args.log, since)
            rate = lines / summary.seconds if summary.seconds else 0.0
            print(f"gateway log: {lines} lines while fuzzing ({rate:.1f} a second)")
    finally:
        if stack is not None:
            stack.stop()
    print("\n".join(summary.lines()))
    return 1 if summary.violations else 0
