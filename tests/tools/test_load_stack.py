"""`boxedin load --own-stack` (issue 14, Capacity): a paced load on a stack the command starts,
with two engine replicas, reports round trips and the CPU every process spent per 1,000 actions."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


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
    # Each game's calls go to the replica of its partition (the many short games of the run fall
    # in both replicas' partitions), and every action counted by the players was applied by one.
    applied = result["actions_applied_by"]
    assert set(applied) == {"engine", "engine-2"} and min(applied.values()) > 0
    assert sum(applied.values()) >= result["all_actions_answered"]
    # Its copy of the game current, a replica reads a game whole about once (round robin: about
    # every other action).
    assert result["routing"] == "partition" and result["game_reads_per_1000_actions"] < 150
    # Garbage collection pauses of the engines and the gateway, by generation.
    assert set(result["gc"]) == {"engine", "engine-2", "gateway"}
    assert set(result["gc"]["gateway"]) == {"generation 0", "generation 1", "generation 2"}
    # Event loop stalls of each watched process and of the load client, by cause, and what else
    # the machine ran meanwhile (a stall starved of CPU is its doing).
    assert set(result["stalls"]) == {"engine", "engine-2", "gateway", "load client"}
    assert all(set(by_cause) == {"gc", "busy", "starved"} for by_cause in result["stalls"].values())
    assert all(count >= 0 for by_cause in result["stalls"].values() for count in by_cause.values())
    assert result["machine"]["cores"] >= 1 and result["machine"]["other_processes_cores"] >= 0


def test_a_service_times_its_garbage_collections_and_keeps_full_ones_rare() -> None:
    script = (
        "import gc\n"
        "from boxedin.common.gc_pauses import THRESHOLDS, settle_gc\n"
        "from boxedin.common.metrics import GC_PAUSE\n"
        "settle_gc()\n"
        "assert gc.get_threshold() == THRESHOLDS and gc.get_freeze_count() > 0\n"
        "gc.collect(2)\n"
        "samples = {s.name: s.value for s in GC_PAUSE.collect()[0].samples if s.labels.get('generation') == '2'}\n"
        "assert samples['boxedin_gc_pause_seconds_count'] == 1, samples\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_the_online_load_on_its_own_stack_pairs_every_player_and_finishes_every_game() -> None:
    """`boxedin load --online --own-stack`: the pairs all come from this machine's address, and
    the stack it starts gives that address room for all of them."""
    command = [sys.executable, "-m", "boxedin.cli", "load", "--online", "--pairs", "30", "--own-stack", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    result = json.loads(done.stdout)
    assert result["games_finished"] == 30, result
    assert result["players_failed"] == 0 and not result["errors"] and not result["exceptions"], result
    assert result["update_gaps"] == 0 and not result["pairing_problems"], result
