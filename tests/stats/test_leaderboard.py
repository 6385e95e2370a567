"""The rule book's Leaderboard: "the 10 best of each game mode, and under All games the 10 best of
all."

"A win is worth your share of all points scored in the game, in percent, times 1 against the Easy
AI, 2 against Normal, 3 against Hard and 4 against Expert. Winning 31 to 18 against Hard is
63% x 3 = 189 points. Only wins count. With equal points the quicker game stands higher."

Games are built with stats_games.box_game: ``owners`` names the seat that completes each box, so
in Mini (9 boxes) and Classic (49 boxes) each seat scores the boxes it owns.
"""

from __future__ import annotations

import pytest

from boxedin.engine.rules import MODES
from boxedin.stats.model import DeviceStats, Entry, LeaderboardLine, share_percent, win_points

from stats_games import ai_seats, box_game, count, local_seats, online_seats


def classic(mine: int) -> str:
    """Classic owners: seat 1 completes the first ``mine`` boxes, the AI the rest."""
    return "1" * mine + "2" * (49 - mine)


MINI = {  # Mini owners by score, seat 1 : seat 2
    (9, 0): "111111111",
    (8, 1): "111111112",
    (7, 2): "111111122",
    (6, 3): "111111222",
    (5, 4): "121212121",
}


# --- What a win is worth -----------------------------------------------------------------------


def test_the_rule_book_example_31_to_18_against_hard_is_189() -> None:
    # 31 / 49 = 63.3% -> 63; times 3 against Hard.
    assert win_points(31, 18, "hard") == 189


@pytest.mark.parametrize(
    ("level", "points"),
    [("easy", 63), ("normal", 126), ("hard", 189), ("expert", 252)],
    ids=["easy_x1", "normal_x2", "hard_x3", "expert_x4"],
)
def test_the_level_multiplies_the_share(level: str, points: int) -> None:
    assert win_points(31, 18, level) == points


def test_the_share_is_rounded_half_up() -> None:
    # 5 of 8 points is 62.5%: 63 (Python's round() would make it 62). 1 of 8 is 12.5%: 13.
    assert share_percent(5, 3) == 63
    assert share_percent(1, 7) == 13
    assert win_points(5, 3, "easy") == 63
    assert share_percent(40, 9) == 82  # 81.6%
    assert share_percent(9, 0) == 100
    assert share_percent(0, 0) == 0  # nobody scored (a resignation at 0 : 0)


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="level"):
        win_points(31, 18, "impossible")


# --- Places ------------------------------------------------------------------------------------


def test_the_result_window_of_the_rule_book_example() -> None:
    stats = DeviceStats()
    # An earlier, better win: 40 : 9 against Hard is 82 x 3 = 246 points.
    first = count(stats, box_game("classic", classic(40)), ai_seats("hard"), game_id="better")
    assert first.leaderboard == LeaderboardLine(points=246, mode="classic", place=1, all_place=1)
    result = count(stats, box_game("classic", classic(31)), ai_seats("hard"), game_id="example")
    line = result.leaderboard
    assert line == LeaderboardLine(points=189, mode="classic", place=2, all_place=2)
    assert line.sentence(MODES["classic"].name) == "189 points: place 2 on your Classic leaderboard."
    assert stats.leaderboard["classic"][1] == Entry(
        game_id="example",
        mode="classic",
        overlap=None,
        level="hard",
        points=189,
        my_score=31,
        their_score=18,
        seconds=60.0,
        ended=1_060.0,
    )


def test_only_wins_count() -> None:
    stats = DeviceStats()
    loss = count(stats, box_game("classic", classic(18)), ai_seats("expert"), game_id="loss")  # 18 : 31
    tie = count(
        stats,
        box_game("strategic", "111111111" * 5 + "122222222" * 4, overlap="consume"),  # 128 : 128
        ai_seats("expert"),
        game_id="tie",
    )
    assert loss.leaderboard is None and tie.leaderboard is None
    # Wins against people are no wins against the AI.
    assert count(stats, box_game("mini", MINI[9, 0]), local_seats(), game_id="local").leaderboard is None
    assert count(stats, box_game("mini", MINI[9, 0]), online_seats(), game_id="online").leaderboard is None
    assert stats.leaderboard == {} and stats.leaderboard_all == []


def test_with_equal_points_the_quicker_game_stands_higher() -> None:
    stats = DeviceStats()
    game = box_game("classic", classic(31))  # 189 points against Hard, every time

    def win(game_id: str, seconds: float, ended: float) -> LeaderboardLine | None:
        return count(stats, game, ai_seats("hard"), game_id=game_id, created=ended - seconds, ended=ended).leaderboard

    assert win("slow", 400, 10_000) == LeaderboardLine(189, "classic", 1, 1)
    assert win("quick", 300, 20_000) == LeaderboardLine(189, "classic", 1, 1)  # quicker: above "slow"
    # As quick as "quick" but ended later: below it.
    assert win("quick-later", 300, 30_000) == LeaderboardLine(189, "classic", 2, 2)
    assert win("slowest", 500, 40_000) == LeaderboardLine(189, "classic", 4, 4)
    assert [e.game_id for e in stats.leaderboard["classic"]] == ["quick", "quick-later", "slow", "slowest"]


def test_ten_are_kept_per_mode_and_ten_in_all() -> None:
    stats = DeviceStats()
    # Eleven Mini wins; the points are the share x the level (in brackets: the place on the
    # Mini board when the win comes in).
    wins = [
        ((9, 0), "easy", 100, 1),
        ((8, 1), "easy", 89, 2),
        ((7, 2), "easy", 78, 3),
        ((6, 3), "easy", 67, 4),
        ((5, 4), "easy", 56, 5),  # 55.6%
        ((9, 0), "normal", 200, 1),
        ((8, 1), "normal", 178, 2),  # 88.9% -> 89, x 2
        ((7, 2), "normal", 156, 3),
        ((6, 3), "normal", 134, 4),
        ((5, 4), "normal", 112, 5),
        ((9, 0), "hard", 300, 1),
    ]
    for i, (score, level, points, place) in enumerate(wins):
        line = count(stats, box_game("mini", MINI[score]), ai_seats(level), game_id=f"mini{i}").leaderboard
        assert line is not None
        assert (line.points, line.place) == (points, place), f"win {i + 1}"
    # The eleventh pushed the 56 off the Mini board (and off All games).
    assert [e.points for e in stats.leaderboard["mini"]] == [300, 200, 178, 156, 134, 112, 100, 89, 78, 67]
    assert [e.points for e in stats.leaderboard_all] == [300, 200, 178, 156, 134, 112, 100, 89, 78, 67]

    # Another 56-point win does not make the Mini top 10.
    line = count(stats, box_game("mini", MINI[5, 4]), ai_seats("easy"), game_id="late").leaderboard
    assert line == LeaderboardLine(points=56, mode="mini", place=None, all_place=None)
    assert line.sentence("Mini") == "56 points: not in the top 10 of your Mini leaderboard."
    assert len(stats.leaderboard["mini"]) == 10

    # A Classic win of 189 tops the Classic board and is third of all games.
    line = count(stats, box_game("classic", classic(31)), ai_seats("hard"), game_id="classic").leaderboard
    assert line == LeaderboardLine(points=189, mode="classic", place=1, all_place=3)
    assert [e.points for e in stats.leaderboard_all] == [300, 200, 189, 178, 156, 134, 112, 100, 89, 78]
    # 25 : 24 against Easy is 51: second on the Classic board, nowhere under All games.
    line = count(stats, box_game("classic", classic(25)), ai_seats("easy"), game_id="close").leaderboard
    assert line == LeaderboardLine(points=51, mode="classic", place=2, all_place=None)
    assert line.sentence("Classic") == "51 points: place 2 on your Classic leaderboard."
    assert len(stats.leaderboard_all) == 10
    assert [e.game_id for e in stats.leaderboard["classic"]] == ["classic", "close"]
