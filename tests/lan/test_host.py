"""The host's game (boxedin.lan.host): every action checked as the engine service checks an
online game's, a refused one changing nothing; an away joiner losing when the grace runs out
(and not before); leaving, after which there is no rematch; a rematch of a finished game in which
the other player goes first."""

from __future__ import annotations

import time

import pytest

from boxedin.common.reasons import Refusal
from boxedin.gateway.server_frames import server_frame
from boxedin.lan.host import HOST, JOINER, HostedGame, Started
from boxedin.tools.smoke import open_edges


def test_a_refused_action_changes_nothing() -> None:
    game = HostedGame("mini", "", ("Ann", "Bob"))
    before = game.state_frame()
    waiting = JOINER if game.game.to_move == HOST else HOST
    for seat, kind, edge, code in (
        (waiting, "roll", None, "not_your_turn"),
        (3 - waiting, "draw", ["h", 0, 0], "roll_due"),
        (3 - waiting, "undo", None, "nothing_to_undo"),
        (3 - waiting, "timeout", None, "clock_running"),
        (3 - waiting, "draw", ["x", 0, 0], "malformed"),
    ):
        with pytest.raises(Refusal) as refused:
            game.act(seat, kind, game.id, edge=edge)
        assert refused.value.reason == code
    with pytest.raises(Refusal, match="moved on"):
        game.act(3 - waiting, "roll", game.id, expected_seq=5)
    with pytest.raises(Refusal) as other_game:
        game.act(3 - waiting, "roll", "lan_other")
    assert other_game.value.reason == "no_game"
    assert game.state_frame()["game"] == before["game"]
    server_frame(before)  # the gateway's own state frame


def test_an_away_joiner_loses_when_the_grace_runs_out() -> None:
    game = HostedGame("mini", "", ("Ann", "Bob"), grace=90)
    (away,) = game.connection(JOINER, False)
    assert isinstance(away, dict) and away["action"] == {"connected": False, "by": JOINER}
    server_frame(away)
    now = time.time()
    assert game.due(now + 60) == []
    (forfeit,) = game.due(now + 91)
    assert isinstance(forfeit, dict) and forfeit["action"] == {"forfeit": "away", "by": JOINER}
    assert game.game.over and game.game.winner == HOST
    assert game.connection(JOINER, True) == []  # nothing left to come back to


def test_a_joiner_back_within_the_grace_plays_on() -> None:
    game = HostedGame("mini", "", ("Ann", "Bob"), grace=90)
    game.connection(JOINER, False)
    (back,) = game.connection(JOINER, True)
    assert isinstance(back, dict) and back["action"] == {"connected": True, "by": JOINER}
    assert game.due(time.time() + 1000) == [] and not game.game.over


def test_leaving_gives_the_game_away_and_leaves_no_rematch() -> None:
    game = HostedGame("mini", "", ("Ann", "Bob"))
    (left,) = game.leave(HOST, game.id)
    assert isinstance(left, dict) and left["action"] == {"forfeit": "left", "by": HOST}
    assert game.game.winner == JOINER
    # The host has gone for good: neither may ask for a rematch, as online (player_gone).
    for seat in (JOINER, HOST):
        with pytest.raises(Refusal) as refused:
            game.rematch(seat, game.id, True)
        assert refused.value.reason == "player_gone"


def play_to_the_end(game: HostedGame) -> None:
    """The player to move rolls at the start of a turn, else draws the first open edge."""
    while not game.game.over:
        state = game.state_frame()["game"]
        seat = state["to_move"]
        if state["phase"] == "roll":
            game.act(seat, "roll", game.id)
        else:
            game.act(seat, "draw", game.id, edge=open_edges(state)[0])


def test_a_rematch_of_a_finished_game_swaps_the_first_move() -> None:
    game = HostedGame("mini", "", ("Ann", "Bob"))
    first, old = game.game.first, game.id
    play_to_the_end(game)
    (asked,) = game.rematch(JOINER, old, True)
    assert isinstance(asked, dict) and asked["action"] == {"rematch": True, "by": JOINER}
    named, started = game.rematch(HOST, old, True)
    assert isinstance(named, dict) and named["changes"]["set"]["online"]["next_game"] == game.id
    assert isinstance(started, Started) and started.game == game.id != old
    assert game.game.first == 3 - first and game.seq == 0 and not game.game.over
