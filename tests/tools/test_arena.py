"""`boxedin match`, the arena, end to end: seats alternate, pairs of games meet the same dice, and
the summary's standard errors and intervals count pairs."""

from __future__ import annotations

import json

import pytest

from boxedin.cli import main
from boxedin.tools.arena.series import MatchSpec, margin_standard_error, play_game, summarise, summary_line, win_rate


def test_a_small_match_runs_end_to_end(capsys):
    assert main(
        ["match", "--a", "hard", "--b", "easy", "--mode", "mini", "--games", "4", "--seed", "m",
         "--budget", "0.02"]
    ) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 4
    assert summary["wins"] + summary["losses"] + summary["ties"] == 4
    assert set(summary["think_time"]) == {"a", "b"}
    assert summary["think_time"]["a"]["p95"] >= summary["think_time"]["a"]["mean"] * 0


def test_a_match_with_expert_and_jobs_runs(capsys):
    assert main(
        ["match", "--a", "expert", "--b", "practice", "--mode", "practice_2x2", "--games", "2",
         "--seed", "m", "--jobs", "2", "--budget", "0.02"]
    ) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2


def test_seats_alternate_and_the_summary_counts_from_a():
    spec = MatchSpec("normal", "easy", "mini", None, "s", 0.02)
    results = [play_game(spec, i) for i in range(2)]
    summary = summarise(spec, results)
    assert summary["games"] == 2
    assert summary["mean_margin"] == sum(r.margin_a for r in results) / 2
    assert summary["margin_se"] is None  # one pair of games: no spread to measure


def test_the_margins_standard_error_counts_pairs_of_games():
    # Pairs share their dice: (4, -2) and (0, 2) have means 1 and 1, so no spread at all.
    assert margin_standard_error([4, -2, 0, 2]) == 0.0
    # Pair means 3 and -1: standard deviation 2*sqrt(2), over two pairs: 2.
    assert margin_standard_error([3, 3, -1, -1]) == pytest.approx(2.0)
    # An odd game out is a pair of its own.
    assert margin_standard_error([1, 1, 5]) == pytest.approx(2.0)


def test_the_win_rate_has_a_confidence_interval_over_pairs_of_games():
    # A tie counts half. Pairs (win, loss) and (win, tie): pair means 0.5 and 0.75.
    rate, se, ci = win_rate([3, -1, 2, 0])
    assert rate == pytest.approx(0.625)
    assert se == pytest.approx(0.125)  # sd of (0.5, 0.75) is 0.1768, over two pairs
    assert ci == pytest.approx((0.625 - 1.959964 * 0.125, 0.625 + 1.959964 * 0.125))
    assert win_rate([1, 1, 1, 1])[2] == (1.0, 1.0)  # no spread; clipped to 0..1
    assert win_rate([5, -5])[1:] == (None, None)  # one pair: no interval


def test_the_summary_puts_the_interval_beside_the_margin():
    spec = MatchSpec("greedy", "easy", "mini", None, "s", 0.02)
    summary = summarise(spec, [play_game(spec, i) for i in range(4)])
    assert 0 <= summary["win_rate"] <= 1 and summary["think_time"]["a"]["p50"] >= 0
    line = summary_line(summary)
    assert line.startswith(f"greedy won {100 * summary['win_rate']:.1f}%") and "margin" in line
