"""`boxedin replay` to the letter of replay-format.md: the output, every error code, the order of
the checks, and the command line itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from boxedin.engine.replay import replay_transcript

START = {"mode": "classic", "actions": []}


def error_of(transcript: Any) -> tuple[int | None, str]:
    status, output = replay_transcript(transcript)
    assert status == 1, output
    error = output["error"]
    assert isinstance(error["message"], str) and len(error["message"]) > 10
    return error["index"], error["code"]


def test_output_of_a_fresh_game() -> None:
    status, output = replay_transcript(START)
    assert status == 0
    assert output == {
        "scores": [0, 0], "over": False, "winner": None, "to_move": 1, "phase": "roll",
        "edges_left": None, "round": 1, "squares": [], "dead_edges": [], "open_edges": 112,
    }  # fmt: skip


def test_output_after_a_roll_and_an_edge() -> None:
    _, output = replay_transcript({"mode": "big_squares", "overlap": "consume", "first": 2,
                                   "actions": [{"roll": 6}, {"draw": ["h", 0, 0]}]})  # fmt: skip
    assert (output["to_move"], output["phase"], output["edges_left"], output["open_edges"]) == (
        2,
        "draw",
        5,
        179,
    )


@pytest.mark.parametrize(
    ("transcript", "expected"),
    [
        ("not json", (None, "malformed")),
        (b"\xff\xfe", (None, "malformed")),
        ('{"mode": "classic", "actions": [], "x": NaN}', (None, "malformed")),
        ("[1, 2]", (None, "malformed")),
        ({"actions": []}, (None, "malformed")),
        ({"mode": "tiny", "actions": []}, (None, "malformed")),
        ({"mode": 3, "actions": []}, (None, "malformed")),
        ({"mode": "strategic", "overlap": "sideways", "actions": []}, (None, "malformed")),
        ({"mode": "strategic", "overlap": None, "actions": []}, (None, "malformed")),
        ({"mode": "classic", "first": 3, "actions": []}, (None, "malformed")),
        ({"mode": "classic", "first": True, "actions": []}, (None, "malformed")),
        ({"mode": "classic"}, (None, "malformed")),
        ({"mode": "classic", "actions": {"roll": 3}}, (None, "malformed")),
        ({"mode": "classic", "overlap": "consume", "actions": []}, (None, "overlap_not_allowed")),
        # Every malformed header check comes before overlap_not_allowed.
        ({"mode": "classic", "overlap": "consume", "first": 0, "actions": []}, (None, "malformed")),
    ],
)
def test_header_errors(transcript: Any, expected: tuple[int | None, str]) -> None:
    assert error_of(transcript) == expected


@pytest.mark.parametrize(
    "action",
    [
        "roll", ["roll", 3], {}, {"roll": 3, "draw": ["h", 0, 0]}, {"jump": True}, {"roll": "3"},
        {"roll": 2.5}, {"roll": True}, {"roll": None}, {"draw": ["d", 0, 0]}, {"draw": ["h", 0]},
        {"draw": ["h", "0", 0]}, {"draw": ["h", 0, True]}, {"draw": "h0,0"}, {"end_turn": 1},
        {"undo": False}, {"timeout": "yes"},
    ],
)  # fmt: skip
def test_malformed_actions_name_their_index(action: Any) -> None:
    assert error_of({"mode": "classic", "actions": [{"roll": 3}, action]}) == (1, "malformed")


def test_malformed_comes_before_game_over() -> None:
    finished = [{"draw": e} for e in _all_edges(2)]
    transcript = {"mode": "practice_2x2", "actions": [*finished, {"roll": "x"}]}
    assert error_of(transcript) == (len(finished), "malformed")
    assert error_of({**transcript, "actions": [*finished, {"roll": 3}]}) == (len(finished), "game_over")


@pytest.mark.parametrize(
    ("mode", "actions", "expected"),
    [
        ("standard", [{"roll": 3}], (0, "roll_not_due")),
        ("classic", [{"roll": 3}, {"roll": 3}], (1, "roll_not_due")),
        # roll_not_due is checked before bad_roll.
        ("classic", [{"roll": 3}, {"roll": 9}], (1, "roll_not_due")),
        ("classic", [{"roll": 0}], (0, "bad_roll")),
        ("classic", [{"roll": 7}], (0, "bad_roll")),
        ("mini", [{"roll": 5}], (0, "bad_roll")),
        ("expert", [{"roll": 12}, {"draw": ["h", 0, 0]}, {"end_turn": True}, {"roll": 13}], (3, "bad_roll")),
        ("classic", [{"draw": ["h", 0, 0]}], (0, "roll_due")),
        # roll_due is checked before illegal_edge.
        ("classic", [{"draw": ["h", 99, 0]}], (0, "roll_due")),
        ("classic", [{"roll": 2}, {"draw": ["h", 8, 0]}], (1, "illegal_edge")),
        ("classic", [{"roll": 2}, {"draw": ["h", 0, 7]}], (1, "illegal_edge")),
        ("classic", [{"roll": 2}, {"draw": ["v", 7, 0]}], (1, "illegal_edge")),
        ("classic", [{"roll": 2}, {"draw": ["v", -1, 0]}], (1, "illegal_edge")),
        ("classic", [{"roll": 3}, {"draw": ["h", 0, 0]}, {"draw": ["h", 0, 0]}], (2, "edge_taken")),
        ("standard", [{"draw": ["v", 0, 0]}, {"draw": ["v", 0, 0]}], (1, "edge_taken")),
        ("standard", [{"end_turn": True}], (0, "no_end_turn")),
        ("classic", [{"end_turn": True}], (0, "nothing_drawn")),
        ("classic", [{"roll": 4}, {"end_turn": True}], (1, "nothing_drawn")),
        (
            "classic",
            [{"roll": 4}, {"draw": ["h", 0, 0]}, {"undo": True}, {"end_turn": True}],
            (3, "nothing_drawn"),
        ),
        ("classic", [{"undo": True}], (0, "nothing_to_undo")),
        ("classic", [{"roll": 4}, {"undo": True}], (1, "nothing_to_undo")),
        ("standard", [{"undo": True}], (0, "nothing_to_undo")),
        # The edge that used up the roll ended the turn: there is nothing of the new turn to undo.
        ("classic", [{"roll": 1}, {"draw": ["h", 0, 0]}, {"undo": True}], (2, "nothing_to_undo")),
        ("standard", [{"draw": ["h", 0, 0]}, {"undo": True}], (1, "nothing_to_undo")),
    ],
)
def test_action_errors(mode: str, actions: list[Any], expected: tuple[int, str]) -> None:
    assert error_of({"mode": mode, "actions": actions}) == expected


def test_an_error_after_legal_actions_reports_nothing_else() -> None:
    status, output = replay_transcript(
        {"mode": "classic", "actions": [{"roll": 2}, {"draw": ["h", 0, 0]}, {"roll": 1}]}
    )
    assert status == 1 and set(output) == {"error"}


def _all_edges(n: int) -> list[list[Any]]:
    return [["h", r, c] for r in range(n + 1) for c in range(n)] + [
        ["v", r, c] for r in range(n) for c in range(n + 1)
    ]


def _run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "boxedin.cli", "replay", *args],
        input=stdin, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_command_reads_a_file_and_prints_one_json_object(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"mode": "mini", "actions": [{"roll": 2}, {"draw": ["h", 0, 0]}]}))
    result = _run_cli(str(path))
    assert result.returncode == 0
    assert json.loads(result.stdout)["edges_left"] == 1
    assert result.stdout.count("\n") == 1


def test_command_reads_standard_input_and_reports_errors_with_status_1() -> None:
    result = _run_cli("-", stdin='{"mode": "mini", "actions": [{"roll": 9}]}')
    assert result.returncode == 1
    assert json.loads(result.stdout)["error"]["code"] == "bad_roll"


def test_command_says_when_the_file_cannot_be_read(tmp_path: Path) -> None:
    result = _run_cli(str(tmp_path / "missing.json"))
    assert result.returncode == 2
    assert "cannot read" in result.stderr
