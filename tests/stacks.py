"""Starting the service for tests: the real processes on loopback ports, each stack with a Redis
and a key prefix of its own, its logs under the test run's output folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from boxedin.launcher import Stack, free_port

TESTS = Path(__file__).parent
OUTPUT = Path(os.environ.get("BOXEDIN_TEST_OUTPUT", TESTS.parent / "test-output"))
# The AI's moves are paced for people; tests only need them in order.
FAST_AI = {"BOXEDIN_AI_PAUSE_NORMAL_SECONDS": "0.05", "BOXEDIN_AI_PAUSE_FAST_SECONDS": "0.01"}


def make_stack(name: str, **options: object) -> Stack:
    shutil.rmtree(OUTPUT / "logs" / name, ignore_errors=True)
    return Stack(
        key_prefix=f"test-{name}:",
        gateway_port=free_port(),
        engine_port=free_port(),
        ai_port=free_port(),
        stats_port=free_port(),
        matchmaker_port=free_port(),
        log_dir=OUTPUT / "logs" / name,
        extra_env={**FAST_AI, **options.pop("extra_env", {})},  # type: ignore[dict-item]
        **options,  # type: ignore[arg-type]
    )
