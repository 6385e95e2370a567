"""`boxedin ai bench`: how long exact dice endgames take, the dice table against the general
search (``DiceSearch``, the baseline) on the same positions in the same run.

Positions come from Hard playing itself in Classic (seeded, so every run measures the same ones),
taken at the start of a turn after the roll, by how many lines are open.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from boxedin.ai.context import Position
from boxedin.ai.turn import take_turn
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES


def classic_positions(open_lines: range, games: int) -> dict[int, list[Position]]:
    """Positions by open lines, from ``games`` seeded games of Hard against itself."""
    mode = MODES["classic"]
    found: dict[int, list[Position]] = {n: [] for n in open_lines}
    for g in range(games):
        game = Game.from_mode(mode, None, seed=f"bench:{g}")
        while not game.over:
            actions = take_turn(game, "hard", seed=f"bench:{g}")
            game.apply(actions[0])  # the roll
            if game.position.open_edges in found:
                found[game.position.open_edges].append(game.position.copy())
            for action in actions[1:]:
                game.apply(action)
    return found


def _seconds(solve: Any) -> float:
    started = time.perf_counter()
    solve()
    return time.perf_counter() - started


def bench_exact(games: int, baseline_up_to: int) -> list[dict[str, Any]]:
    # Imported here: ``boxedin ai turn`` must work without the compiled solver.
    from boxedin.ai._dice_search import DiceSearch
    from boxedin.ai.solver import dice_table

    rules = MODES["classic"].rules
    rows = []
    for n, positions in classic_positions(range(10, 21), games).items():
        if not positions:
            continue
        table = [_seconds(lambda p=p: dice_table(p, 6, rules)[0].solve()) for p in positions]
        row: dict[str, Any] = {"open_lines": n, "positions": len(positions), "table_s": statistics.median(table)}
        if n <= baseline_up_to:
            search = [_seconds(lambda p=p: DiceSearch(p.copy(), 6, True).best_turn(0.0)) for p in positions]
            row["search_s"] = statistics.median(search)
            row["speedup"] = row["search_s"] / row["table_s"]
        rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    print("exact Classic endgames, median seconds per position (Hard's own games, after the roll)")
    print(f"  {'open lines':>10} {'positions':>9} {'dice table':>11} {'DiceSearch':>11} {'speedup':>8}")
    for row in bench_exact(args.games, args.baseline_up_to):
        search = f"{row['search_s']:11.4f}" if "search_s" in row else f"{'-':>11}"
        speedup = f"{row['speedup']:7.0f}x" if "speedup" in row else f"{'-':>8}"
        print(f"  {row['open_lines']:>10} {row['positions']:>9} {row['table_s']:11.4f} {search} {speedup}")
    return 0


def register(commands: Any) -> None:
    bench = commands.add_parser(
        "bench",
        help="time exact dice endgames: the dice table against the general search",
        description="Times exact Classic endgames from 10 to 20 open lines: the dice table, and "
        "the general search (DiceSearch) as the baseline where it is fast enough.",
    )
    bench.add_argument("--games", type=int, default=4, help="games of Hard against itself to take positions from")
    bench.add_argument(
        "--baseline-up-to", type=int, default=14, help="open lines up to which the baseline runs (default 14)"
    )
    bench.set_defaults(handler=run)
