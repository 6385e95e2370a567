"""`boxedin load --own-stack` (issue 14, Capacity): a paced load on a stack the command starts,
with two engine replicas, reports round trips and the CPU every process spent per 1,000 actions."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_load_on_its_own_stack_reports_the_cpu_of_every_process_and_spreads_over_the_engines() -> None:
    command = [
        sys.executable, "-m", "boxedin.cli", "load", "--own-stack", "--engines", "2", "--mode", "mini",
        "--concurrency", "6", "--think", "0.02", "--seconds", "3", "--ramp", "0.5",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["failed_games"] == 0 and result["errors"] == {}
    assert result["actions"] > 0 and result["engines"] == 2
    assert 0 < result["round_trip_ms"]["p50"] <= result["round_trip_ms"]["p95"] <= result["round_trip_ms"]["p99"]
    cpu = result["cpu_seconds_per_1000_actions"]
    assert {"engine", "engine-2", "gateway", "redis", "load client"} <= set(cpu)
    assert all(seconds > 0 for name, seconds in cpu.items() if name in ("engine", "engine-2", "gateway", "redis"))
    # The gateway's round_robin channel gives both replicas actions to apply (a game's new_game
    # and its rolls and draws), and every action counted by the players was applied by one.
    applied = result["actions_applied_by"]
    assert set(applied) == {"engine", "engine-2"} and min(applied.values()) > 0
    assert sum(applied.values()) >= result["all_actions_answered"]
