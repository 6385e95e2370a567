"""`boxedin ai fit-share`: fits the share of ``expert.LOOKAHEAD_SHARES`` for a dice mode.

Hard plays itself; at the start of every turn (before the roll) the mover's mean best reply
(``playout.reply_total`` over the die's faces, divided by the die) is paired with what the
mover's margin went on to gain by the end of the game. The least-squares line through those
pairs says how much of what lies on the board a player nets from there: its slope is the share.
The dice and Hard's own choices come from the seed, so a run is repeatable.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from typing import Any

from boxedin.ai.hard import Hard
from boxedin.ai.playout import margin, reply_total
from boxedin.ai.turn import take_turn
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES


@dataclass(frozen=True, slots=True)
class ShareFit:
    """The least-squares line ``gain = share * reply + intercept`` over ``samples`` turn starts;
    ``share_se``: the slope's standard error."""

    mode: str
    games: int
    samples: int
    share: float
    share_se: float
    intercept: float

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "games": self.games,
            "samples": self.samples,
            "share": round(self.share, 4),
            "share_se": round(self.share_se, 4),
            "intercept": round(self.intercept, 4),
        }


def turn_starts(mode_id: str, game_index: int, seed: str) -> list[tuple[float, int]]:
    """(mean best reply of the mover, margin the mover gained from there to the end) at every
    turn start of one game of Hard against itself."""
    mode = MODES[mode_id]
    die = mode.rules.die
    if die is None:
        raise ValueError(f"{mode_id} has no die: the share is for dice games")
    game = Game.from_mode(mode, None, seed=f"{seed}:{game_index}")
    hard = Hard()
    starts: list[tuple[float, int, int]] = []
    while not game.over:
        pos = game.position
        me = pos.to_move
        if game.phase == "roll":
            starts.append((reply_total(pos, me) / die, me, margin(pos, me)))
        for action in take_turn(game, hard, seed=f"{seed}:{game_index}:{len(game.history)}"):
            game.apply(action)
    end = game.position
    return [(reply, margin(end, me) - before) for reply, me, before in starts]


def fit_share(mode_id: str, games: int, seed: str) -> ShareFit:
    """The share for ``mode_id`` from ``games`` games of Hard against itself."""
    points = [p for i in range(games) for p in turn_starts(mode_id, i, seed)]
    n = len(points)
    if n < 3:
        raise ValueError("too few turns to fit a line: play more games")
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx == 0:
        raise ValueError("the best reply never changed: play more games")
    share = sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx
    intercept = mean_y - share * mean_x
    residual = sum((y - intercept - share * x) ** 2 for x, y in points) / (n - 2)
    return ShareFit(mode_id, games, n, share, math.sqrt(residual / sxx), intercept)


def run(args: argparse.Namespace) -> int:
    try:
        fit = fit_share(args.mode, args.games, args.seed)
    except ValueError as exc:
        print(f"boxedin ai fit-share: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(fit.to_json()))
    return 0


def register(subparsers: Any) -> None:
    from .arena.series import positive_int

    parser = subparsers.add_parser(
        "fit-share",
        help="fit the share of the best reply Expert's lookahead credits, for a dice mode",
        description=(
            "Plays Hard against itself and fits, by least squares, what the mover gains to the end "
            "of the game against the mean best reply at each turn start; prints the slope (the "
            "share), its standard error and the intercept as JSON."
        ),
    )
    parser.add_argument("--mode", required=True, choices=[m.id for m in MODES.values() if m.rules.die])
    parser.add_argument("--games", type=positive_int, default=1500)
    parser.add_argument("--seed", default="fit")
    parser.set_defaults(handler=run)
