"""`boxedin memory` measures what a game costs in Redis (docs/keys.md): it runs, and what it
reports adds up."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


def test_boxedin_memory_reports_the_keys_of_finished_and_running_games() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "boxedin.cli", "memory", "--games", "1", "--mode", "mini", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    for phase in ("finished", "running"):
        row = figures[phase]
        assert set(row["keys"]) == {"game", "updates stream", "saved-game pointer"}
        assert all(size > 0 for size in row["keys"].values()), row
        assert abs(row["per_game"] - sum(row["keys"].values())) <= 3  # each mean rounded
