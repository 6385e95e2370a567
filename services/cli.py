"""The `boxedin` command: one entry point, each sub-command in the package that owns it."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Sub-command -> the module that registers it (a ``register(subparsers)`` function), so that each
# command lives beside what it drives.
COMMANDS: dict[str, str] = {
    "replay": "boxedin.engine.replay",
    "bench": "boxedin.engine.bench",
    "ai": "boxedin.ai.cli",
    "match": "boxedin.ai.match",
    "play": "boxedin.terminal",
    "up": "boxedin.up",
    "load": "boxedin.loadtest",
    "stats": "boxedin.stats.bench",
    "fuzz": "boxedin.gateway.fuzz",
    "memory": "boxedin.memory_report",
    "updates": "boxedin.engine.service.update_sizes",
    "lan": "boxedin.lan.command",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command, or of ``command`` alone when it names one: a command then
    imports only the module it runs (`boxedin replay` starts without the load test, the web
    server and the AI), and parses exactly as it would among all the others."""
    parser = argparse.ArgumentParser(prog="boxedin", description="Boxed In: Dots and Boxes.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = [COMMANDS[command]] if command in COMMANDS else dict.fromkeys(COMMANDS.values())
    for module in modules:
        importlib.import_module(module).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
