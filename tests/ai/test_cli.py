"""`boxedin ai turn` end to end (`boxedin match`, the arena: tests/tools/test_arena.py)."""

from __future__ import annotations

import json

import pytest

from boxedin.ai.cli import ai_turn
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
