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
    "smoke": "boxedin.gateway.smoke",
    "memory": "boxedin.memory_report",
    "updates": "boxedin.engine.service.update_sizes",
    "lan": "boxedin.lan.command",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="boxedin", description="Boxed In: Dots and Boxes.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(module).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
