"""`boxedin load --watchers N` (boxedin.tools.load.watch) against the session's stack, small: a
few watchers get every update of the watched phase, and the figures it reports are there. The
figure for 1,000 watchers comes from the command itself (README, Other commands)."""

from __future__ import annotations

import pytest

from boxedin.common import event_loop
from boxedin.supervisor.launcher import Stack
from boxedin.tools.load.watch import run_watch_load

pytestmark = pytest.mark.stack


def test_every_watcher_gets_every_update_and_both_round_trips_are_measured(live_stack: Stack) -> None:
    result = event_loop.run(run_watch_load(live_stack.url(), watchers=3, actions=4, mode="classic", runs=1))
    assert result["missed_deliveries"] == 0
    assert result["deliveries"] == 3 * 4
    keys = (
        "delivery_ms_p99",
        "round_trip_ms_p50_without_watchers",
        "round_trip_ms_p50_with_watchers",
        # The game nobody watches, played beside it on the same gateway.
        "other_game_round_trip_ms_p50_without_watchers",
        "other_game_round_trip_ms_p99_with_watchers",
    )
    for key in keys:
        assert len(result[key]["runs"]) == 1 and result[key]["min"] > 0, (key, result[key])
