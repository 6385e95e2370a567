"""Random whole games in every mode and overlap rule, checking what must hold in any game:
undo restores the exact state, the serialised game round-trips, replay is deterministic, and
the compiled and plain-Python engines agree move by move."""

from __future__ import annotations

import random
from typing import Any

import pytest

from boxedin.engine import codec
from boxedin.engine.actions import Draw, action_from_json
from boxedin.engine.backend import load
from boxedin.engine.game import Game
from boxedin.engine.replay import play_transcript, replay_transcript, report
from boxedin.engine.rules import MODES, Overlap

from transcripts import every_mode_and_rule, random_transcript


def _game_for(transcript: dict[str, Any], backend: str = "compiled") -> Game:
    overlap = Overlap.from_id(transcript["overlap"]) if "overlap" in transcript else None
    return Game.from_mode(MODES[transcript["mode"]], overlap, first=transcript["first"], backend=backend)


@pytest.mark.parametrize(("mode", "overlap"), every_mode_and_rule())
def test_undo_restores_the_exact_state(mode: str, overlap: str | None) -> None:
    rng = random.Random(f"undo/{mode}/{overlap}")
    transcript = random_transcript(mode, overlap, rng)
    game = _game_for(transcript)
    undone = 0
    for raw in transcript["actions"]:
        action = action_from_json(raw)
        if isinstance(action, Draw) and game.undo_allowed:
            before_state = game.position.state_array()
            before_report = report(game)
            before_history = list(game.history)
            move = game.draw(action.edge)
            if game.can_undo:
                assert game.undo() == move
                assert game.position.state_array() == before_state
                assert report(game) == before_report
                assert game.history == before_history
                undone += 1
                game.draw(action.edge)
            continue
        game.apply(action)
    assert undone > 0
    assert report(game) == replay_transcript(transcript)[1]


@pytest.mark.parametrize(("mode", "overlap"), every_mode_and_rule())
def test_serialised_game_round_trips(mode: str, overlap: str | None) -> None:
    rng = random.Random(f"codec/{mode}/{overlap}")
    transcript = random_transcript(mode, overlap, rng)
    cut = rng.randint(0, len(transcript["actions"]))
    for actions in (transcript["actions"], transcript["actions"][:cut]):
        game = play_transcript({**transcript, "actions": actions})
        data = codec.encode(game)
        restored = codec.decode(data)
        assert codec.encode(restored) == data
        assert restored.position.state_array() == game.position.state_array()
        assert report(restored) == report(game)
        assert restored.history == game.history
        assert restored.can_undo == game.can_undo
        assert codec.from_text(codec.to_text(game)).position.state_array() == game.position.state_array()


@pytest.mark.parametrize(("mode", "overlap"), every_mode_and_rule())
def test_a_game_behind_catches_up_with_the_actions_it_lacks(mode: str, overlap: str | None) -> None:
    """An engine replica's copy of a game that another replica moved on is brought up to date by
    the stored game's later actions alone, and ends exactly as the stored game decodes."""
    rng = random.Random(f"catch up/{mode}/{overlap}")
    transcript = random_transcript(mode, overlap, rng)
    actions = transcript["actions"]
    cut = rng.randint(0, len(actions))
    later = play_transcript(transcript)
    behind = play_transcript({**transcript, "actions": actions[:cut]})
    codec.encode(behind)  # as a replica's copy: encoded once already
    assert codec.catch_up(behind, codec.encode(later))
    assert codec.encode(behind) == codec.encode(later)
    assert behind.position.state_array() == later.position.state_array()
    assert behind.history == later.history and report(behind) == report(later)
    # Another game (or the same one with a different past) is not a continuation of it.
    other = play_transcript({**transcript, "actions": actions[: max(0, cut - 1)]})
    if cut >= 2 and actions[cut - 1] != actions[cut - 2]:
        assert not codec.catch_up(later, codec.encode(other))


@pytest.mark.parametrize(("mode", "overlap"), every_mode_and_rule())
def test_replay_is_deterministic(mode: str, overlap: str | None) -> None:
    transcript = random_transcript(mode, overlap, random.Random(f"det/{mode}/{overlap}"))
    assert replay_transcript(transcript) == replay_transcript(transcript)


@pytest.mark.parametrize(("mode", "overlap"), every_mode_and_rule())
def test_compiled_and_plain_python_agree_move_by_move(mode: str, overlap: str | None) -> None:
    load("compiled")  # the comparison is only meaningful with the compiled engine built
    transcript = random_transcript(mode, overlap, random.Random(f"backends/{mode}/{overlap}"))
    compiled, plain = _game_for(transcript, "compiled"), _game_for(transcript, "python")
    assert type(compiled.position) is not type(plain.position)
    for raw in transcript["actions"]:
        action = action_from_json(raw)
        assert compiled.apply(action) == plain.apply(action)
        assert compiled.position.state_array() == plain.position.state_array()


@pytest.mark.parametrize(
    ("mode", "overlap"),
    [
        ("standard", None),
        ("classic", None),
        ("expert", "consume"),
        ("big_squares", "layered"),
        ("strategic", "exclusive"),
    ],
)
def test_compiled_and_plain_python_playouts_agree(mode: str, overlap: str | None) -> None:
    header = {"mode": mode, "first": 1, **({"overlap": overlap} if overlap else {})}
    game, plain_game = _game_for(header), _game_for(header, "python")
    for seed in (1, 2, 99, 2**40 + 7):
        compiled, plain = game.position.copy(), plain_game.position.copy()
        compiled.playout(seed)
        plain.playout(seed)
        assert compiled.over and plain.over
        assert compiled.state_array() == plain.state_array()
        turns_ahead = game.position.copy()
        turns_ahead.playout(seed, 3)
        assert turns_ahead.turn == 3 or turns_ahead.over


@pytest.mark.parametrize(
    ("mode", "overlap", "total"),
    [
        ("mini", None, 9), ("standard", None, 25), ("quick", None, 25), ("classic", None, 49),
        ("chain_reaction", None, 49), ("marathon", None, 121), ("practice_2x2", None, 4),
        ("practice_3x3", None, 9), ("practice_4x4", None, 16),
        ("strategic", "independent", 337), ("big_squares", "independent", 778),
        ("expert", "independent", 1250),
        ("strategic", "takeover", 337), ("big_squares", "takeover", 778), ("expert", "takeover", 1250),
        ("strategic", "majority", 337), ("big_squares", "majority", 778), ("expert", "majority", 1250),
        ("strategic", "consume", 256), ("big_squares", "consume", 441), ("expert", "consume", 729),
        ("strategic", "exclusive", 81), ("big_squares", "exclusive", 81), ("expert", "exclusive", 121),
        ("strategic", "territory", 81), ("big_squares", "territory", 81), ("expert", "territory", 121),
    ],
)  # fmt: skip
def test_final_totals_where_the_rule_book_fixes_them(mode: str, overlap: str | None, total: int) -> None:
    for seed in range(20):
        position = _game_for({"mode": mode, "first": 1, **({"overlap": overlap} if overlap else {})}).position
        position.playout(seed)
        assert position.over
        assert position.score(0) + position.score(1) == total
        if MODES[mode].rules.sizes == (1,) and total % 2:
            assert position.score(0) != position.score(1)
