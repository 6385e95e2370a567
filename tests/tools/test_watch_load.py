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
        assert result[key]["all_runs"] == result[key]["min"], (key, result[key])  # one run: the same
    assert result["other_game_actions_during_fan_out"] <= 4


def test_the_other_games_actions_are_split_by_whether_their_round_trip_overlapped_a_fan_out() -> None:
    from boxedin.tools.load.watch import _by_fan_out

    fan_outs = [(10.0, 10.05), (10.2, 10.25)]
    actions = [
        (1, 9.99, 0.005),  # answered before the first fan-out began
        (2, 9.99, 0.02),  # its answer came during it
        (3, 10.04, 0.002),  # sent during it
        (4, 10.1, 0.01),  # between the two
        (5, 10.24, 0.03),  # sent during the second, answered after it
    ]
    during, between = _by_fan_out(actions, fan_outs)
    assert during == [0.02, 0.002, 0.03]
    assert between == [0.005, 0.01]
