"""Random transcripts for whole-game tests: legal play with End Turn, Undo and the move clock
mixed in, and now and then an action the rules refuse."""

from __future__ import annotations

import random
from typing import Any

from boxedin.engine.actions import Action, Draw, EndTurn, Roll, Timeout, Undo
from boxedin.engine.rules import MODES, Overlap

MULTI_SIZE_MODES = [m.id for m in MODES.values() if m.rules.has_overlap]
ONE_SIZE_MODES = [m.id for m in MODES.values() if not m.rules.has_overlap]


def every_mode_and_rule() -> list[tuple[str, str | None]]:
    return [(m, None) for m in ONE_SIZE_MODES] + [(m, rule.id) for m in MULTI_SIZE_MODES for rule in Overlap]


def random_transcript(
    mode_id: str, overlap: str | None, rng: random.Random, *, mistakes: float = 0.0, max_actions: int = 2000
) -> dict[str, Any]:
    """A transcript played by random players who roll faces uniformly, draw random open edges
    and sometimes end the turn early, undo or time out. With ``mistakes`` > 0 it may end with an
    action the rules refuse (the replay stops there)."""
    from boxedin.engine.replay import play_transcript  # the engine tells which actions are legal

    mode = MODES[mode_id]
    rules = mode.rules
    transcript: dict[str, Any] = {"mode": mode_id, "first": rng.choice([1, 2]), "actions": []}
    if overlap is not None:
        transcript["overlap"] = overlap
    game = play_transcript(transcript)
    actions: list[dict[str, Any]] = transcript["actions"]
    n = rules.boxes
    while not game.over and len(actions) < max_actions:
        if mistakes and rng.random() < mistakes:
            actions.append(_mistake(rng, n, rules.die))
            return transcript
        r = rng.random()
        action: dict[str, Any]
        applied: Action
        # Each action as the transcript's JSON and as what the JSON reads as (action_from_json's
        # reading, made directly: the transcripts are long, and reading them is the replay's job).
        if game.phase == "roll":
            if r < 0.03:
                action, applied = {"timeout": True}, Timeout()
            else:
                face = rng.randint(1, rules.die or 1)
                action, applied = {"roll": face}, Roll(face)
        elif r < 0.05 and game.can_undo:
            action, applied = {"undo": True}, Undo()
        elif r < 0.08 and game.can_end_turn:
            action, applied = {"end_turn": True}, EndTurn()
        elif r < 0.09:
            action, applied = {"timeout": True}, Timeout()
        else:
            edge = game.geo.edges[rng.choice(game.position.open_edge_list())]
            action, applied = {"draw": edge.to_json()}, Draw(edge)
        actions.append(action)
        game.apply(applied)
    return transcript


def _mistake(rng: random.Random, n: int, die: int | None) -> dict[str, Any]:
    return rng.choice(
        [
            {"roll": rng.randint(0, (die or 6) + 2)},
            {"draw": [rng.choice("hv"), rng.randint(-1, n + 1), rng.randint(-1, n + 1)]},
            {"end_turn": True},
            {"undo": True},
            {"draw": ["d", 0, 0]},
            {"roll": 2.5},
            {"undo": False},
            {"jump": True},
            {"draw": ["h", 0, 0], "roll": 1},
        ]
    )
