"""The 36 achievements, one test each: the games that earn it, that it unlocks exactly then (not
before), that it is announced once, and the progress bar of those that count something up.

"36 achievements can be unlocked, most of them by finished games against the AI. A new one is
announced in the result window." Local, practice and online games count towards Other players
and nothing else.

Games come from stats_games: ``box_game(mode, owners)`` lets the tests decide which seat completes
every box (so in modes with 1x1 boxes only, each seat scores the boxes it owns), and
``edges_in_order(mode, rolls)`` plays a dice game with chosen rolls, seat 1 first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from boxedin.engine.board import Edge
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap
from boxedin.stats.model import (
    ACHIEVEMENTS,
    CATEGORIES,
    DeviceStats,
    GameOutcome,
    achievement,
    apply_game,
    progress,
)
from boxedin.v1 import common_pb2

from stats_games import (
    FRIEND,
    ME,
    ai_seats,
    box_game,
    edges_in_order,
    facts_of,
    local_seats,
    online_seats,
    practice_seats,
)

MINI = {  # Mini owners by score, seat 1 : seat 2 (the device is seat 1)
    (9, 0): "111111111",
    (8, 1): "111111112",
    (6, 3): "111111222",
    (5, 4): "121212121",
    (4, 5): "212121212",
    (0, 9): "222222222",
}
NINE_MODES = [m.id for m in MODES.values() if not m.practice]
RULES = [rule.id for rule in Overlap]


class Device:
    """One device counting its games; every game gets a new id and the time ``now`` = its
    number (1.0 for the first game, ...)."""

    def __init__(self) -> None:
        self.stats = DeviceStats()
        self.played = 0

    def play(self, game: Game, seats: Sequence[common_pb2.SeatInfo] | None = None, level: str = "normal") -> list[str]:
        return self.count(facts_of(game, ai_seats(level) if seats is None else seats))

    def count(self, facts: GameOutcome) -> list[str]:
        """Counts the facts of a game (under a new game id); returns the achievements it unlocked."""
        self.played += 1
        facts = dataclasses.replace(facts, game_id=f"game{self.played}")
        return apply_game(self.stats, facts, float(self.played)).unlocked

    def progress(self, achievement_id: str) -> int:
        return progress(self.stats, achievement(achievement_id))

    def unlocked(self, achievement_id: str) -> bool:
        return achievement_id in self.stats.achievements


def mini(score: tuple[int, int]) -> Game:
    return box_game("mini", MINI[score])


def win_facts(level: str = "normal") -> GameOutcome:
    return facts_of(mini((9, 0)), ai_seats(level))


def loss_facts() -> GameOutcome:
    return facts_of(mini((4, 5)))


def tie_facts() -> GameOutcome:
    # Strategic under Consume: seat 1 completes rows 0-4 and column 0, so the 32 2x2s over rows
    # 1-4, the AI the 32 over rows 5-8: 128 : 128.
    return facts_of(box_game("strategic", "111111111" * 5 + "122222222" * 4, overlap="consume"))


# --- The list ----------------------------------------------------------------------------------


def test_there_are_36_with_stable_unique_ids() -> None:
    assert len(ACHIEVEMENTS) == 36
    assert len({a.id for a in ACHIEVEMENTS}) == 36
    assert len({a.name for a in ACHIEVEMENTS}) == 36
    assert {a.category for a in ACHIEVEMENTS} == set(CATEGORIES)
    assert all(a.target >= 1 and a.description.endswith(".") for a in ACHIEVEMENTS)
    # Most are earned against the AI: all but the four under Other players.
    assert [a.id for a in ACHIEVEMENTS if a.category == "other_players"] == [
        "local_game",
        "practice_game",
        "online_win",
        "people_10",
    ]
    counting = {a.id: a.target for a in ACHIEVEMENTS if a.target > 1}
    assert counting == {
        "games_10": 10,
        "games_100": 100,
        "rules_3": 3,
        "rules_13": 13,
        "streak_3": 3,
        "streak_5": 5,
        "streak_10": 10,
        "squares_500": 500,
        "top_face_50": 50,
        "people_10": 10,
    }


def test_every_achievement_has_a_test_of_its_own() -> None:
    tested = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    tested |= {f"beat_{level}" for level in LEVELS} | {f"win_{mode}" for mode in NINE_MODES}
    tested |= {f"streak_{n}" for n in STREAKS}
    assert {a.id for a in ACHIEVEMENTS} <= tested


def test_a_first_win_announces_its_achievements_in_list_order() -> None:
    device = Device()
    assert device.play(mini((9, 0)), level="easy") == [
        "first_game",
        "first_win",
        "beat_easy",
        "win_mini",
        "shutout",
        "landslide",
    ]
    assert device.stats.achievements == dict.fromkeys(
        ["first_game", "first_win", "beat_easy", "win_mini", "shutout", "landslide"], 1.0
    )
    assert device.play(mini((9, 0)), level="easy") == []  # each one is announced once


def test_games_against_others_unlock_only_other_players() -> None:
    device = Device()
    assert device.play(mini((9, 0)), local_seats()) == ["local_game"]
    assert device.play(mini((9, 0)), online_seats()) == ["online_win"]
    assert device.play(box_game("practice_2x2", "1111"), practice_seats()) == ["practice_game"]
    assert device.stats.games == 0


def test_reset_lets_them_be_earned_again() -> None:
    from boxedin.stats.model import reset

    device = Device()
    assert "first_game" in device.play(mini((4, 5)))
    reset(device.stats)
    assert device.progress("first_game") == 0
    assert "first_game" in device.play(mini((4, 5)))


# --- First steps -------------------------------------------------------------------------------


def test_first_game() -> None:
    device = Device()
    assert device.play(mini((9, 0)), local_seats()) == ["local_game"]  # not against the AI
    assert device.progress("first_game") == 0
    assert "first_game" in device.play(mini((0, 9)))  # a loss is a finished game too
    assert device.progress("first_game") == 1
    assert "first_game" not in device.play(mini((0, 9)))


def test_first_win() -> None:
    device = Device()
    device.play(mini((4, 5)))
    device.count(tie_facts())
    device.play(mini((9, 0)), online_seats())
    assert not device.unlocked("first_win")
    assert "first_win" in device.play(mini((5, 4)))
    assert device.stats.achievements["first_win"] == 4.0
    assert "first_win" not in device.play(mini((5, 4)))


def test_games_10() -> None:
    device = Device()
    facts = [win_facts(), loss_facts(), tie_facts()]
    for i in range(9):
        assert "games_10" not in device.count(facts[i % 3])
    assert device.progress("games_10") == 9
    assert "games_10" in device.count(loss_facts())
    assert device.progress("games_10") == 10
    assert "games_10" not in device.count(loss_facts())
    assert device.progress("games_10") == 10


def test_games_100() -> None:
    device = Device()
    loss = loss_facts()
    for _ in range(99):
        assert "games_100" not in device.count(loss)
    assert device.progress("games_100") == 99
    assert "games_100" in device.count(loss)
    assert device.progress("games_100") == 100


# --- Each AI level beaten ----------------------------------------------------------------------

LEVELS = ["easy", "normal", "hard", "expert"]


@pytest.mark.parametrize("level", LEVELS, ids=[f"beat_{level}" for level in LEVELS])
def test_beat_level(level: str) -> None:
    aid = f"beat_{level}"
    device = Device()
    device.play(mini((4, 5)), level=level)  # a loss
    for other in LEVELS:
        if other != level:
            device.play(mini((9, 0)), level=other)
    assert not device.unlocked(aid) and device.progress(aid) == 0
    assert aid in device.play(mini((5, 4)), level=level)
    assert device.progress(aid) == 1
    assert aid not in device.play(mini((5, 4)), level=level)


# --- A win in each mode ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", NINE_MODES, ids=[f"win_{mode}" for mode in NINE_MODES])
def test_win_mode(mode: str) -> None:
    aid = f"win_{mode}"
    n = MODES[mode].rules.boxes
    device = Device()
    other = "quick" if mode == "mini" else "mini"
    device.play(box_game(mode, "2" * n * n))  # a loss in the mode
    device.play(box_game(other, "1" * MODES[other].rules.boxes ** 2))  # a win in another mode
    device.play(box_game(mode, "1" * n * n), online_seats())  # a win, but not against the AI
    assert not device.unlocked(aid)
    assert aid in device.play(box_game(mode, "1" * n * n))
    assert aid not in device.play(box_game(mode, "1" * n * n))


def test_practice_boards_are_no_mode_of_their_own() -> None:
    device = Device()
    device.play(box_game("practice_4x4", "1" * 16), practice_seats())
    assert not any(device.unlocked(f"win_{mode}") for mode in NINE_MODES)


# --- Overlap rules -----------------------------------------------------------------------------


def strategic(rule: str, owners: str = "1" * 81) -> Game:
    return box_game("strategic", owners, overlap=rule)


def test_rules_3() -> None:
    device = Device()
    device.play(strategic("independent"))
    device.play(strategic("consume"))
    assert device.progress("rules_3") == 2
    device.play(strategic("consume"))  # the same rule again
    device.play(strategic("exclusive", "2" * 81))  # a loss
    device.play(box_game("classic", "1" * 49))  # no overlap rule
    assert device.progress("rules_3") == 2 and not device.unlocked("rules_3")
    assert "rules_3" in device.play(box_game("big_squares", "1" * 81, overlap="exclusive"))
    assert device.progress("rules_3") == 3


def test_rules_13() -> None:
    device = Device()
    for i, rule in enumerate(RULES[:-1]):
        assert "rules_13" not in device.play(strategic(rule))
        assert device.progress("rules_13") == i + 1
    assert device.progress("rules_13") == 12
    assert "rules_13" in device.play(box_game("expert", "1" * 121, overlap=RULES[-1]))
    assert device.progress("rules_13") == 13


def test_hostile_takeover() -> None:
    device = Device()
    # A Takeover win with nothing of the AI's to take.
    assert facts_of(strategic("takeover")).taken_over == 0
    device.play(strategic("takeover"))
    # You take over the AI's three boxes in the 2x2 at (0,0) by completing box (1,1), but the
    # AI completes everything else and wins.
    lost = strategic("takeover", "2" * 10 + "1" + "2" * 70)
    assert facts_of(lost).taken_over == 3 and lost.winner == 2
    device.play(lost)
    assert not device.unlocked("hostile_takeover")
    # The AI completes box (0,0); you complete the rest, box (1,1) and the 2x2 at (0,0) with it.
    won = strategic("takeover", "2" + "1" * 80)
    assert facts_of(won).taken_over == 1
    assert "hostile_takeover" in device.play(won)
    assert "hostile_takeover" not in device.play(won)


# --- Streaks -----------------------------------------------------------------------------------

STREAKS = [3, 5, 10]


@pytest.mark.parametrize("n", STREAKS, ids=[f"streak_{n}" for n in STREAKS])
def test_streak(n: int) -> None:
    aid = f"streak_{n}"
    device = Device()
    win = win_facts()
    for _ in range(n - 1):
        device.count(win)
    assert device.progress(aid) == n - 1
    device.count(tie_facts())  # a tie ends the run
    device.count(win_facts())
    device.play(mini((9, 0)), local_seats())  # local games do not count, nor break a run
    for _ in range(n - 2):
        device.count(win)
    device.count(loss_facts())  # so does a loss
    assert device.progress(aid) == n - 1 and not device.unlocked(aid)
    for _ in range(n - 1):
        assert aid not in device.count(win)
    assert aid in device.count(win)
    assert device.progress(aid) == n
    assert aid not in device.count(win)


# --- Scoring feats -----------------------------------------------------------------------------


def test_shutout() -> None:
    device = Device()
    device.play(mini((8, 1)))
    device.play(mini((9, 0)), local_seats())
    assert "shutout" not in device.stats.achievements
    assert "shutout" in device.play(mini((9, 0)))
    assert "shutout" not in device.play(mini((9, 0)))


def test_landslide() -> None:
    device = Device()
    device.play(mini((5, 4)))
    assert not device.unlocked("landslide")
    assert "landslide" in device.play(mini((6, 3)))  # exactly twice the AI's points
    assert "landslide" not in device.play(mini((8, 1)))


def test_photo_finish() -> None:
    device = Device()
    device.play(mini((6, 3)))
    device.play(mini((4, 5)))  # lost by one
    assert not device.unlocked("photo_finish")
    assert "photo_finish" in device.play(mini((5, 4)))
    assert "photo_finish" not in device.play(mini((5, 4)))


def test_nine_pointer() -> None:
    device = Device()
    device.play(strategic("independent"))  # no 3x3 squares in Strategic
    assert not device.unlocked("nine_pointer")
    # Big Squares: you complete only box (2,2) - and with it the 2x2 at (1,1) and the 3x3 at
    # (0,0). A loss, but the square was captured.
    owners = "2" * 20 + "1" + "2" * 60
    facts = facts_of(box_game("big_squares", owners))
    assert facts.captured_by_size == {1: 1, 2: 1, 3: 1} and facts.outcome == "loss"
    assert "nine_pointer" in device.count(facts)
    assert "nine_pointer" not in device.count(facts)


def test_squares_500() -> None:
    device = Device()
    marathon = facts_of(box_game("marathon", "1" * 121))  # 121 boxes, all yours
    for games in range(1, 5):
        assert "squares_500" not in device.count(marathon)
        assert device.progress("squares_500") == 121 * games
    device.count(facts_of(box_game("marathon", "1" * 121), local_seats()))
    assert device.progress("squares_500") == 484
    assert "squares_500" in device.count(marathon)  # 605 squares
    assert device.progress("squares_500") == 500


def test_comeback() -> None:
    device = Device()
    # Classic: the AI completes the first 9 boxes, you the other 40: you were 9 behind.
    facts = facts_of(box_game("classic", "2" * 9 + "1" * 40))
    assert (facts.largest_deficit, facts.outcome) == (9, "win")
    device.count(facts)
    assert not device.unlocked("comeback")
    # The first 10: 0 : 10, then 39 : 10.
    facts = facts_of(box_game("classic", "2" * 10 + "1" * 39))
    assert (facts.largest_deficit, facts.my_score, facts.their_score) == (10, 39, 10)
    assert "comeback" in device.count(facts)
    assert "comeback" not in device.count(facts)


# --- Dice luck ---------------------------------------------------------------------------------

# Mini (d4, 24 edges), seat 1 rolls first: you roll 4 five times, the AI 1 four times.
FIVE_FOURS = [4, 1, 4, 1, 4, 1, 4, 1, 4]


def test_top_face_50() -> None:
    device = Device()
    fours = facts_of(edges_in_order("mini", FIVE_FOURS))
    assert fours.my_rolls == (4, 4, 4, 4, 4)
    # The AI's fours are not yours: you roll 1 five times, the AI 4 four times (and a 3).
    device.count(facts_of(edges_in_order("mini", [1, 4, 1, 4, 1, 4, 1, 4, 1, 3])))
    assert device.progress("top_face_50") == 0
    for games in range(1, 10):
        device.count(fours)
        assert device.progress("top_face_50") == 5 * games
    assert not device.unlocked("top_face_50")
    assert "top_face_50" in device.count(fours)
    assert device.progress("top_face_50") == 50


def test_top_face_of_every_die() -> None:
    # A d6 shows 6 at the top: Quick, 60 edges, you roll 6 six times and the AI 4 six times.
    device = Device()
    device.count(facts_of(edges_in_order("quick", [6, 4] * 6)))
    assert device.stats.top_face_rolls == 6
    assert device.stats.dice == {"6": 6}


def test_hot_hand() -> None:
    device = Device()
    # You roll 4, 4, 1, 4, 4: never three in a row.
    device.count(facts_of(edges_in_order("mini", [4, 1, 4, 1, 1, 2, 4, 2, 4, 1])))
    # The AI rolls four 4s in a row: they are not yours.
    device.count(facts_of(edges_in_order("mini", [1, 4, 1, 4, 1, 4, 1, 4, 1, 3])))
    assert not device.unlocked("hot_hand")
    assert "hot_hand" in device.count(facts_of(edges_in_order("mini", FIVE_FOURS)))
    assert "hot_hand" not in device.count(facts_of(edges_in_order("mini", FIVE_FOURS)))


def test_hot_hand_counts_the_roll_shown_not_the_face() -> None:
    # Mini (d4, 24 edges): you roll 3, 3, 4, 4 and a last 4 with 3 edges open, shown as a 3.
    game = edges_in_order("mini", [3, 2, 3, 2, 4, 2, 4, 1, 4])
    facts = facts_of(game)
    assert facts.my_rolls == (3, 3, 4, 4, 3)
    device = Device()
    assert "hot_hand" not in device.count(facts)
    assert device.progress("top_face_50") == 2


def test_low_roller() -> None:
    device = Device()
    # A win with rolls of up to 3 on the d4: a 3 is in the upper half.
    high = facts_of(box_game("mini", "1" * 9, max_roll={1: 3}))
    assert high.won and 3 in high.my_rolls
    device.count(high)
    # Low rolls only, but a loss (you never complete a box and roll 1 every time).
    low_loss = facts_of(box_game("mini", "2" * 9))
    assert set(low_loss.my_rolls) == {1} and low_loss.outcome == "loss"
    device.count(low_loss)
    device.play(box_game("standard", "1" * 25))  # a win without dice
    assert not device.unlocked("low_roller")
    low_win = facts_of(box_game("mini", "1" * 9, max_roll={1: 2}))
    assert low_win.won and max(low_win.my_rolls) == 2
    assert "low_roller" in device.count(low_win)
    assert "low_roller" not in device.count(low_win)


# --- Other players -----------------------------------------------------------------------------


def test_local_game() -> None:
    device = Device()
    device.play(mini((9, 0)))
    device.play(box_game("practice_2x2", "1111"), practice_seats())
    device.play(mini((9, 0)), online_seats())
    assert device.progress("local_game") == 0
    assert device.play(mini((4, 5)), local_seats()) == ["local_game"]
    assert device.play(mini((4, 5)), local_seats()) == []


def test_practice_game() -> None:
    device = Device()
    device.play(mini((9, 0)), local_seats())
    assert not device.unlocked("practice_game")
    assert device.play(box_game("practice_4x4", "2" * 16), practice_seats()) == ["practice_game"]
    assert device.play(box_game("practice_4x4", "1" * 16), practice_seats()) == []


def test_online_win() -> None:
    device = Device()
    device.play(mini((4, 5)), online_seats())  # a loss
    device.play(mini((9, 0)), online_seats(my_seat=2))  # 0 : 9 from seat 2
    device.play(mini((9, 0)), local_seats())
    device.play(mini((9, 0)))
    assert not device.unlocked("online_win")
    assert "online_win" in device.play(mini((5, 4)), online_seats())
    assert "online_win" not in device.play(mini((5, 4)), online_seats())


def test_a_win_by_forfeit_at_0_0_is_a_worldwide_win() -> None:
    # Rules notes, Forfeits: whatever the score, the game is won by the other player and counts
    # towards the achievements under Other players. Bob (seat 2) leaves before a box is drawn.
    game = Game.from_mode(MODES["mini"])
    game.roll(1)
    game.draw(Edge("h", 0, 0))
    game.resign(2)
    facts = facts_of(game, online_seats())
    assert (facts.my_score, facts.their_score, facts.outcome) == (0, 0, "win")
    device = Device()
    assert "online_win" in device.count(facts)
    assert device.progress("people_10") == 1
    # The one who left finished the game too, and lost it.
    bob = facts_of(game, online_seats(device=FRIEND, other=ME, my_seat=2), device=FRIEND)
    assert bob.outcome == "loss"
    bobs_device = Device()
    assert "online_win" not in bobs_device.count(bob)
    assert bobs_device.progress("people_10") == 1


def test_people_10() -> None:
    device = Device()
    for i in range(5):
        device.play(mini((5, 4)), local_seats())
        assert device.progress("people_10") == i + 1
    for i in range(4):
        device.play(mini((4, 5) if i % 2 else (5, 4)), online_seats())
    assert device.progress("people_10") == 9
    device.play(box_game("practice_2x2", "1111"), practice_seats())  # not a person
    device.play(mini((9, 0)))  # nor is the AI
    assert device.progress("people_10") == 9 and not device.unlocked("people_10")
    assert "people_10" in device.play(mini((4, 5)), online_seats())
    assert device.progress("people_10") == 10
    assert "people_10" not in device.play(mini((4, 5)), local_seats())
