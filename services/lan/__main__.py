"""``python -m boxedin.lan``: the same as ``boxedin lan``, without loading every other command."""

from __future__ import annotations

import argparse
import sys

from .command import register


def main() -> int:
    parser = argparse.ArgumentParser(prog="boxedin")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["lan", *sys.argv[1:]])
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
