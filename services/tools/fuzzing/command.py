"""`boxedin fuzz`: fuzzes a running gateway with the frames of draws.py and prints what came back
(the suite's tests/tools/test_fuzzing.py runs the same, smaller). Needs hypothesis, a
development dependency: pip install -e '.[dev]'."""

from __future__ import annotations

import argparse
import asyncio
import sys
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
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        from . import run as fuzzing
    except ImportError as exc:  # hypothesis is a development dependency
        print(f"boxedin fuzz needs the development dependencies (pip install -e '.[dev]'): {exc}", file=sys.stderr)
        return 2
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
    print("\n".join(summary.lines()))
    return 1 if summary.violations else 0
