"""What `boxedin abuse` calls a goal met (issue 31, point 3): the live players' p99 at most 20 ms
above its level before and under 50 ms, /healthz and new players answering, and no live player
refused or cut off meanwhile (a budget that refuses honest players is no better than a slow one)."""

from __future__ import annotations

from boxedin.tools.abuse.command import Scenario, player_address


def scenario(before: float, during: float, **fields: object) -> Scenario:
    return Scenario("actions", 10, 200, before, during, 100, 100, **fields)  # type: ignore[arg-type]


def test_a_p99_within_20_ms_of_before_and_under_50_ms_meets_the_goal() -> None:
    assert scenario(8.0, 27.9).met
    assert not scenario(8.0, 28.1).met
    assert not scenario(35.0, 50.5).met


def test_a_live_player_refused_or_cut_off_misses_the_goal_however_quick() -> None:
    assert not scenario(5.0, 6.0, players_refused={"too_fast": 1}).met
    assert not scenario(5.0, 6.0, players_failed_games=1).met


def test_each_live_player_has_an_address_of_its_own_apart_from_the_abusers() -> None:
    addresses = [player_address(index) for index in range(600)]
    assert len(set(addresses)) == 600
    assert all(a.startswith("127.1.") and not a.endswith(".0") for a in addresses)
