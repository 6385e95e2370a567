"""The rule book's Statistics, played out: every figure of a device's statistics, worked out by hand
from games built with the engine.

"Only finished games against the AI are counted. Games against other people, on this device or
online, count towards the achievements under Other players and appear nowhere in these
statistics." Scoring is about you; time played comes from the server clock; the dice
distribution is of your own rolls; modes with 1x1 boxes only are not listed under an overlap mode.

Boxes are completed in reading order and ``owners`` names, row by row, the seat that completes
each box (stats_games.box_game): in a mode with 1x1 boxes only, each seat scores its boxes.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from boxedin.engine import codec
from boxedin.engine.board import Edge
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES
from boxedin.stats.model import STATS_VERSION, DeviceStats, apply_game, game_outcome, reset
from boxedin.v1 import common_pb2

from stats_games import (
    ME,
    QUICK_LAST_SIX_ON_FOUR_EDGES,
    ai_seats,
    box_game,
    count,
    edges_in_order,
    facts_of,
    finished,
    local_seats,
    online_seats,
    play_on,
    practice_seats,
)

# Mini: 9 boxes, 9 points. Scores are seat 1 : seat 2.
MINI_5_4 = "121 212 121"  # 5 : 4
MINI_4_5 = "212 121 212"  # 4 : 5
MINI_9_0 = "111 111 111"  # 9 : 0
# Classic: 49 boxes. The AI takes the first 10, seat 1 the other 39: 39 : 10.
CLASSIC_39_10 = "2" * 10 + "1" * 39

# Strategic under Consume ends with the 64 2x2s only (4 points each). The 2x2 at (r, c) goes to
# whoever completes box (r+1, c+1): seat 1 holds boxes 1-8 of rows 1-4 (32 2x2s), seat 2 those
# of rows 5-8 (32 2x2s): 128 : 128, a tie. Seat 1 also completes all of row 0 and column 0: those
# 9 + 8 = 17 boxes are captured and later absorbed by the 2x2s around them. The other boxes are
# completed together with a 2x2 around them, which is captured first, so they are blocked.
STRATEGIC_TIE = "111111111" * 5 + "122222222" * 4


def mini(owners: str) -> Game:
    return box_game("mini", owners)


def tie() -> Game:
    return box_game("strategic", STRATEGIC_TIE, overlap="consume")


def test_a_fresh_record_has_counted_nothing() -> None:
    stats = DeviceStats()
    assert (stats.games, stats.wins, stats.losses, stats.ties) == (0, 0, 0, 0)
    assert stats.win_rate == 0.0
    assert stats.biggest_margin is None and stats.fastest_win_seconds is None
    assert (stats.highest_score, stats.play_seconds, stats.longest_game_seconds) == (0, 0.0, 0.0)
    assert stats.achievements == {} and stats.leaderboard == {} and stats.leaderboard_all == []


# --- Performance and streaks -------------------------------------------------------------------


def test_performance_and_streaks_a_loss_or_a_tie_ends_a_run() -> None:
    stats = DeviceStats()
    # game:          W      W      T      W      L      W      W      W
    # current run:   1      2      0      1      0      1      2      3
    # best run:      1      2      2      2      2      2      2      3
    games = [MINI_5_4, MINI_9_0, None, MINI_5_4, MINI_4_5, MINI_9_0, MINI_5_4, CLASSIC_39_10]
    current = [1, 2, 0, 1, 0, 1, 2, 3]
    best = [1, 2, 2, 2, 2, 2, 2, 3]
    for i, owners in enumerate(games):
        game = tie() if owners is None else box_game("classic" if owners == CLASSIC_39_10 else "mini", owners)
        count(stats, game, game_id=f"g{i}")
        assert (stats.current_streak, stats.best_streak) == (current[i], best[i]), f"after game {i + 1}"
    assert (stats.games, stats.wins, stats.losses, stats.ties) == (8, 6, 1, 1)
    assert stats.win_rate == 6 / 8


def test_a_resigned_game_is_a_loss_for_whoever_resigned() -> None:
    game = Game.from_mode(MODES["mini"])
    game.roll(4)
    for edge in (Edge("h", 0, 0), Edge("h", 1, 0), Edge("v", 0, 0), Edge("v", 0, 1)):
        game.draw(edge)  # box (0,0): 1 : 0
    game.resign(1)
    facts = facts_of(game)
    assert (facts.outcome, facts.resigned, facts.my_score, facts.their_score) == ("loss", True, 1, 0)
    stats = DeviceStats()
    count(stats, mini(MINI_9_0), game_id="won")
    count(stats, game, game_id="resigned")
    assert (stats.games, stats.wins, stats.losses, stats.current_streak, stats.best_streak) == (2, 1, 1, 0, 1)


# --- Scoring -----------------------------------------------------------------------------------


def test_scoring_is_about_you() -> None:
    stats = DeviceStats()
    count(stats, mini(MINI_4_5), game_id="loss")  # 4 : 5
    # A loss: nothing for the biggest win margin yet.
    assert (stats.squares_captured, stats.points_scored, stats.highest_score, stats.biggest_margin) == (4, 4, 4, None)
    count(stats, mini(MINI_5_4), game_id="win1")  # 5 : 4, margin 1
    count(stats, box_game("classic", CLASSIC_39_10), game_id="win2")  # 39 : 10, margin 29
    count(stats, tie(), game_id="tie")  # 128 : 128, 49 squares captured
    # squares: 4 + 5 + 39 + 49 = 97; points: 4 + 5 + 39 + 128 = 176
    assert stats.squares_captured == 97
    assert stats.points_scored == 176
    assert stats.highest_score == 128  # the tie: any game's score counts here
    assert stats.biggest_margin == 29  # wins only


def test_squares_lost_again_later_are_not_subtracted_consume() -> None:
    # Seat 1 captured the 17 boxes of row 0 and column 0 and the 32 2x2s of rows 1-4; every one
    # of those boxes was absorbed by a 2x2 afterwards, so its final score is 32 x 4 = 128.
    facts = facts_of(tie())
    assert (facts.my_score, facts.their_score, facts.outcome) == (128, 128, "tie")
    assert facts.captured_by_size == {1: 17, 2: 32}
    stats = DeviceStats()
    apply_game(stats, facts, 0.0)
    assert stats.squares_captured == 49
    assert stats.points_scored == 128


def test_squares_lost_again_later_are_not_subtracted_takeover() -> None:
    # Takeover: you complete box (0,0); the AI completes everything else, among it box (1,1)
    # and with it the 2x2 at (0,0), which takes your box over. You end with 0 points but did
    # capture one square.
    facts = facts_of(box_game("strategic", "1" + "2" * 80, overlap="takeover"))
    assert (facts.my_score, facts.their_score, facts.squares_captured) == (0, 337, 1)
    stats = DeviceStats()
    apply_game(stats, facts, 0.0)
    assert (stats.squares_captured, stats.points_scored, stats.highest_score, stats.losses) == (1, 0, 0, 1)


# --- Time played -------------------------------------------------------------------------------


def test_time_played_from_the_server_clock() -> None:
    stats = DeviceStats()
    count(stats, mini(MINI_9_0), game_id="a", created=1_000, ended=1_300)  # win, 300 s
    count(stats, mini(MINI_4_5), game_id="b", created=2_000, ended=2_090)  # loss, 90 s
    assert stats.fastest_win_seconds == 300  # the quicker loss is no win
    count(stats, mini(MINI_5_4), game_id="c", created=3_000, ended=3_200)  # win, 200 s
    count(stats, tie(), game_id="d", created=4_000, ended=4_600)  # tie, 600 s
    assert stats.play_seconds == 300 + 90 + 200 + 600
    assert stats.longest_game_seconds == 600
    assert stats.fastest_win_seconds == 200


# --- Details: by mode, by difficulty, by overlap mode ------------------------------------------


def test_details_by_mode_level_and_overlap_rule() -> None:
    stats = DeviceStats()
    count(stats, mini(MINI_9_0), ai_seats("easy"), game_id="1")  # win
    count(stats, mini(MINI_4_5), ai_seats("easy"), game_id="2")  # loss
    count(stats, tie(), ai_seats("hard"), game_id="3")  # Strategic, Consume: tie
    count(stats, box_game("strategic", "1" * 81, overlap="takeover"), ai_seats("hard"), game_id="4")  # win
    count(stats, box_game("classic", CLASSIC_39_10), ai_seats("normal"), game_id="5")  # win
    count(stats, box_game("expert", "1" * 121), ai_seats("expert"), game_id="6")  # Expert starts on Consume
    assert stats.by_mode == {
        "mini": {"games": 2, "wins": 1},
        "strategic": {"games": 2, "wins": 1},
        "classic": {"games": 1, "wins": 1},
        "expert": {"games": 1, "wins": 1},
    }
    assert stats.by_level == {
        "easy": {"games": 2, "wins": 1},
        "hard": {"games": 2, "wins": 1},
        "normal": {"games": 1, "wins": 1},
        "expert": {"games": 1, "wins": 1},
    }
    # Mini and Classic have 1x1 boxes only: not listed under an overlap rule.
    assert stats.by_overlap == {"consume": {"games": 2, "wins": 1}, "takeover": {"games": 1, "wins": 1}}


# --- Dice roll distribution --------------------------------------------------------------------


# Mini (d4, 24 edges), seat 1 first: seat 1 rolls 4, 2, 4, 1, 3 and seat 2 rolls 1, 3, 2, 4.
MINI_ROLLS = [4, 1, 2, 3, 4, 2, 1, 4, 3]


def test_dice_distribution_counts_your_own_rolls_only() -> None:
    stats = DeviceStats()
    count(stats, edges_in_order("mini", MINI_ROLLS))
    assert stats.dice == {"4": 2, "2": 1, "1": 1, "3": 1}
    assert stats.top_face_rolls == 2  # a 4 is the top face of the d4


def test_dice_of_the_device_in_seat_2() -> None:
    # The same game with the AI in seat 1: the device's rolls are seat 2's.
    facts = facts_of(edges_in_order("mini", MINI_ROLLS), ai_seats(my_seat=2))
    assert facts.seat == 2
    assert (facts.my_rolls, facts.their_rolls) == ((1, 3, 2, 4), (4, 2, 4, 1, 3))
    stats = DeviceStats()
    apply_game(stats, facts, 0.0)
    assert stats.dice == {"1": 1, "3": 1, "2": 1, "4": 1}


def test_a_six_with_4_edges_open_counts_as_a_4() -> None:
    # Rules notes, Turns: the roll is min(face, open edges), for play and statistics alike.
    game = edges_in_order("quick", QUICK_LAST_SIX_ON_FOUR_EDGES)
    assert game.roll_history[-1] == (1, 4)
    facts = facts_of(game)
    assert facts.my_rolls == (6, 6, 6, 6, 6, 2, 4)
    stats = DeviceStats()
    apply_game(stats, facts, 0.0)
    assert stats.dice == {"6": 5, "2": 1, "4": 1}
    assert stats.top_face_rolls == 5  # the cut-down 6 is no top face


def test_standard_has_no_dice() -> None:
    stats = DeviceStats()
    count(stats, box_game("standard", "1" * 25))
    assert stats.dice == {} and stats.top_face_rolls == 0
    assert (stats.wins, stats.points_scored) == (1, 25)


def test_undo_never_takes_a_roll_back() -> None:
    # Seat 1 rolls 3, draws an edge and takes it back, then draws 3 edges: one roll of 3. Then
    # seat 2 rolls 1 and seat 1 rolls 4, four times, and seat 2 a last 1: 3 + 4 x 5 + 1 = 24 edges.
    game = Game.from_mode(MODES["mini"])
    game.roll(3)
    game.draw(Edge("h", 3, 2))
    game.undo()
    for edge in game.geo.edges[:3]:
        game.draw(edge)
    facts = facts_of(play_on(game, [1, 4, 1, 4, 1, 4, 1, 4, 1]))
    assert (facts.my_rolls, facts.their_rolls) == ((3, 4, 4, 4, 4), (1, 1, 1, 1, 1))


# --- Who the device played ---------------------------------------------------------------------


def test_the_device_is_found_in_its_seat() -> None:
    game = mini(MINI_5_4)  # seat 1 : seat 2 = 5 : 4
    facts = facts_of(game, ai_seats("hard", my_seat=2))
    assert (facts.seat, facts.against, facts.level) == (2, "ai", "hard")
    assert (facts.my_score, facts.their_score, facts.outcome) == (4, 5, "loss")
    facts = facts_of(game, ai_seats("hard"))
    assert (facts.seat, facts.my_score, facts.their_score, facts.outcome) == (1, 5, 4, "win")
    assert (facts.mode, facts.overlap, facts.die, facts.game_id) == ("mini", None, 4, "g1")


def test_what_kind_of_game_it_was() -> None:
    game = mini(MINI_5_4)
    local = facts_of(game, local_seats())
    assert (local.against, local.seat, local.level) == ("local", 1, None)
    practice = facts_of(box_game("practice_2x2", "1111"), practice_seats())
    assert (practice.against, practice.mode) == ("practice", "practice_2x2")
    online = facts_of(game, online_seats(my_seat=2))
    assert (online.against, online.seat, online.outcome) == ("online", 2, "loss")


def test_a_game_the_device_did_not_play_is_refused() -> None:
    with pytest.raises(ValueError, match="no seat"):
        facts_of(mini(MINI_5_4), ai_seats(device="b" * 64))
    with pytest.raises(ValueError, match="no seat"):
        game_outcome(finished(mini(MINI_5_4)), "")


def test_a_damaged_or_unfinished_record_is_refused() -> None:
    damaged = finished(mini(MINI_5_4))
    damaged.record = damaged.record[:-3]
    with pytest.raises(ValueError, match="does not decode"):
        game_outcome(damaged, ME)
    running = Game.from_mode(MODES["mini"])
    running.roll(2)
    with pytest.raises(ValueError, match="not over"):
        facts_of(running)
    with pytest.raises(ValueError, match="AI level"):
        facts_of(mini(MINI_5_4), ai_seats("impossible"))
    with pytest.raises(ValueError, match="two seats"):
        game_outcome(common_pb2.FinishedGame(game_id="x", record=codec.encode(mini(MINI_5_4))), ME)


def test_seconds_are_the_server_clock_and_never_negative() -> None:
    assert facts_of(mini(MINI_5_4), created=100.0, ended=175.5).seconds == 75.5
    assert facts_of(mini(MINI_5_4), created=200.0, ended=100.0).seconds == 0.0


# --- Games against other people and practice games ---------------------------------------------


@pytest.mark.parametrize(
    ("seats", "opponent"),
    [(local_seats(), "local"), (practice_seats(), "practice"), (online_seats(), "online")],
    ids=["local", "practice", "online"],
)
def test_games_against_others_change_nothing_in_the_statistics(seats: list[object], opponent: str) -> None:
    game = box_game("practice_2x2", "1111") if opponent == "practice" else mini(MINI_9_0)
    stats = DeviceStats()
    result = count(stats, game, seats)  # type: ignore[arg-type]
    assert result.leaderboard is None
    untouched = dataclasses.replace(DeviceStats(), other_players=stats.other_players, achievements=stats.achievements)
    assert stats == untouched
    other = stats.other_players
    assert (other.local_games, other.practice_games, other.online_games) == (
        opponent == "local",
        opponent == "practice",
        opponent == "online",
    )


def test_online_games_are_counted_by_mode_for_your_most_played() -> None:
    stats = DeviceStats()
    count(stats, mini(MINI_9_0), online_seats(), game_id="1")  # won
    count(stats, mini(MINI_9_0), online_seats(my_seat=2), game_id="2")  # lost
    count(stats, box_game("classic", CLASSIC_39_10), online_seats(), game_id="3")  # won
    other = stats.other_players
    assert (other.online_games, other.online_wins, other.online_by_mode) == (3, 2, {"mini": 2, "classic": 1})
    assert stats.games == 0


# --- Reset and the stored record ---------------------------------------------------------------


def played() -> DeviceStats:
    stats = DeviceStats()
    count(stats, mini(MINI_9_0), ai_seats("hard"), game_id="1", now=10.0)
    count(stats, tie(), game_id="2", now=11.0)
    count(stats, edges_in_order("mini", MINI_ROLLS), game_id="3", now=12.0)
    count(stats, mini(MINI_5_4), local_seats(), game_id="4", now=13.0)
    count(stats, box_game("classic", CLASSIC_39_10), online_seats(), game_id="5", now=14.0)
    return stats


def test_reset_erases_everything() -> None:
    stats = played()
    assert stats.games == 3 and stats.achievements and stats.leaderboard_all and stats.other_players.local_games
    reset(stats)
    assert stats == DeviceStats()


def test_the_record_round_trips_through_json() -> None:
    stats = played()
    text = stats.to_json()
    assert json.loads(text)["version"] == STATS_VERSION == 1
    again = DeviceStats.from_json(text)
    assert again == stats
    assert DeviceStats.from_json(text.encode()) == stats
    assert DeviceStats.from_json(DeviceStats().to_json()) == DeviceStats()


def test_a_record_of_another_version_is_refused() -> None:
    data = json.loads(played().to_json())
    for version in (2, 0, None, "1"):
        data["version"] = version
        with pytest.raises(ValueError, match="version"):
            DeviceStats.from_json(json.dumps(data))
    del data["version"]
    with pytest.raises(ValueError, match="version"):
        DeviceStats.from_json(json.dumps(data))


def test_a_malformed_record_is_refused() -> None:
    good = json.loads(played().to_json())
    for key, value in [("games", "3"), ("dice", []), ("leaderboard_all", {}), ("highest_score", None)]:
        data = dict(good, **{key: value})
        with pytest.raises(ValueError):
            DeviceStats.from_json(json.dumps(data))
    missing = dict(good)
    del missing["wins"]
    with pytest.raises(ValueError, match="wins"):
        DeviceStats.from_json(json.dumps(missing))
    with pytest.raises(ValueError):
        DeviceStats.from_json("not json")
