"""`boxedin load --online` (boxedin.tools.load.online) against the session's stack, small: two
pairs meet through Find Match and play to the end; with --think each player thinks before each
action, as a person, so the games take the time their actions' thinking adds up to."""

from __future__ import annotations

import pytest

from boxedin.common import event_loop
from boxedin.supervisor.launcher import Stack
from boxedin.tools.load.online import run_online_load

pytestmark = pytest.mark.stack


def test_players_who_think_before_each_action_finish_their_games_at_a_persons_pace(live_stack: Stack) -> None:
    think = 0.2
    result = event_loop.run(run_online_load(live_stack.url(), pairs=2, mode="mini", think=think))
    assert result["games_finished"] == 2 and result["players_failed"] == 0, result
    assert not result["errors"] and not result["exceptions"] and result["update_gaps"] == 0, result
    assert result["think_seconds"] == think
    # Each game's actions one after another, each after at least half the thinking time: the two
    # games together took at least that long for half the actions.
    assert result["seconds"] >= result["actions"] / 2 * think * 0.5, result
