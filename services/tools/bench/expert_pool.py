"""`boxedin ai pool`: Expert's evaluations per turn (playouts times candidates) with its
playouts in-process (no worker: the baseline) and on a Celery pool of 1 and 2 worker processes,
on the same Classic positions in the same run, each with Expert's own budget.

It starts a Redis of its own and the Celery workers it measures."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from boxedin.ai.context import Position
from boxedin.ai.evaluation import CandidateStats, Replies
from boxedin.ai.turn import take_turn
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES

from .celery_workers import celery_workers, own_redis


class Counting:
    """An evaluator that adds up the evaluations another one made."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.evaluations = 0

    def __call__(
        self,
        pos: Position,
        candidates: list[tuple[int, ...]],
        seed: int,
        horizon: int | None,
        seconds: float,
        replies: Replies | None = None,
    ) -> list[CandidateStats]:
        totals: list[CandidateStats] = self.inner(pos, candidates, seed, horizon, seconds, replies)
        self.evaluations += sum(t.playouts for t in totals)
        return totals


def in_process(die: int | None) -> Any:
    from boxedin.ai.tasks import evaluate_for

    def evaluate(
        pos: Position, candidates: list[tuple[int, ...]], seed: int, horizon: int | None, seconds: float,
        replies: Replies | None = None,
    ) -> list[CandidateStats]:  # fmt: skip
        return evaluate_for(pos, [list(c) for c in candidates], seconds * 0.95, seed, die, horizon, 0, replies)

    return evaluate


def positions(count: int) -> list[Game]:
    """Classic games after the roll at the start of a turn, from Hard playing itself."""
    mode = MODES["classic"]
    found: list[Game] = []
    g = 0
    while len(found) < count:
        game = Game.from_mode(mode, None, seed=f"pool-bench:{g}")
        turn = 0
        while not game.over and len(found) < count:
            actions = take_turn(game, "hard", seed=f"pool-bench:{g}")
            game.apply(actions[0])  # the roll
            if turn % 4 == 2 and game.open_edge_count > 40:
                found.append(Game.from_mode(mode, None, seed=f"pool-bench:{g}"))
                for action in game.actions:
                    found[-1].apply(action)
            for action in actions[1:]:
                game.apply(action)
            turn += 1
        g += 1
    return found


def measure(games: list[Game], evaluator_for: Any, budget: float) -> dict[str, float]:
    per_turn, seconds = [], []
    for game in games:
        counting = Counting(evaluator_for(game))
        started = time.perf_counter()
        take_turn(game, "expert", budget=budget, evaluate=counting)
        seconds.append(time.perf_counter() - started)
        per_turn.append(counting.evaluations)
    return {
        "evaluations_per_turn": round(statistics.mean(per_turn)),
        "think_seconds_mean": round(statistics.mean(seconds), 3),
    }


def run(args: argparse.Namespace) -> int:
    if args.turns < 1 or args.budget <= 0:
        print("boxedin ai pool: --turns and --budget are above 0", file=sys.stderr)
        return 2
    with own_redis("pool-bench:"):
        from boxedin.ai.service.fanout import CeleryEvaluator
        from boxedin.ai.service.thinking import SHARES

        games = positions(args.turns)
        die = MODES["classic"].rules.die
        results: dict[str, Any] = {"turns": len(games), "budget_seconds": args.budget}
        results["workers_0"] = measure(games, lambda g: in_process(die), args.budget)
        rules = MODES["classic"].rules
        wire = [rules.boxes, list(rules.sizes), int(rules.overlap), rules.die or 0, rules.capturing_edge_free,
                rules.capture_owes_line]  # fmt: skip
        for workers in (1, 2):
            with celery_workers(workers):
                results[f"workers_{workers}"] = measure(
                    games, lambda g: CeleryEvaluator(wire, SHARES, 5.0), args.budget
                )
    print(json.dumps(results))
    return 0


def register(subparsers: Any) -> None:
    pool = subparsers.add_parser("pool", help="Expert's evaluations per turn with 0, 1 and 2 Celery workers")
    pool.add_argument("--turns", type=int, default=12, help="Classic positions to think on (default 12)")
    pool.add_argument("--budget", type=float, default=0.7, help="Expert's budget a turn (default 0.7 s)")
    pool.set_defaults(handler=run)
