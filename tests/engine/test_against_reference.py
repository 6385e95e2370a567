"""The engine against an independent implementation of the replay contract
(tests/reference_rules.py), on random transcripts in every mode and every overlap rule: the
output must match field for field, and errors by index and code."""

from __future__ import annotations

import random
from typing import Any

import pytest

from boxedin.engine.replay import replay_transcript

from reference_rules import replay_transcript as reference_replay
from transcripts import every_mode_and_rule, random_transcript

GAMES_PER_RULE = 12


def _comparable(result: tuple[int, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    status, output = result
    if status:
        # The message is prose; index and code are the contract.
        output = {"error": {k: v for k, v in output["error"].items() if k != "message"}}
    return status, output


@pytest.mark.parametrize(("mode", "overlap"), every_mode_and_rule())
def test_matches_the_reference_on_random_transcripts(mode: str, overlap: str | None) -> None:
    rng = random.Random(f"{mode}/{overlap}")
    for _ in range(GAMES_PER_RULE):
        transcript = random_transcript(mode, overlap, rng, mistakes=0.003)
        cut = rng.randint(0, len(transcript["actions"]))
        for case in (transcript, {**transcript, "actions": transcript["actions"][:cut]}):
            assert _comparable(replay_transcript(case)) == _comparable(reference_replay(case)), case
