"""Online games as the rule book's "Playing Online" has them, on the engine's pure parts: names,
room codes, who sits where, the move limit and the grace that lose the game when they run out,
leaving, and the rematch in which the player who went second goes first."""

from __future__ import annotations

import pytest

from boxedin.common.devices import device_hash
from boxedin.common.names import check_name
from boxedin.common.reasons import Refusal
from boxedin.engine.actions import Draw, GameError, Roll, Undo, edge_from_json
from boxedin.engine.game import Game
from boxedin.engine.session import online
from boxedin.engine.session.seats import Person, authorize
from boxedin.engine.session.table import Table
from boxedin.matchmaker.codes import ALPHABET, LENGTH, check_code, new_code

ANN = device_hash("ann-device-token-0123456789")
BOB = device_hash("bob-device-token-0123456789")
EVE = device_hash("eve-device-token-0123456789")


def online_game(via: str = "find_match", first: int = 1, mode: str = "classic") -> tuple[Game, Table]:
    return online.new_online_game(
        [(ANN, "Ann"), (BOB, "Bob")], mode=mode, overlap="", via=via, move_limit=120, grace=90, first=first
    )


def reason(call: object) -> str:
    with pytest.raises(Refusal) as refused:
        call()  # type: ignore[operator]
    return refused.value.reason


# --- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "kept"),
    [("Ann", "Ann"), ("  Ann Lee  ", "Ann Lee"), ("zoë_2-x", "zoë_2-x"), ("Дмитрий", "Дмитрий"), ("a" * 20, "a" * 20)],
)
def test_a_name_is_1_to_20_letters_digits_spaces_underscores_and_dashes_trimmed(typed: str, kept: str) -> None:
    assert check_name(typed) == kept


@pytest.mark.parametrize("typed", ["", "   ", "a" * 21, "<b>Ann</b>", "Ann&co", "Ann\tLee", "a'b", "Ann!"])
def test_anything_else_is_a_bad_name(typed: str) -> None:
    assert reason(lambda: check_name(typed)) == "bad_name"


# --- room codes -------------------------------------------------------------------------------


def test_a_room_code_is_six_characters_without_look_alikes() -> None:
    assert not set("0O1IL") & set(ALPHABET)
    codes = {new_code() for _ in range(2000)}
    assert all(len(code) == LENGTH and set(code) <= set(ALPHABET) for code in codes)
    assert len(codes) == 2000  # drawn at random, not counted up


def test_a_typed_code_is_upper_cased_without_spaces_and_dashes() -> None:
    assert check_code("ab c-d23") == "ABCD23"


@pytest.mark.parametrize("typed", ["", "ABCDE", "ABCDEFG", "ABCDE0", "ABCDEO", "ABCDE1", "ABCDEI", "ABCDEL", "ABC DE!"])
def test_a_malformed_code_is_a_bad_code(typed: str) -> None:
    assert reason(lambda: check_code(typed)) == "bad_code"


# --- starting an online game --------------------------------------------------------------------


def test_an_online_game_seats_two_devices_by_name_and_is_never_the_saved_game() -> None:
    _game, table = online_game()
    assert [(seat.device, seat.name, seat.kind) for seat in table.seats] == [
        (ANN, "Ann", "human"),
        (BOB, "Bob", "human"),
    ]
    assert table.opponent == "online" and not table.saved and table.computer_seat() is None


def test_there_is_no_undo_online() -> None:
    game, _ = online_game(mode="classic", first=1)
    game.apply(Roll(6))
    game.apply(Draw(edge_from_json(["h", 0, 0])))  # the turn goes on: five edges left
    with pytest.raises(GameError) as refused:
        game.apply(Undo())
    assert refused.value.code == "undo_not_allowed"


def test_find_match_games_have_the_move_limit_and_rooms_do_not() -> None:
    _, table = online_game("find_match")
    assert table.online_state is not None and table.online_state.move_limit == 120
    assert table.online_state.move_deadline is not None
    _, room = online_game("room")
    assert room.online_state is not None and room.online_state.move_limit == 0
    assert room.online_state.move_deadline is None


def test_nobody_plays_themself_or_a_practice_board_online() -> None:
    def start(seats: list[tuple[str, str]], mode: str = "classic") -> object:
        return lambda: online.new_online_game(seats, mode=mode, overlap="", via="room", move_limit=120, grace=90)

    assert reason(start([(ANN, "Ann"), (ANN, "Ann")])) == "bad_setup"
    assert reason(start([(ANN, "Ann"), (BOB, "Bob")], "practice_3x3")) == "bad_setup"
    assert reason(start([(ANN, "<i>"), (BOB, "Bob")])) == "bad_name"


def test_each_player_acts_only_for_their_own_seat_and_a_third_device_not_at_all() -> None:
    game, table = online_game(first=1)
    edge = Draw(edge_from_json(["h", 0, 0]))
    assert authorize(table, game, Person(ANN), edge) == 1
    assert reason(lambda: authorize(table, game, Person(BOB), edge)) == "not_your_turn"
    assert reason(lambda: authorize(table, game, Person(EVE), edge)) == "not_your_game"


def test_the_table_round_trips_with_what_the_server_keeps_online() -> None:
    _, table = online_game()
    assert table.online_state is not None
    table.online_state.rematch = [True, False]
    again = Table.from_json(table.to_json())
    assert again == table and again.online_state is not table.online_state


# --- running out, going away, leaving ----------------------------------------------------------


def test_a_player_who_lets_the_move_limit_run_out_loses_the_game() -> None:
    game, table = online_game(first=2)
    assert table.online_state is not None and table.online_state.move_deadline is not None
    deadline = table.online_state.move_deadline
    online.set_connected(table, 1, True, deadline - 100)
    online.set_connected(table, 2, True, deadline - 100)
    assert online.due_forfeit(game, table, deadline - 0.01) is None
    assert online.due_forfeit(game, table, deadline) == (2, "move_limit")
    assert online.forfeit(game, table, 2, "move_limit") == {"forfeit": "move_limit", "by": 2}
    assert game.over and game.winner == 1 and game.resigned == 2
    assert table.next_deadline() is None  # nothing runs out in a finished game


def test_every_move_starts_the_limit_again() -> None:
    game, table = online_game(first=1, mode="standard")
    assert table.online_state is not None
    game.apply(Draw(edge_from_json(["h", 0, 0])))
    online.restart_move_limit(game, table, 1000.0)
    assert table.online_state.move_deadline == 1120.0


def test_a_player_who_is_away_past_the_grace_loses_and_one_back_in_time_does_not() -> None:
    game, table = online_game("room")
    online.set_connected(table, 1, True, 0.0)
    online.set_connected(table, 2, True, 0.0)
    assert table.next_deadline() == 30.0  # a room game with both here: only the gateways' word runs out
    online.keep_connected(table, 1, 100.0)
    assert online.set_connected(table, 2, False, 100.0)
    assert not online.set_connected(table, 2, False, 150.0)  # still away: the grace does not restart
    assert table.online_state is not None and table.online_state.away == [None, 190.0]
    assert online.view(table, game, 130.0)["away_remaining_ms"] == [None, 60_000]  # type: ignore[index]
    assert online.set_connected(table, 2, True, 180.0)
    assert online.due_forfeit(game, table, 200.0) is None
    online.set_connected(table, 2, False, 300.0)
    assert online.due_forfeit(game, table, 390.0) == (2, "away")


def test_a_player_who_never_connects_is_away_from_the_start() -> None:
    game, table = online_game("room")
    assert online.view(table, game, table.created)["connected"] == [False, False]  # type: ignore[index]
    assert table.next_deadline() == table.created + 90


def test_leaving_a_running_game_gives_it_to_the_other_player() -> None:
    game, table = online_game()
    online.forfeit(game, table, 1, "left")
    view = online.view(table, game, 0.0)
    assert game.winner == 2 and view is not None and view["forfeit"] == {"player": 1, "reason": "left"}


# --- rematch ------------------------------------------------------------------------------------


def test_a_rematch_starts_when_both_asked_and_the_player_who_went_second_goes_first() -> None:
    game, table = online_game(first=1)
    assert reason(lambda: online.ask_rematch(game, table, 1, True)) == "not_over"
    # Over by the move limit: both players are still at the table.
    online.forfeit(game, table, 2, "move_limit")
    online.ask_rematch(game, table, 1, True)
    assert not online.both_asked(table)
    assert online.ask_rematch(game, table, 2, True) == {"rematch": True, "by": 2}
    assert online.both_asked(table)
    next_game, next_table = online.rematch_game(game, table)
    assert next_game.first == 2 and next_game.to_move == 2
    assert [s.name for s in next_table.seats] == ["Ann", "Bob"] and next_table.online == "find_match"
    assert next_game.mode is not None and next_game.mode.id == "classic"


def test_a_declined_rematch_is_over() -> None:
    game, table = online_game()
    online.forfeit(game, table, 1, "move_limit")
    online.ask_rematch(game, table, 2, True)
    online.ask_rematch(game, table, 1, False)
    assert table.online_state is not None and table.online_state.declined == 1
    assert reason(lambda: online.ask_rematch(game, table, 2, True)) == "rematch_over"


@pytest.mark.parametrize("gone", ["away", "left"], ids=["after a grace that ran out", "after leave"])
def test_after_a_player_has_gone_for_good_there_is_no_rematch(gone: str) -> None:
    # Bob did not come back in time, or left: he is not there to play again. Neither may ask.
    game, table = online_game("room")
    online.forfeit(game, table, 2, gone)
    assert reason(lambda: online.ask_rematch(game, table, 1, True)) == "player_gone"
    assert reason(lambda: online.ask_rematch(game, table, 2, True)) == "player_gone"
    assert table.online_state is not None and table.online_state.rematch == [False, False]
    assert not online.both_asked(table)


def test_after_a_move_limit_that_ran_out_a_rematch_may_be_asked_for() -> None:
    game, table = online_game()
    online.forfeit(game, table, 2, "move_limit")
    assert online.ask_rematch(game, table, 1, True) == {"rematch": True, "by": 1}


def test_only_online_games_have_a_rematch() -> None:
    from boxedin.engine.session.setup import new_game

    game, table = new_game(ANN, mode="classic", opponent="local")
    assert online.view(table, game, 0.0) is None
    assert reason(lambda: online.online_state(table)) == "not_online"


def test_a_connected_player_nobody_vouches_for_becomes_away() -> None:
    game, table = online_game("room")
    online.set_connected(table, 1, True, 0.0)
    online.set_connected(table, 2, True, 0.0)
    assert table.next_deadline() == 30.0  # the leases, renewed by the gateways
    assert online.keep_connected(table, 1, 20.0)
    assert online.lapsed_lease(game, table, 29.0) is None
    assert online.lapsed_lease(game, table, 30.0) == 2  # Bob's gateway said nothing for 30 s
    online.set_connected(table, 2, False, 30.0)
    assert not online.keep_connected(table, 2, 31.0)  # an away player has no lease to keep
    assert table.next_deadline() == 50.0  # Ann's lease; Bob's grace runs to 120
    assert online.view(table, game, 30.0)["connected"] == [True, False]  # type: ignore[index]


def test_a_renewal_that_comes_after_a_connections_goodbye_does_not_keep_it() -> None:
    """A gateway's round of renewals is sent with the connections it holds; a page that closes
    (and one that reconnected just before, on a new connection) may say goodbye before the
    round arrives. The round renews only what the seat still holds."""
    game, table = online_game("room")
    online.set_connected(table, 1, True, 0.0, "old")
    online.set_connected(table, 2, True, 0.0)
    online.set_connected(table, 1, True, 1.0, "new")  # the socket dropped, and came back
    assert not online.set_connected(table, 1, False, 1.0, "old")  # the old one's goodbye
    assert not online.keep_connected(table, 1, 1.5, "old")  # the round sent before it
    assert online.keep_connected(table, 1, 1.5, "new")
    assert online.set_connected(table, 1, False, 2.0, "new")  # the page closed: away at once
    assert online.view(table, game, 2.0)["connected"] == [False, True]  # type: ignore[index]


# --- connections ----------------------------------------------------------------------------------


def test_a_player_is_away_only_when_no_connection_of_theirs_follows_the_game() -> None:
    game, table = online_game("room")
    assert online.set_connected(table, 2, True, 0.0, "first tab")
    assert not online.set_connected(table, 2, True, 1.0, "second tab")  # nothing anyone sees
    assert not online.set_connected(table, 2, False, 2.0, "second tab")  # the first still follows
    assert online.view(table, game, 2.0)["connected"] == [False, True]  # type: ignore[index]
    assert online.set_connected(table, 2, False, 3.0, "first tab")  # the last one: away
    assert table.online_state is not None and table.online_state.away[1] == 93.0


def test_a_second_tabs_close_leaves_the_lease_of_the_first() -> None:
    game, table = online_game("room")
    online.set_connected(table, 2, True, 0.0, "first tab")
    online.set_connected(table, 2, True, 10.0, "second tab")
    online.set_connected(table, 2, False, 11.0, "second tab")
    assert table.online_state is not None and table.online_state.leases[1] == 30.0
    assert online.lapsed_lease(game, table, 29.0) is None
    assert online.lapsed_lease(game, table, 30.0) == 2  # nobody vouched for the first tab since


def test_a_reconnect_within_the_settle_time_changes_nothing_anyone_sees() -> None:
    game, table = online_game("room")
    assert table.online_state is not None
    table.online_state.settle = 1.0
    online.set_connected(table, 2, True, 0.0, "a")
    for moment in range(1, 50):
        # A device that drops and comes back every half second: no drop or return is committed.
        assert not online.set_connected(table, 2, False, moment, "a")
        assert not online.set_connected(table, 2, True, moment + 0.5, "a")
    assert online.set_connected(table, 2, False, 60.0, "a") is False
    assert online.lapsed_lease(game, table, 60.5) is None
    assert online.lapsed_lease(game, table, 61.0) == 2  # one second without a return: away


def test_a_device_holds_a_bounded_number_of_connections_on_a_game() -> None:
    _game, table = online_game("room")
    for n in range(online.MOST_CONNECTIONS + 10):
        online.set_connected(table, 2, True, float(n), f"tab {n}")
    assert table.online_state is not None
    connections = table.online_state.connections[1]
    assert len(connections) == online.MOST_CONNECTIONS and "tab 0" not in connections
