"""`boxedin lan`: Same Wi-Fi play on this machine, with no game server: serves the web client
to this machine's browser and hosts or joins a game on the local network."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

import uvicorn

from .host import GRACE_SECONDS
from .player import LocalPlayer
from .server import create_app

DEFAULT_PORT = 8090


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    player = LocalPlayer(
        peer_bind=args.peer_bind, peer_port=args.peer_port, discovery=not args.no_discovery, grace=args.grace
    )
    origins = tuple(o.strip() for o in args.allow_origin if o.strip())
    app = create_app(player, Path(args.web_dist), origins, (args.host,))
    if args.uds:
        # A Unix socket reaches a process in another network namespace (the tests' two machines).
        print(f"Same Wi-Fi: the browser's side listens on {args.uds}", flush=True)
        uvicorn.run(app, uds=args.uds, log_level="warning", ws_max_size=64 * 1024)
        return 0
    print(f"Same Wi-Fi: open http://{args.host}:{args.port}/ in this machine's browser", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", ws_max_size=64 * 1024)
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("lan", help="play Same Wi-Fi games: host or join one on the local network")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"the browser's port (default {DEFAULT_PORT})")
    parser.add_argument(
        "--host", default="127.0.0.1", help="where the browser's page listens (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--uds", help="serve the browser's side on this Unix socket instead of a port")
    parser.add_argument("--peer-bind", default="0.0.0.0", help="where a hosted game listens for the other player")
    parser.add_argument("--peer-port", type=int, default=0, help="the hosted game's port (default: any free one)")
    parser.add_argument(
        "--grace",
        type=int,
        default=GRACE_SECONDS,
        help=f"seconds a dropped player has to come back (default {GRACE_SECONDS})",
    )
    parser.add_argument("--no-discovery", action="store_true", help="no multicast DNS: games are joined by address")
    parser.add_argument("--web-dist", default="web/dist", help="the built web client (default web/dist)")
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        help="a page of another origin that may use this process (boxedin up's gateway page)",
    )
    parser.set_defaults(handler=run)
