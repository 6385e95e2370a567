"""`boxedin match`: two levels play N games with seats alternated; a progress bar on standard
error and a JSON summary on standard output (from side A's point of view: wins, losses, ties,
the win rate with its standard error and 95% confidence interval, mean margin and its standard
error; think time per turn, mean, p50 and p95, for each side), and one line on standard error
that puts the win rate's interval beside the margin.

Games 2k and 2k+1 use the same dice seed with the seats swapped, so luck evens out in pairs;
the standard errors (``margin_se``, ``win_rate_se``) count each pair as one sample. The win rate
counts a tie as half a win.

Levels: the players' levels and the reference players kept for matches (``greedy``, and
``perfect``: exact play on boards of 24 lines). The board: a mode (``--mode``), or a dice board
of its own under the independent rule (``--board 3:6``: Mini's board with a d6), where
``perfect`` measures what the dice allow on boards that are not modes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from boxedin.ai.cli import positive_seconds
from boxedin.ai.turn import take_turn
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap, RulesError, RuleSet

from .perfect import perfect_refusal
from .players import ARENA_LEVELS, make_player


@dataclass(frozen=True, slots=True)
class MatchSpec:
    a: str
    b: str
    mode: str  # a mode's id, or the board's text when ``board`` is given
    overlap: str | None
    seed: str
    budget: float
    board: RuleSet | None = None  # a dice board of its own (``--board``), in place of the mode

    def new_game(self, seed: str) -> Game:
        if self.board is not None:
            return Game(self.board, seed=seed)
        overlap = Overlap.from_id(self.overlap) if self.overlap else None
        return Game.from_mode(MODES[self.mode], overlap, seed=seed)


@dataclass
class GameResult:
    index: int
    margin_a: int  # A's score minus B's
    times_a: list[float] = field(default_factory=list)
    times_b: list[float] = field(default_factory=list)


def play_game(spec: MatchSpec, index: int) -> GameResult:
    """Game ``index`` of a match: A moves first in even games."""
    a_seat = 1 if index % 2 == 0 else 2
    dice_seed = f"{spec.seed}:{index // 2}"
    game = spec.new_game(dice_seed)
    players = {a_seat: make_player(spec.a), 3 - a_seat: make_player(spec.b)}
    result = GameResult(index, 0)
    while not game.over:
        seat = game.to_move
        assert seat is not None
        started = time.perf_counter()
        actions = take_turn(game, players[seat], seed=f"{dice_seed}:{seat}", budget=spec.budget)
        elapsed = time.perf_counter() - started
        (result.times_a if seat == a_seat else result.times_b).append(elapsed)
        for action in actions:
            game.apply(action)
    scores = game.scores
    result.margin_a = scores[a_seat - 1] - scores[2 - a_seat]
    return result


def _play(args: tuple[MatchSpec, int]) -> GameResult:
    return play_game(*args)


def run_games(spec: MatchSpec, games: int, jobs: int) -> Iterator[GameResult]:
    work = [(spec, i) for i in range(games)]
    if jobs <= 1:
        yield from map(_play, work)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(_play, work)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def margin_standard_error(margins: list[int]) -> float | None:
    """The standard error of the mean margin. Games 2k and 2k+1 share their dice, so they are
    not independent: the pair (its mean margin) is the unit; None below two pairs."""
    return paired_standard_error([float(m) for m in margins])


def paired_standard_error(values: list[float]) -> float | None:
    """The standard error of the mean of per-game ``values``, the pair of games 2k and 2k+1
    (their mean) being one sample; None below two pairs."""
    pairs = [sum(values[i : i + 2]) / len(values[i : i + 2]) for i in range(0, len(values), 2)]
    if len(pairs) < 2:
        return None
    mean = sum(pairs) / len(pairs)
    variance = sum((p - mean) ** 2 for p in pairs) / (len(pairs) - 1)
    return math.sqrt(variance / len(pairs))


Z95 = 1.959964  # the normal distribution's 97.5% point


def win_rate(margins: list[int]) -> tuple[float, float | None, tuple[float, float] | None]:
    """A's win rate (a tie counts half), its standard error over pairs of games and the 95%
    confidence interval (normal approximation, clipped to 0..1); None without two pairs."""
    if not margins:
        return 0.0, None, None
    points = [1.0 if m > 0 else 0.5 if m == 0 else 0.0 for m in margins]
    rate = sum(points) / len(points)
    se = paired_standard_error(points)
    if se is None:
        return rate, None, None
    return rate, se, (max(0.0, rate - Z95 * se), min(1.0, rate + Z95 * se))


def summary_line(summary: dict[str, Any]) -> str:
    """The figures in one line: ``A won 54.3% (95% CI 49.5-59.0%) of 400, margin +0.81 ± 0.11``."""
    rate = 100 * summary["win_rate"]
    ci = summary["win_rate_ci95"]
    interval = f" (95% CI {100 * ci[0]:.1f}-{100 * ci[1]:.1f}%)" if ci else ""
    se = summary["margin_se"]
    spread = f" ± {se:.2f}" if se is not None else ""
    think = summary["think_time"]
    return (
        f"{summary['a']} won {rate:.1f}%{interval} of {summary['games']} against {summary['b']}, "
        f"margin {summary['mean_margin']:+.2f}{spread} a game; think p50/p95 "
        f"{think['a']['p50']:.3f}/{think['a']['p95']:.3f} s ({summary['a']}), "
        f"{think['b']['p50']:.3f}/{think['b']['p95']:.3f} s ({summary['b']})"
    )


def summarise(spec: MatchSpec, results: list[GameResult]) -> dict[str, Any]:
    margins = [r.margin_a for r in results]
    rate, rate_se, rate_ci = win_rate(margins)
    times = {
        "a": [t for r in results for t in r.times_a],
        "b": [t for r in results for t in r.times_b],
    }
    return {
        "a": spec.a,
        "b": spec.b,
        "mode": spec.mode,
        "overlap": spec.overlap,
        "games": len(results),
        "wins": sum(m > 0 for m in margins),
        "losses": sum(m < 0 for m in margins),
        "ties": sum(m == 0 for m in margins),
        "win_rate": rate,
        "win_rate_se": rate_se,
        "win_rate_ci95": list(rate_ci) if rate_ci else None,
        "mean_margin": sum(margins) / len(margins) if margins else 0.0,
        "margin_se": margin_standard_error(margins),
        "think_time": {
            side: {
                "turns": len(ts),
                "mean": sum(ts) / len(ts) if ts else 0.0,
                "p50": percentile(ts, 50),
                "p95": percentile(ts, 95),
                "max": max(ts, default=0.0),
            }
            for side, ts in times.items()
        },
    }


def progress(done: int, total: int, wins: int, started: float) -> None:
    width = 30
    filled = width * done // max(total, 1)
    elapsed = time.perf_counter() - started
    sys.stderr.write(
        f"\rmatch [{'#' * filled}{'.' * (width - filled)}] {done}/{total} games, A won {wins}, {elapsed:.0f}s"
    )
    sys.stderr.flush()


def dice_board(text: str) -> RuleSet:
    """``--board``: ``BOXES:DIE`` (1x1 boxes) or ``BOXES:DIE:SIZES`` (sizes such as ``1,2``,
    under the independent rule), e.g. ``3:6``: Mini's board with Classic's die."""
    parts = text.split(":")
    try:
        if len(parts) not in (2, 3):
            raise ValueError
        boxes, die = int(parts[0]), int(parts[1])
        sizes = tuple(int(k) for k in parts[2].split(",")) if len(parts) == 3 else (1,)
    except ValueError:
        example = "3:6, 3:8:1,2"
        raise argparse.ArgumentTypeError(f"a board is BOXES:DIE or BOXES:DIE:SIZES ({example}), not {text!r}") from None
    try:
        return RuleSet(boxes, die, sizes, Overlap.INDEPENDENT)
    except RulesError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def board_name(rules: RuleSet) -> str:
    sizes = "" if rules.sizes == (1,) else ":" + ",".join(map(str, rules.sizes))
    return f"board {rules.boxes}:{rules.die}{sizes}"


def run(args: argparse.Namespace) -> int:
    board: RuleSet | None = args.board
    try:
        if board is not None:
            if args.overlap:
                raise RulesError("--board plays the independent rule: it takes no --overlap")
            rules, mode_name = board, board_name(board)
        else:
            mode = MODES[args.mode]
            rules = mode.rules_with(Overlap.from_id(args.overlap)) if args.overlap else mode.rules
            mode_name = args.mode
    except (KeyError, RulesError) as exc:
        print(f"boxedin match: {exc}", file=sys.stderr)
        return 2
    refusal = perfect_refusal(rules) if "perfect" in (args.a, args.b) else None
    if refusal is not None:
        print(f"boxedin match: {refusal}", file=sys.stderr)
        return 2
    spec = MatchSpec(args.a, args.b, mode_name, args.overlap, args.seed, args.budget, board)
    results: list[GameResult] = []
    started = time.perf_counter()
    progress(0, args.games, 0, started)
    for result in run_games(spec, args.games, args.jobs):
        results.append(result)
        progress(len(results), args.games, sum(r.margin_a > 0 for r in results), started)
    sys.stderr.write("\n")
    summary = summarise(spec, results)
    sys.stderr.write(summary_line(summary) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text}")
    return value


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "match",
        help="play AI levels against each other and summarise the results",
        description="Plays N games between two AI levels, seats alternated; prints a JSON summary.",
    )
    parser.add_argument("--a", required=True, choices=list(ARENA_LEVELS), help="side A's level")
    parser.add_argument("--b", required=True, choices=list(ARENA_LEVELS), help="side B's level")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--mode", choices=list(MODES))
    where.add_argument(
        "--board",
        type=dice_board,
        help="a dice board of its own instead of a mode: BOXES:DIE[:SIZES], e.g. 3:6 or 3:8:1,2 (independent rule)",
    )
    parser.add_argument("--overlap", choices=[rule.id for rule in Overlap])
    parser.add_argument("--games", type=positive_int, required=True)
    parser.add_argument("--seed", required=True)
    parser.add_argument("--jobs", type=positive_int, default=1)
    parser.add_argument("--budget", type=positive_seconds, default=0.7, help="Expert's seconds a turn")
    parser.set_defaults(handler=run)
