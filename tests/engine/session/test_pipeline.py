"""The one apply pipeline (boxedin.engine.session.pipeline), as the engine service and a Same
Wi-Fi host both run it: who may act, what is refused and why, what a refused action leaves
alone, the move clock's timeout and time up, an online game's resignation as leaving, and what
a deadline that ran out does."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from boxedin.common.devices import device_hash
from boxedin.common.reasons import Refusal
from boxedin.engine.actions import Action, Draw, EndTurn, Resign, Roll, Timeout, Undo, edge_from_json
from boxedin.engine.codec import encode
from boxedin.engine.game import Game
from boxedin.engine.session import clock, online, pipeline
from boxedin.engine.session.pipeline import Applied, Due
from boxedin.engine.session.seats import COMPUTER, DEADLINE, Caller, Person
from boxedin.engine.session.setup import new_game
from boxedin.engine.session.table import Table

ME = device_hash("my-device-token-0123456789")
ANN = device_hash("ann-device-token-0123456789")
BOB = device_hash("bob-device-token-0123456789")
NOW = 1_800_000_000.0


def local_game(clock_seconds: int = 0, first: int = 1) -> tuple[Game, Table]:
    game, table = new_game(ME, mode="classic", opponent="local", first=first, clock_seconds=clock_seconds)
    clock.restart(game, table, NOW)  # as the engine service starts every game
    return game, table


def online_game(first: int = 1, via: str = "find_match") -> tuple[Game, Table]:
    return online.new_online_game(
        [(ANN, "Ann"), (BOB, "Bob")], mode="classic", overlap="", via=via, move_limit=120, grace=90, first=first
    )


def refused(call: Callable[[], object]) -> Refusal:
    with pytest.raises(Refusal) as refusal:
        call()
    return refusal.value


def apply(game: Game, table: Table, caller: Caller, action: Action, *, expected: int = -1, now: float = NOW) -> Applied:
    """The pipeline on a game that stands at seq 3."""
    return pipeline.apply(game, table, caller, action, expected_seq=expected, seq=3, now=now)


# --- reading an action ------------------------------------------------------------------------


def test_an_action_is_read_from_its_kind_and_for_a_draw_its_edge() -> None:
    assert pipeline.action_of("roll") == Roll()
    assert pipeline.action_of("end_turn") == EndTurn()
    assert pipeline.action_of("timeout") == Timeout()
    assert pipeline.action_of("resign") == Resign(0)  # the seat comes from who resigns
    assert pipeline.action_of("draw", ("h", 0, 1)) == Draw(edge_from_json(["h", 0, 1]))


def test_an_action_that_is_none_or_malformed_is_refused_malformed() -> None:
    assert (refused(lambda: pipeline.action_of(None)).reason, refused(lambda: pipeline.action_of(None)).message) == (
        "malformed",
        "the request names no action",
    )
    assert refused(lambda: pipeline.action_of("fly")).message == "'fly' is not an action"
    assert refused(lambda: pipeline.action_of("draw", ["x", 0, 0])).reason == "malformed"


# --- what is refused ----------------------------------------------------------------------------


def test_a_player_may_not_act_on_the_other_players_turn() -> None:
    game, table = online_game(first=1)
    before = table.to_json()
    refusal = refused(lambda: apply(game, table, Person(BOB), Roll()))
    assert (refusal.reason, refusal.message) == ("not_your_turn", "it is the other player's turn")
    assert table.to_json() == before and game.current_roll is None


def test_an_action_on_a_game_that_moved_on_is_stale() -> None:
    game, table = local_game()
    refusal = refused(lambda: apply(game, table, Person(ME), Roll(), expected=2))
    assert (refusal.reason, refusal.message) == ("stale", "the game has moved on (it is at 3, not 2)")
    apply(game, table, Person(ME), Roll(), expected=3)  # the seq it stands at is fine


class Commits:
    """The seq of a game as its commits move it on, each change noted as the engine service and
    a Same Wi-Fi host note it before they store it."""

    def __init__(self, game: Game, table: Table) -> None:
        self.table, self.seq = table, 0
        # Both players are there when an online game starts.
        for seat in (1, 2):
            online.set_connected(table, seat, True, NOW)

    def commit(self, applied: Applied | None) -> None:
        assert applied is not None
        online.note_change(self.table, applied.action, self.seq)
        self.seq += 1

    def act(self, game: Game, caller: Caller, action: Action, expected: int) -> Applied:
        applied = pipeline.apply(game, self.table, caller, action, expected_seq=expected, seq=self.seq, now=NOW)
        self.commit(applied)
        return applied


def test_an_opponent_who_drops_and_comes_back_leaves_the_other_players_move_fresh() -> None:
    """A change of presence changes no board: a move chosen before it was chosen on this board."""
    game, table = online_game(first=1)
    commits = Commits(game, table)
    commits.commit(pipeline.connect(game, table, 2, False, NOW))  # Bob drops: seq 1
    commits.commit(pipeline.connect(game, table, 2, True, NOW + 1))  # and is back: seq 2
    commits.commit(pipeline.connect(game, table, 2, False, NOW + 2))  # and drops again: seq 3
    assert commits.seq == 3
    commits.act(game, Person(ANN), Roll(), expected=0)  # Ann rolled on the board of seq 0
    assert game.current_roll is not None


def test_a_move_chosen_before_the_board_changed_is_stale_whatever_presence_did_since() -> None:
    game, table = online_game(first=1)
    commits = Commits(game, table)
    commits.act(game, Person(ANN), Roll(), expected=0)  # the board changes: seq 1
    commits.commit(pipeline.connect(game, table, 2, False, NOW))  # seq 2
    refusal = refused(lambda: commits.act(game, Person(ANN), Roll(), expected=0))
    assert (refusal.reason, refusal.message) == ("stale", "the game has moved on (it is at 2, not 0)")
    # Chosen on the board of seq 1, which only Bob's drop has followed: fresh. (Rolling again is
    # then refused by the rules, not as stale.)
    assert refused(lambda: commits.act(game, Person(ANN), Roll(), expected=1)).reason != "stale"


def test_a_seq_the_game_has_not_reached_is_stale() -> None:
    game, table = online_game(first=1)
    commits = Commits(game, table)
    commits.commit(pipeline.connect(game, table, 2, False, NOW))
    assert refused(lambda: commits.act(game, Person(ANN), Roll(), expected=5)).reason == "stale"


def test_no_action_is_possible_after_the_game_is_over() -> None:
    game, table = local_game()
    game.apply(Resign(1))
    refusal = refused(lambda: apply(game, table, Person(ME), Roll()))
    assert (refusal.reason, refusal.message) == ("game_over", "the game is over: no more actions are possible")


def test_a_timeout_while_the_move_clock_has_time_left_is_refused() -> None:
    game, table = local_game(clock_seconds=10)
    refusal = refused(lambda: apply(game, table, Person(ME), Timeout(), now=NOW + 5))
    assert (refusal.reason, refusal.message) == ("clock_running", "the move clock still has time left")
    assert refused(lambda: apply(*local_game(), Person(ME), Timeout())).reason == "clock_running"  # no clock at all


def test_a_refused_move_changes_nothing() -> None:
    game, table = local_game()
    before = table.to_json()
    refusal = refused(lambda: apply(game, table, Person(ME), Draw(edge_from_json(["h", 0, 0]))))
    assert refusal.reason == "roll_due"
    assert table.to_json() == before and game.history == []


# --- what is applied ----------------------------------------------------------------------------


def test_a_roll_is_applied_with_the_update_naming_the_roll_and_the_mover() -> None:
    game, table = local_game(first=2)
    applied = apply(game, table, Person(ME), Roll())
    assert applied.action == {"roll": game.current_roll, "by": 2} and applied.seat == 2
    assert not applied.finishes and not applied.time_up


def test_every_action_gives_the_player_to_move_a_full_clock() -> None:
    game, table = local_game(clock_seconds=10)
    apply(game, table, Person(ME), Roll(), now=NOW + 7)
    assert table.deadline == NOW + 17


def test_an_action_after_the_clock_ran_out_ends_the_turn_instead_time_up() -> None:
    game, table = local_game(clock_seconds=10)
    applied = apply(game, table, Person(ME), Roll(), now=NOW + 10)
    assert applied.time_up
    assert applied.action == {"timeout": True, "by": 1} and game.to_move == 2


def test_the_computer_is_not_timed() -> None:
    game, table = new_game(ME, mode="classic", opponent="ai", level="easy", first=2, clock_seconds=10)
    clock.restart(game, table, NOW)
    applied = apply(game, table, COMPUTER, Roll(), now=NOW + 100)
    assert not applied.time_up and applied.seat == 2


def test_resigning_an_online_game_is_leaving_it() -> None:
    game, table = online_game(first=1)
    applied = apply(game, table, Person(BOB), Resign(0))
    assert applied.left and applied.finishes
    assert applied.action == {"forfeit": "left", "by": 2} and game.winner == 1
    assert table.online_state is not None and table.online_state.forfeit_reason == "left"


def test_resigning_a_local_game_is_the_resignation_of_the_player_to_move() -> None:
    game, table = local_game(first=2)
    applied = apply(game, table, Person(ME), Resign(0))
    assert not applied.left and applied.finishes
    assert applied.action == {"resign": True, "by": 2} and game.winner == 1


def test_a_player_who_acts_online_is_connected_and_restarts_the_move_limit() -> None:
    game, table = online_game(first=1)
    state = table.online_state
    assert state is not None and state.away[0] is not None  # nobody has connected yet
    apply(game, table, Person(ANN), Roll(), now=NOW)
    assert state.away[0] is None and state.move_deadline == NOW + 120


# --- connections, leaving, rematches --------------------------------------------------------------


def test_a_connection_that_changes_nothing_is_no_update() -> None:
    game, table = online_game()
    assert pipeline.connect(game, table, 1, False, NOW) is None  # away already
    applied = pipeline.connect(game, table, 1, True, NOW)
    assert applied is not None and applied.action == {"connected": True, "by": 1} and not applied.finishes


def test_leaving_after_the_game_declines_the_rematch_once() -> None:
    game, table = online_game()
    ended = pipeline.leave(game, table, 1)
    assert ended is not None and ended.action == {"forfeit": "left", "by": 1} and ended.finishes
    declined = pipeline.leave(game, table, 2)
    assert declined is not None and declined.action == {"rematch": False, "by": 2} and not declined.finishes
    assert pipeline.leave(game, table, 1) is None  # nothing is left to decline


def test_a_rematch_both_asked_for_is_named_in_this_games_table() -> None:
    game, table = online_game(first=1)
    online.forfeit(game, table, 1, "move_limit")  # over, with both players still at the table
    asked, rematch = pipeline.ask_rematch(game, table, 1, True)
    assert asked.action == {"rematch": True, "by": 1} and rematch is None
    _, rematch = pipeline.ask_rematch(game, table, 2, True)
    assert rematch is not None and rematch[0].first == 2
    pipeline.name_next_game(table, "g_next")
    assert table.online_state is not None and table.online_state.next_game == "g_next"


# --- deadlines ----------------------------------------------------------------------------------


def test_a_lapsed_lease_makes_the_player_away_before_anything_else() -> None:
    game, table = online_game(via="room")  # no move limit: only the leases run out
    pipeline.connect(game, table, 1, True, NOW)
    pipeline.connect(game, table, 2, True, NOW)
    assert pipeline.due(game, table, NOW + 29) is None
    due = pipeline.due(game, table, NOW + 30)
    assert due == Due("lease", 1)
    applied = pipeline.fire(game, table, due, seq=3, now=NOW + 30)
    assert applied.action == {"connected": False, "by": 1} and not applied.finishes
    assert table.online_state is not None and table.online_state.away[0] == NOW + 30 + 90


def test_a_player_away_past_the_grace_forfeits() -> None:
    game, table = online_game()
    state = table.online_state
    assert state is not None
    pipeline.connect(game, table, 1, True, NOW)
    state.leases = [None, None]  # nobody's word to run out: only the grace
    away_until = state.away[1]
    assert away_until is not None
    due = pipeline.due(game, table, away_until)
    assert due == Due("forfeit", 2, "away")
    applied = pipeline.fire(game, table, due, seq=3, now=away_until)
    assert applied.action == {"forfeit": "away", "by": 2} and applied.finishes and game.winner == 1


def test_the_move_limit_forfeits_the_player_to_move() -> None:
    game, table = online_game(first=2)
    state = table.online_state
    assert state is not None and state.move_deadline is not None
    state.away, state.leases = [None, None], [None, None]
    limit = state.move_deadline
    applied = pipeline.forfeit_due(game, table, limit)
    assert applied is not None and applied.action == {"forfeit": "move_limit", "by": 2} and game.winner == 1
    assert pipeline.forfeit_due(game, table, limit + 1) is None  # the game is over


def test_a_move_clock_that_ran_out_ends_the_turn_as_the_deadline() -> None:
    game, table = local_game(clock_seconds=10)
    assert pipeline.due(game, table, NOW + 9) is None
    due = pipeline.due(game, table, NOW + 10)
    assert due == Due("clock", 1)
    applied = pipeline.fire(game, table, due, seq=3, now=NOW + 10)
    assert applied.action == {"timeout": True, "by": 1} and applied.seat == 1 and game.to_move == 2
    assert table.deadline == NOW + 20


def test_a_refused_undo_changes_nothing_and_the_update_after_it_is_the_move_clocks() -> None:
    """Issue 31 saw a refused Undo (nothing_to_undo) followed by an update. The refusal leaves the
    game and its table as they were (nothing to store, no seq): the update that follows is
    another change's, here the move clock running out a moment later (the deadline loop's), or
    the computer's turn, or another connection of the device acting in the same game."""
    game, table = local_game(clock_seconds=10)
    before = (encode(game), table.to_json())
    assert refused(lambda: apply(game, table, Person(ME), Undo(), expected=3, now=NOW + 9)).reason == "nothing_to_undo"
    assert (encode(game), table.to_json()) == before
    due = pipeline.due(game, table, NOW + 10)
    assert due == Due("clock", 1)
    assert pipeline.fire(game, table, due, seq=3, now=NOW + 10).action == {"timeout": True, "by": 1}
    # An Undo that comes after the clock ran out is no refused Undo: the turn ended (time_up).
    game, table = local_game(clock_seconds=10)
    applied = apply(game, table, Person(ME), Undo(), expected=3, now=NOW + 10)
    assert applied.time_up and applied.action == {"timeout": True, "by": 1}


def test_the_deadline_can_only_end_a_turn() -> None:
    game, table = local_game(clock_seconds=10)
    refusal = refused(lambda: apply(game, table, DEADLINE, Roll(), now=NOW + 10))
    assert (refusal.reason, refusal.message) == ("malformed", "the clock can only end a turn")
