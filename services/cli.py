"""The `boxedin` command: one entry point, each sub-command in the package that owns it.

The one module that names both the product and the tools (``boxedin.tools``, ``boxedin.supervisor``):
the product never imports either, so a tool that adds to a product command (``boxedin ai bench``)
is put there from here."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

# Sub-command -> the module that registers it (a ``register(subparsers)`` function), so that each
# command lives beside what it drives. A name of two words adds to the sub-commands the first
# word's module returned from its ``register``; the order is the order of ``--help``.
COMMANDS: dict[str, str] = {
    "replay": "boxedin.engine.replay",
    "bench": "boxedin.tools.bench.engine",
    "ai": "boxedin.ai.cli",
    "ai bench": "boxedin.tools.bench.dice_table",
    "ai pool": "boxedin.tools.bench.expert_pool",
    "ai fit-share": "boxedin.tools.share_fit",
    "match": "boxedin.tools.arena.series",
    "play": "boxedin.tools.terminal",
    "up": "boxedin.supervisor.up",
    "load": "boxedin.tools.load.loadtest",
    "stats": "boxedin.tools.bench.stats",
    "figures": "boxedin.tools.bench.figures",
    "fuzz": "boxedin.tools.fuzzing.command",
    "abuse": "boxedin.tools.abuse.command",
    "smoke": "boxedin.tools.smoke",
    "memory": "boxedin.tools.reports.memory",
    "updates": "boxedin.tools.reports.update_sizes",
    "lan": "boxedin.lan.command",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command, or of ``command`` alone when it names one: a command then
    imports only the module it runs (`boxedin replay` starts without the load test, the web
    server and the AI), and parses exactly as it would among all the others."""
    parser = argparse.ArgumentParser(prog="boxedin", description="Boxed In: Dots and Boxes.")
    subparsers: dict[str, Any] = {
        "": parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    }
    # A command names its own module and those that add to it (``ai`` and ``ai bench``...).
    chosen = [name for name in COMMANDS if command in COMMANDS and name.split(" ")[0] == command]
    for name in chosen or COMMANDS:
        parent = name.rpartition(" ")[0]
        subparsers[name] = importlib.import_module(COMMANDS[name]).register(subparsers[parent])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
