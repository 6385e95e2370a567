"""Choosing the computer's turn, in a worker process: the players are CPU-bound, and the
service's event loop keeps pacing other games' moves meanwhile."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from boxedin.engine import codec
from boxedin.engine.actions import Action

from ..turn import take_turn
from .fanout import CeleryEvaluator

# Celery tasks an Expert turn is spread over (one per worker process).
SHARES = 2


@dataclass
class Thought:
    actions: list[dict[str, Any]]
    seconds: float
    tasks_done: int = 0
    fallbacks: int = 0


def choose_turn(record: bytes, level: str, budget: float, use_pool: bool, expiry: float) -> Thought:
    """The rest of the computer's turn in a serialised game (a roll already made), as
    transcript actions; Expert's evaluation goes to the worker pool when ``use_pool``."""
    game = codec.decode(record)
    started = time.perf_counter()
    evaluator = None
    if level == "expert" and use_pool:
        rules = game.rules
        evaluator = CeleryEvaluator(
            [rules.boxes, list(rules.sizes), int(rules.overlap), rules.die or 0, rules.capturing_edge_free,
             rules.capture_owes_line],
            SHARES,
            expiry,
        )  # fmt: skip
    actions: list[Action] = take_turn(game, level, budget=budget, evaluate=evaluator)
    thought = Thought([a.to_json() for a in actions], time.perf_counter() - started)
    if evaluator is not None:
        thought.tasks_done = evaluator.report.tasks_done
        thought.fallbacks = evaluator.report.fallbacks
    return thought
