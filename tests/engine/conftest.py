"""Fixtures for the engine's tests: the replay contract as a function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from boxedin.engine.replay import replay_transcript

Replay = Callable[[dict[str, Any]], dict[str, Any]]


@pytest.fixture
def replay() -> Replay:
    """Replays a transcript (a dict) and returns what `boxedin replay` prints, as a dict.

    Errors come back as ``{"error": {"index": K, "code": ..., "message": ...}}``.
    """

    def run(transcript: dict[str, Any]) -> dict[str, Any]:
        _status, output = replay_transcript(transcript)
        return output

    return run
