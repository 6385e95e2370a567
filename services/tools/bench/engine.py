"""`boxedin bench engine`: random playouts per second, compiled and plain-Python engine, beside
OpenSpiel's dots_and_boxes driven from Python when the package `open-spiel` is installed."""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

from boxedin.engine.backend import Backend, BackendUnavailable, load
from boxedin.engine.board import geometry
from boxedin.engine.rules import MODES, Overlap, RuleSet


def _rate(playout: Callable[[int], object], seconds: float) -> float:
    """Playouts per second over at least ``seconds`` (after one warm-up playout)."""
    playout(0)
    count = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for _ in range(10):
            count += 1
            playout(count)
        elapsed = time.perf_counter() - start
    return count / elapsed


def engine_playout(rules: RuleSet, backend: Backend) -> Callable[[int], object]:
    module = load(backend)
    start = module.Position(
        geometry(rules.boxes, rules.sizes),
        int(rules.overlap),
        rules.die or 0,
        rules.capturing_edge_free,
        rules.capture_owes_line,
        0,
    )

    def playout(seed: int) -> object:
        position = start.copy()
        position.playout(seed)
        return position.score(0) - position.score(1)

    return playout


def search_primitives(backend: Backend, seconds: float) -> dict[str, float]:
    """Copies and draw-and-take-back pairs per second in a half-played expert (consume) game:
    what a search pays per node."""
    rules = MODES["expert"].rules
    module = load(backend)
    position = module.Position(geometry(rules.boxes, rules.sizes), int(rules.overlap), rules.die or 0, False, False, 0)
    half = position.copy()
    half.playout(7, 20)
    edges = half.open_edge_list()

    def copy(_: int) -> object:
        return half.copy()

    def draw_and_undo(i: int) -> object:
        half.draw(edges[i % len(edges)])
        half.undo()
        return None

    return {"copies": _rate(copy, seconds), "draw_undo_pairs": _rate(draw_and_undo, seconds)}


def openspiel_playout(boxes: int) -> Callable[[int], object] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("dots_and_boxes", {"num_rows": boxes, "num_cols": boxes})
    rng = random.Random(0)

    def playout(_seed: int) -> object:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        return state.returns()

    return playout


def bench_engine(seconds: float) -> dict[str, Any]:
    standard = MODES["standard"].rules
    expert = MODES["expert"].rules.with_overlap(Overlap.CONSUME)
    results: dict[str, Any] = {"seconds_per_figure": seconds}
    for backend in ("compiled", "python"):
        try:
            results[f"{backend}_5x5_standard"] = _rate(engine_playout(standard, backend), seconds)
            results[f"{backend}_expert_consume"] = _rate(engine_playout(expert, backend), seconds)
            results[f"{backend}_search"] = search_primitives(backend, seconds / 2)
        except BackendUnavailable as exc:
            results[f"{backend}_5x5_standard"] = results[f"{backend}_expert_consume"] = None
            results[f"{backend}_search"] = None
            results[f"{backend}_note"] = str(exc)
    spiel = openspiel_playout(5)
    if spiel is None:
        results["openspiel_5x5"] = None
        results["openspiel_note"] = "open-spiel is not installed (pip install 'boxedin[bench]')"
    else:
        results["openspiel_5x5"] = _rate(spiel, seconds)
        if results["compiled_5x5_standard"]:
            results["compiled_vs_openspiel_5x5"] = results["compiled_5x5_standard"] / results["openspiel_5x5"]
    return results


def _print_table(results: dict[str, Any]) -> None:
    def fmt(value: float | None) -> str:
        return "not measured" if value is None else f"{value:12,.0f} playouts/s"

    print("random playouts from the start to the end of the game")
    print(f"  5x5 standard, compiled engine      {fmt(results['compiled_5x5_standard'])}")
    print(f"  5x5 standard, plain-Python engine  {fmt(results['python_5x5_standard'])}")
    print(f"  5x5 standard, OpenSpiel (Python)   {fmt(results['openspiel_5x5'])}")
    print(f"  expert (consume), compiled engine  {fmt(results['compiled_expert_consume'])}")
    print(f"  expert (consume), plain Python     {fmt(results['python_expert_consume'])}")
    for backend in ("compiled", "python"):
        search = results[f"{backend}_search"]
        if search:
            print(
                f"  {backend} search primitives (expert, 20 turns in): {search['copies']:,.0f} copies/s, "
                f"{search['draw_undo_pairs']:,.0f} draw+undo/s"
            )
    if "compiled_vs_openspiel_5x5" in results:
        print(f"  compiled / OpenSpiel on 5x5: {results['compiled_vs_openspiel_5x5']:.1f}x (the bar: 5x)")
    for key in ("compiled_note", "python_note", "openspiel_note"):
        if key in results:
            print(f"  note: {results[key]}")


def run(args: argparse.Namespace) -> int:
    results = bench_engine(args.seconds)
    if args.json:
        print(json.dumps(results))
    else:
        _print_table(results)
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help="measure the engine's speed")
    targets = parser.add_subparsers(dest="target", required=True, metavar="TARGET")
    engine = targets.add_parser("engine", help="random playouts per second against OpenSpiel")
    engine.add_argument("--seconds", type=float, default=2.0, help="time per figure (default 2)")
    engine.add_argument("--json", action="store_true", help="print the figures as JSON")
    engine.set_defaults(handler=run)
    from .actions import add_to
    from .grpc_calls import add_to as add_grpc
    from .replicas import add_to as add_replicas
    from .restarts import add_to as add_restarts
    from .review import add_to as add_review

    add_to(targets)
    add_grpc(targets)
    add_replicas(targets)
    add_restarts(targets)
    add_review(targets)
