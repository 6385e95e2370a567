"""`boxedin ai turn` and `boxedin match` end to end."""

from __future__ import annotations

import json

import pytest

from boxedin.ai.cli import ai_turn
from boxedin.ai.match import MatchSpec, margin_standard_error, play_game, summarise, summary_line, win_rate
from boxedin.cli import main
from boxedin.engine.replay import replay_transcript

CASES = [("quick", None), ("standard", None), ("strategic", "volatile")]
LEVELS = ["easy", "normal", "hard", "expert", "practice"]


@pytest.mark.parametrize(("mode", "overlap"), CASES)
@pytest.mark.parametrize("level", LEVELS)
def test_ai_turn_appended_to_the_transcript_gives_a_valid_transcript(mode, overlap, level):
    transcript = {"mode": mode, "actions": []}
    if overlap:
        transcript["overlap"] = overlap
    me_before = None
    for turn in range(3):
        status, output = ai_turn(json.dumps(transcript), level, seed=f"s{turn}", budget=0.02)
        assert status == 0, output
        assert output["actions"]
        transcript["actions"] += output["actions"]
        status, state = replay_transcript(transcript)
        assert status == 0, state
        assert state["to_move"] != me_before or state["over"]
        if state["over"]:
            break
        me_before = state["to_move"]


def test_ai_turn_finishes_a_turn_begun_in_the_transcript():
    transcript = {"mode": "classic", "actions": [{"roll": 5}, {"draw": ["h", 0, 0]}]}
    status, output = ai_turn(transcript, "hard", seed="x")
    assert status == 0
    assert "roll" not in output["actions"][0]
    transcript["actions"] += output["actions"]
    assert replay_transcript(transcript)[1]["to_move"] == 2


def test_a_due_roll_comes_from_the_seed():
    outputs = {json.dumps(ai_turn({"mode": "classic", "actions": []}, "easy", seed="d")[1])}
    outputs.add(json.dumps(ai_turn({"mode": "classic", "actions": []}, "easy", seed="d")[1]))
    assert len(outputs) == 1


@pytest.mark.parametrize(
    ("data", "code", "index"),
    [
        ("not json", "malformed", None),
        ({"mode": "nope", "actions": []}, "malformed", None),
        ({"mode": "classic", "overlap": "consume", "actions": []}, "overlap_not_allowed", None),
        ({"mode": "classic", "actions": [{"draw": ["h", 0, 0]}]}, "roll_due", 0),
        ({"mode": "mini", "actions": [{"roll": 9}]}, "bad_roll", 0),
    ],
)
def test_bad_input_gets_the_replay_contracts_errors(data, code, index):
    status, output = ai_turn(data if isinstance(data, str) else json.dumps(data), "easy")
    assert status == 1
    assert output["error"]["code"] == code
    assert output["error"]["index"] == index
    assert output["error"]["message"]


def test_the_command_line(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"mode": "mini", "actions": []}))
    assert main(["ai", "turn", "--level", "normal", "--seed", "7", str(path)]) == 0
    assert "actions" in json.loads(capsys.readouterr().out)
    path.write_text("[1]")
    assert main(["ai", "turn", "--level", "normal", str(path)]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "malformed"


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


def test_ai_bench_prints_the_table_against_the_general_search(capsys):
    assert main(["ai", "bench", "--games", "1", "--baseline-up-to", "11"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()[2:]]
    assert rows, out
    for row in rows:
        open_lines = int(row[0])
        assert 10 <= open_lines <= 20
        assert float(row[2]) > 0
        if open_lines <= 11:
            assert float(row[3]) > 0 and row[4].endswith("x")
        else:
            assert row[3] == "-"


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
