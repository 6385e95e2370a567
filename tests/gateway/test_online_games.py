"""Online play over real websockets, through the gateway, matchmaker and engine processes (the
rule book, "Playing Online"; docs/protocol.md, Online play): rooms and Find Match, the game for
both players, reconnecting within the grace and not, the move limit, leaving, rematches, and
every bad input answered with its documented error and nothing changed."""

from __future__ import annotations

import json
import math
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from boxedin.common.keys import Keys
from boxedin.supervisor.launcher import Stack, free_port

from stacks import make_stack
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

# Short enough to run out in a test, long enough for test players who act at once.
GRACE_SECONDS = 4
MOVE_LIMIT_SECONDS = 6
QUICK_MODE = "mini"  # 3x3 boxes, a four-sided die: the shortest online game
LEASE_SECONDS = 5
TRIES_PER_ADDRESS = 40  # wrong guesses at room codes in a minute from one address
SETTLE_SECONDS = 1.0  # the default: a player whose last connection closed is away after it
FLAPS = 12  # reconnects of a flapping opponent: each committed a drop and a return before


class Player(Browser):
    """A test browser that plays online: it knows its seat from ``matched``."""

    def __init__(
        self, base_url: str, name: str, device: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(base_url, device, headers)
        self.name = name
        self.seat = 0
        self.matched: list[dict[str, Any]] = []
        self.presence: list[dict[str, Any]] = []

    def _apply(self, frame: dict[str, Any]) -> None:
        super()._apply(frame)
        if frame["type"] == "matched":
            self.seat = frame["seat"]
            self.matched.append(frame)
        elif frame["type"] == "presence":
            self.presence.append(frame)

    def my_turn(self) -> bool:
        state = self.state
        return state is not None and not state["over"] and state["to_move"] == self.seat

    def enter(self) -> dict[str, Any]:
        """Says hello and opens the online menu."""
        self.hello()
        return self.request(type="online_menu", open=True)

    def until_state_of(self, game: str) -> dict[str, Any]:
        """Receives until the whole state of ``game`` has come (after ``matched``)."""
        return self.wait_until(lambda state: state["game"] == game, timeout=15)

    def error_of(self, **frame: Any) -> str:
        reply = self.request(**frame)
        assert reply["type"] == "error", reply
        return str(reply["code"])


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    stack = make_stack(
        "online",
        worker=False,
        extra_env={
            "BOXEDIN_ONLINE_GRACE_SECONDS": str(GRACE_SECONDS),
            "BOXEDIN_MOVE_LIMIT_SECONDS": str(MOVE_LIMIT_SECONDS),
            "BOXEDIN_USE_CELERY": "false",
            # Every test player joins from 127.0.0.1, and only wrong guesses count: the tests
            # together make fewer than this in a minute, but for the one that makes them all.
            "BOXEDIN_JOIN_TRIES_PER_ADDRESS": str(TRIES_PER_ADDRESS),
            # Gateways vouch for their players twice a second, and a word holds 5 s.
            "BOXEDIN_ONLINE_KEEP_SECONDS": "0.5",
            "BOXEDIN_ONLINE_LEASE_SECONDS": str(LEASE_SECONDS),
            "BOXEDIN_ONLINE_SETTLE_SECONDS": str(SETTLE_SECONDS),
        },
    )
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()


@pytest.fixture
def url(stack: Stack) -> str:
    return stack.url()


def redis_of(stack: Stack) -> redis.Redis:
    return redis.Redis.from_url(str(stack.redis_url))


def paired_through_a_room(url: str, mode: str = QUICK_MODE, **room: Any) -> tuple[Player, Player]:
    """Ann makes a room, Bob joins it: both follow the game."""
    ann, bob = Player(url, "Ann"), Player(url, "Bob")
    ann.enter()
    bob.enter()
    made = ann.request(type="create_room", mode=mode, name=ann.name, **room)
    assert made["type"] == "room"
    joined = bob.request(type="join_room", code=made["code"], name=bob.name)
    assert joined["type"] == "matched" and joined["seat"] == 2 and joined["via"] == "room"
    game = joined["game"]
    bob.until_state_of(game)
    ann.until_state_of(game)
    both_here(ann, bob)
    return ann, bob


def paired_through_find_match(url: str, mode: str = QUICK_MODE) -> tuple[Player, Player]:
    ann, bob = Player(url, "Ann"), Player(url, "Bob")
    ann.enter()
    bob.enter()
    assert ann.request(type="find_match", mode=mode, name=ann.name)["type"] == "match_waiting"
    joined = bob.request(type="find_match", mode=mode, name=bob.name)
    assert joined["type"] == "matched" and joined["via"] == "find_match"
    bob.until_state_of(joined["game"])
    ann.until_state_of(joined["game"])
    both_here(ann, bob)
    return ann, bob


def both_here(*players: Player) -> None:
    for player in players:
        player.wait_until(lambda state: state["online"]["connected"] == [True, True])


def play_out(ann: Player, bob: Player) -> dict[str, Any]:
    """Whoever is to move plays; the other follows every update."""
    while ann.state is not None and not ann.state["over"]:
        mover, other = (ann, bob) if ann.my_turn() else (bob, ann)
        assert mover.my_turn(), "one of the two is to move"
        mover.play_turn()
        other.wait_until(lambda state, seq=mover.seq: state["seq"] >= seq)
    assert ann.state is not None and bob.state == ann.state
    return ann.state


# --- playing with friends ---------------------------------------------------------------------


def test_a_whole_game_through_a_room_code(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    state = ann.state
    assert state is not None
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"] and state["opponent"] == "online"
    assert state["online"]["via"] == "room" and state["online"]["move_limit"] == 0
    assert ann.seat == 1 and bob.seat == 2
    final = play_out(ann, bob)
    assert final["over"] and final["winner"] in (0, 1, 2) and final["online"]["forfeit"] is None
    assert sum(final["scores"]) > 0


def test_the_creator_picks_the_mode_and_overlap_rule(url: str) -> None:
    ann, _bob = paired_through_a_room(url, mode="strategic", overlap="territory")
    assert ann.state is not None and (ann.state["mode"], ann.state["overlap"]) == ("strategic", "territory")


def test_an_online_game_has_no_undo(url: str) -> None:
    ann, bob = paired_through_a_room(url, mode="classic")
    # A turn with a roll of 2 or more: after one edge the player is still to move (a roll of 1
    # ends the turn with its edge, and an undo would be another player's).
    for _ in range(30):
        mover, other = (ann, bob) if ann.my_turn() else (bob, ann)
        mover.act(type="roll")
        assert mover.state is not None
        if mover.state["roll"] >= 2:
            break
        mover.play_turn()
        seq = mover.seq
        other.wait_until(lambda state: state["seq"] >= seq)  # noqa: B023 - used at once
    else:
        raise AssertionError("thirty rolls of 1 in a row")
    mover.play_turn()
    assert mover.state is not None and not mover.state["can_undo"] and mover.my_turn()
    assert mover.error_of(type="undo", game=mover.game_id) == "undo_not_allowed"


def test_online_games_are_not_the_saved_game(url: str) -> None:
    ann, _bob = paired_through_a_room(url)
    assert ann.request(type="hello", device=ann.device)["saved"] is None


# --- Find Match ---------------------------------------------------------------------------------


def test_find_match_pairs_the_next_player_in_the_same_mode_only(url: str) -> None:
    ann, bob, cat = Player(url, "Ann"), Player(url, "Bob"), Player(url, "Cat")
    for player in (ann, bob, cat):
        player.enter()
    assert ann.request(type="find_match", mode="mini", name="Ann")["type"] == "match_waiting"
    assert cat.request(type="find_match", mode="quick", name="Cat")["type"] == "match_waiting"
    joined = bob.request(type="find_match", mode="mini", name="Bob")
    assert joined["type"] == "matched" and joined["seat"] == 2
    game = ann.until_state_of(joined["game"])
    assert game["online"]["via"] == "find_match" and game["online"]["move_limit"] == MOVE_LIMIT_SECONDS
    assert ann.matched[-1]["seat"] == 1 and ann.matched[-1]["game"] == joined["game"]
    # Cat, in another mode, still waits, and can stop.
    assert cat.request(type="cancel_match")["cancelled"] is True
    assert cat.request(type="cancel_match")["cancelled"] is False
    assert cat.request(type="online_menu", open=True)["waiting"] is None


def test_a_whole_game_through_find_match(url: str) -> None:
    ann, bob = paired_through_find_match(url)
    final = play_out(ann, bob)
    assert final["over"] and final["online"]["forfeit"] is None


def test_a_player_who_lets_the_move_limit_run_out_loses(url: str) -> None:
    ann, _bob = paired_through_find_match(url)
    assert ann.state is not None
    to_move = ann.state["to_move"]
    final = ann.wait_until(lambda state: state["over"], timeout=MOVE_LIMIT_SECONDS + 10)
    assert final["online"]["forfeit"] == {"player": to_move, "reason": "move_limit"}
    assert final["winner"] == 3 - to_move and final["resigned"] == to_move
    assert ann.updates[-1]["action"] == {"forfeit": "move_limit", "by": to_move}


def test_a_device_in_a_running_game_cannot_look_for_another(url: str) -> None:
    ann, _bob = paired_through_a_room(url)
    assert ann.error_of(type="find_match", mode="mini", name="Ann") == "in_game"
    assert ann.error_of(type="create_room", mode="mini", name="Ann") == "in_game"


# --- lost connections -----------------------------------------------------------------------------


def test_closing_the_page_and_choosing_online_again_in_time_brings_you_back(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    game = ann.game_id
    bob.close()
    away = ann.wait_until(lambda state: state["online"]["connected"] == [True, False])
    assert 0 < away["online"]["away_remaining_ms"][1] <= GRACE_SECONDS * 1000
    again = Player(url, "Bob", device=bob.device)
    again.hello()
    status = again.request(type="online_menu", open=True)
    assert status["game"] == game
    again.until_state_of(game)
    assert again.seat == 2 and again.matched[-1]["game"] == game
    ann.wait_until(lambda state: state["online"]["connected"] == [True, True])
    final = play_out(ann, again)
    assert final["online"]["forfeit"] is None


def test_the_menu_of_a_reopened_page_is_told_the_running_game_and_its_grace_without_coming_back(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    game = ann.game_id
    bob.close()
    ann.wait_until(lambda state: state["online"]["connected"] == [True, False])
    again = Player(url, "Bob", device=bob.device)
    again.hello()
    running = again.request(type="running_online")
    assert running["game"] == game and running["seat"] == 2
    assert running["state"]["game"] == game and running["state"]["players"][1]["name"] == "Bob"
    assert 0 < running["state"]["online"]["away_remaining_ms"][1] <= GRACE_SECONDS * 1000
    # Asking is not coming back: Bob stays away, and the grace runs out.
    final = ann.wait_until(lambda state: state["over"], timeout=GRACE_SECONDS + 10)
    assert final["online"]["forfeit"] == {"player": 2, "reason": "away"}
    after = again.request(type="running_online")
    assert (after["type"], after["game"], after["seat"], after["state"]) == ("running_online", None, None, None)


def test_a_device_with_no_online_game_is_told_there_is_none(url: str) -> None:
    cat = Player(url, "Cat")
    cat.hello()
    reply = cat.request(type="running_online")
    assert (reply["type"], reply["game"], reply["seat"], reply["state"]) == ("running_online", None, None, None)


def test_a_player_away_past_the_grace_loses(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    bob.close()
    final = ann.wait_until(lambda state: state["over"], timeout=GRACE_SECONDS + 10)
    assert final["online"]["forfeit"] == {"player": 2, "reason": "away"} and final["winner"] == 1
    # Bob has gone for good: a rematch ask is refused, and nothing changed (the same seq after it).
    seq = ann.seq
    reply = ann.request(type="rematch", game=ann.game_id, want=True)
    assert (reply["type"], reply["code"]) == ("error", "player_gone")
    assert reply["message"] == "a player left or did not come back in time, so there is no rematch"
    assert ann.request(type="game_result", game=ann.game_id)["type"] == "result"
    assert ann.seq == seq and ann.state is not None and ann.state["online"]["rematch"] == [False, False]


def test_a_player_whose_gateway_dies_is_away_and_loses_after_the_grace(stack: Stack, url: str) -> None:
    port = free_port()
    doomed = stack.start_gateway(port)
    stack.wait_ready(port)
    ann, bob = Player(url, "Ann"), Player(f"http://127.0.0.1:{port}", "Bob")
    ann.enter()
    bob.enter()
    code = ann.request(type="create_room", mode=QUICK_MODE, name="Ann")["code"]
    bob.request(type="join_room", code=code, name="Bob")
    ann.wait_until(lambda state: state["online"]["connected"] == [True, True])
    stack.kill_process(doomed)  # SIGKILL: the gateway says nothing to anyone
    away = ann.wait_until(lambda state: state["online"]["connected"] == [True, False], timeout=15)
    assert ann.updates[-1]["action"] == {"connected": False, "by": 2}
    assert away["online"]["away_remaining_ms"][1] > 0
    final = ann.wait_until(lambda state: state["over"], timeout=GRACE_SECONDS + 10)
    assert final["online"]["forfeit"] == {"player": 2, "reason": "away"}


def test_a_reconnect_with_the_last_seq_goes_on_where_it_was(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    game, seq = bob.game_id, bob.seq
    bob.close()
    ann.wait_until(lambda state: state["online"]["connected"] == [True, False])
    again = Player(url, "Bob", device=bob.device)
    again.seat, again.state, again.seq = 2, bob.state, seq
    again.hello(game=game, seq=seq)
    # The updates it missed come in order (Bob away), then its own return.
    again.wait_until(lambda state: state["seq"] > seq + 1 and state["online"]["connected"] == [True, True])
    assert [update["action"] for update in again.updates[-2:]] == [
        {"connected": False, "by": 2},
        {"connected": True, "by": 2},
    ]


def stored_seat(stack: Stack, game: str, seat: int) -> dict[str, Any]:
    """What the engine keeps of a seat's presence in the game's stored record: whether it is
    away, its lease, and the connections of its device that follow the game."""
    client = redis_of(stack)
    try:
        raw = client.hget(Keys(stack.key_prefix).game(game), "record")
    finally:
        client.close()
    assert isinstance(raw, bytes)
    state = json.loads(raw)["online_state"]
    return {
        "away": state["away"][seat - 1],
        "lease": state["leases"][seat - 1],
        "connections": len(state["connections"][seat - 1]),
    }


def eventually(condition: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


def presence_changes(player: Player, since: int) -> list[dict[str, Any]]:
    """The changes of presence among the updates the player got after the first ``since``."""
    return [update["action"] for update in player.updates[since:] if "connected" in update["action"]]


def test_a_second_tab_closing_leaves_the_player_there(stack: Stack, url: str) -> None:
    """A player is away only when no connection of theirs follows the game."""
    ann, bob = paired_through_a_room(url)
    game, seq, since = ann.game_id, ann.seq, len(ann.updates)
    tab = Player(url, "Bob", device=bob.device)
    tab.hello(game=game)
    eventually(lambda: stored_seat(stack, game, 2)["connections"] == 2)
    tab.close()
    eventually(lambda: stored_seat(stack, game, 2)["connections"] == 1)
    # Bob is not away and no grace is pending: his seat holds his gateway's lease, not the
    # short one of a player whose last connection closed.
    seat = stored_seat(stack, game, 2)
    assert seat["away"] is None and seat["lease"] - time.time() > SETTLE_SECONDS + 1
    # Bob's first connection keeps playing, and Ann saw no change of presence at all.
    while not bob.my_turn():
        ann.play_turn()
        bob.wait_until(lambda state: state["seq"] >= ann.seq)
    bob.play_turn()
    ann.wait_until(lambda state: state["seq"] >= bob.seq)
    assert ann.state is not None and ann.state["online"]["connected"] == [True, True]
    assert ann.seq > seq and presence_changes(ann, since) == []
    # Closing the last one starts the grace.
    bob.close()
    away = ann.wait_until(lambda state: state["online"]["connected"] == [True, False])
    assert 0 < away["online"]["away_remaining_ms"][1] <= GRACE_SECONDS * 1000
    assert presence_changes(ann, since) == [{"connected": False, "by": 2}]


def test_a_flapping_opponent_commits_a_bounded_number_of_presence_changes(stack: Stack, url: str) -> None:
    """An opponent who reconnects again and again commits no change of presence while each
    reconnect comes within the settle time, and the honest player's moves are never stale."""
    ann, bob = paired_through_a_room(url)
    game = ann.game_id
    while not (ann.my_turn() and ann.state is not None and ann.state["phase"] == "roll"):
        (bob if bob.my_turn() else ann).play_turn()
        ann.wait_until(lambda state: state["seq"] >= max(ann.seq, bob.seq))
        bob.wait_until(lambda state: state["seq"] >= ann.seq)
    since, chosen_at = len(ann.updates), ann.seq
    bob.close()
    started = time.monotonic()
    for _ in range(FLAPS):
        flap = Player(url, "Bob", device=bob.device)
        flap.hello(game=game)
        flap.close()
    ann.wait_until(lambda state: state["online"]["connected"] == [True, False], timeout=SETTLE_SECONDS + 10)
    elapsed = time.monotonic() - started
    changes = presence_changes(ann, since)
    # At most a drop and a return per settle time, and this time the drop after the last close.
    assert len(changes) <= 2 * math.ceil(elapsed / SETTLE_SECONDS) + 1, (changes, elapsed)
    assert len(changes) < FLAPS and changes[-1] == {"connected": False, "by": 2}
    # Ann's move, chosen on the board she saw before all of it, is not stale.
    assert ann.state is not None and ann.state["phase"] == "roll"
    ann.send(game=game, seq=chosen_at, type="roll")
    ann.wait_until(lambda state: state["phase"] != "roll")
    assert ann.updates[-1]["action"]["by"] == ann.seat and "roll" in ann.updates[-1]["action"]
    assert ann.errors == []


# --- leaving and rematches ------------------------------------------------------------------------


def test_leaving_a_running_game_gives_it_to_the_other_player(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    assert bob.request(type="leave", game=bob.game_id)["type"] == "ack"
    final = ann.wait_until(lambda state: state["over"])
    assert final["online"]["forfeit"] == {"player": 2, "reason": "left"} and final["winner"] == 1


def test_after_leave_neither_player_can_ask_for_a_rematch(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    bob.request(type="leave", game=bob.game_id)
    final = ann.wait_until(lambda state: state["over"])
    assert ann.error_of(type="rematch", game=ann.game_id, want=True) == "player_gone"
    assert bob.error_of(type="rematch", game=bob.game_id, want=True) == "player_gone"
    # Nothing was stored: the whole state, read again from the server, has the same seq and no ask.
    ann.hello(game=ann.game_id)
    assert ann.state is not None and ann.state["seq"] == final["seq"]
    assert ann.state["online"]["rematch"] == [False, False]


def test_a_rematch_starts_when_both_ask_and_the_second_player_goes_first(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    first = ann.state["first"] if ann.state else 0
    play_out(ann, bob)
    old = ann.game_id
    ann.request(type="rematch", game=old, want=True)
    bob.wait_until(lambda state: state["online"]["rematch"] == [True, False])
    bob.request(type="rematch", game=old, want=True)
    new_game = ann.wait_until(lambda state: state["game"] != old)
    assert ann.matched[-1]["via"] == "rematch" and ann.matched[-1]["seat"] == 1
    bob.wait_until(lambda state: state["game"] == new_game["game"])
    assert new_game["first"] == 3 - first and new_game["to_move"] == 3 - first
    assert [p["name"] for p in new_game["players"]] == ["Ann", "Bob"]


def test_a_declined_rematch_cannot_start(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    play_out(ann, bob)
    declined = ann.request(type="rematch", game=ann.game_id, want=False)
    assert declined["type"] == "ack", declined
    bob.wait_until(lambda state: state["online"]["declined"] == 1)
    assert bob.error_of(type="rematch", game=bob.game_id, want=True) == "rematch_over"
    assert ann.error_of(type="rematch", game="g_nonexistent", want=True) == "no_game"


# --- bad input ------------------------------------------------------------------------------------


def test_wrong_malformed_own_full_closed_and_expired_codes(stack: Stack, url: str) -> None:
    ann, bob, cat = Player(url, "Ann"), Player(url, "Bob"), Player(url, "Cat")
    for player in (ann, bob, cat):
        player.enter()
    assert bob.error_of(type="join_room", code="ABC", name="Bob") == "bad_code"
    assert bob.error_of(type="join_room", code="ABCDE0", name="Bob") == "bad_code"
    assert bob.error_of(type="join_room", code="ZZZZZZ", name="Bob") == "no_room"
    code = ann.request(type="create_room", mode="mini", name="Ann")["code"]
    assert ann.error_of(type="join_room", code=code, name="Ann") == "own_room"
    assert ann.request(type="close_room")["code"] == code
    assert bob.error_of(type="join_room", code=code, name="Bob") == "room_closed"
    # A room that waited its 30 minutes: its time is moved into the past.
    code = ann.request(type="create_room", mode="mini", name="Ann")["code"]
    redis_of(stack).hset(Keys(stack.key_prefix).room(code), "expires", 1000)
    assert bob.error_of(type="join_room", code=code, name="Bob") == "room_expired"
    code = ann.request(type="create_room", mode="mini", name="Ann")["code"]
    assert bob.request(type="join_room", code=code.lower(), name="Bob")["type"] == "matched"
    assert cat.error_of(type="join_room", code=code, name="Cat") == "room_full"


def test_join_attempts_are_limited_per_device(url: str) -> None:
    guesser = Player(url, "Guesser")
    guesser.enter()
    codes = [f"{secrets.choice('ABCDEFGH')}2345{n}" for n in range(2, 10)] + ["ABCDEF", "ABCDEG"]
    assert [guesser.error_of(type="join_room", code=code, name="Guesser") for code in codes] == ["no_room"] * 10
    assert guesser.error_of(type="join_room", code="ABCDEH", name="Guesser") == "too_many_tries"


def test_a_name_with_markup_is_refused_and_nothing_changes(url: str) -> None:
    eve = Player(url, "Eve")
    eve.enter()
    for frame in (
        {"type": "find_match", "mode": "mini"},
        {"type": "create_room", "mode": "mini"},
        {"type": "join_room", "code": "ABCDEF"},
    ):
        assert eve.error_of(**frame, name="<img src=x onerror=alert(1)>") == "bad_name"
    assert eve.error_of(type="find_match", mode="mini", name="x" * 21) == "bad_name"
    status = eve.request(type="online_menu", open=True)
    assert (status["waiting"], status["room"], status["game"]) == (None, None, None)


def test_bad_modes_and_unknown_frames_are_refused(url: str) -> None:
    eve = Player(url, "Eve")
    eve.enter()
    assert eve.error_of(type="find_match", mode="practice_3x3", name="Eve") == "bad_setup"
    assert eve.error_of(type="find_match", mode="nonsense", name="Eve") == "bad_setup"
    assert eve.error_of(type="create_room", mode="classic", overlap="territory", name="Eve") == "bad_setup"
    assert eve.error_of(type="find_match", mode="mini", name="Eve", extra=1) == "bad_message"
    assert eve.error_of(type="rematch", game="g_x", want="yes") == "bad_message"


def test_acting_in_another_pairs_game_is_refused_and_changes_nothing(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    eve = Player(url, "Eve")
    eve.enter()
    game = ann.game_id
    assert eve.error_of(type="roll", game=game) == "not_your_game"
    assert eve.error_of(type="leave", game=game) == "not_your_game"
    assert eve.error_of(type="rematch", game=game, want=True) == "not_your_game"
    assert eve.error_of(type="resign", game=game) == "not_your_game"
    seq = ann.seq
    assert ann.request(type="ping")["type"] == "pong" and bob.request(type="ping")["type"] == "pong"
    assert ann.seq == seq and bob.seq == seq
    # ... and the other player of the pair cannot act out of turn either.
    waiting = bob if ann.my_turn() else ann
    assert waiting.error_of(type="roll", game=game) == "not_your_turn"
    assert waiting.request(type="ping")["type"] == "pong" and waiting.seq == seq


def test_leave_and_rematch_are_for_online_games_only(url: str) -> None:
    solo = Player(url, "Solo")
    solo.hello()
    solo.new_game(mode="mini", opponent="local")
    assert solo.error_of(type="leave", game=solo.game_id) == "not_online"
    assert solo.error_of(type="rematch", game=solo.game_id, want=True) == "not_online"


def test_a_rematch_is_asked_for_after_the_game(url: str) -> None:
    ann, _bob = paired_through_a_room(url)
    assert ann.error_of(type="rematch", game=ann.game_id, want=True) == "not_over"


# --- what the statistics make of it ---------------------------------------------------------------


def test_online_games_count_only_towards_the_achievements_under_other_players(url: str) -> None:
    ann, bob = paired_through_a_room(url)
    bob.request(type="leave", game=bob.game_id)
    ann.wait_until(lambda state: state["over"])
    result = ann.request(type="game_result", game=ann.game_id, timeout=20)
    assert result["type"] == "result" and result["leaderboard"] is None
    assert "online_win" in [a["id"] for a in result["achievements"]]
    stats = ann.request(type="stats")
    assert stats["overview"]["games"] == 0
    unlocked = {a["id"] for a in stats["achievements"] if a["unlocked_at"] is not None}
    assert unlocked == {"online_win"}


def test_a_result_is_told_for_a_finished_game_of_ones_own_only(url: str) -> None:
    ann, _bob = paired_through_a_room(url)
    eve = Player(url, "Eve")
    eve.hello()
    assert ann.error_of(type="game_result", game=ann.game_id) == "not_over"
    assert eve.error_of(type="game_result", game=ann.game_id) == "not_your_game"
    assert eve.error_of(type="game_result", game="g_nothing_by_this_name") == "no_game"


# --- how long keys live (issue 16: every key ends) ---------------------------------------------------


def test_the_saved_game_pointer_and_the_statistics_keys_end(stack: Stack, url: str) -> None:
    from boxedin.common.devices import device_hash

    solo = Player(url, "Solo")
    solo.hello()
    solo.new_game(mode="mini", opponent="local")
    keys, client = Keys(stack.key_prefix), redis_of(stack)
    hashed = device_hash(solo.device)
    assert 29 * 24 * 3600 < client.ttl(keys.saved_game(hashed)) <= 30 * 24 * 3600
    ann, bob = paired_through_a_room(url)
    bob.request(type="leave", game=bob.game_id)
    ann.wait_until(lambda state: state["over"])
    assert ann.request(type="game_result", game=ann.game_id, timeout=20)["type"] == "result"
    ann_hash = device_hash(ann.device)
    for key in (keys.stats(ann_hash), keys.stats_counted(ann_hash), keys.stats_results(ann_hash)):
        assert 399 * 24 * 3600 < client.ttl(key) <= 400 * 24 * 3600, key


def test_wrong_guesses_stay_at_the_address_ceiling_whatever_x_forwarded_for_says(stack: Stack) -> None:
    """From loopback, every guesser names an address of its own in X-Forwarded-For: the gateway
    trusts no forwarded header by default, so all of them are one address, 127.0.0.1."""
    tries = Keys(stack.key_prefix).join_tries("a:127.0.0.1")
    letters = "ABCDEFGHJ"  # of the room codes' alphabet: each guess is a well-formed code
    client = redis_of(stack)
    client.delete(tries)  # the module's other tests' wrong guesses
    try:
        outcomes: Counter[str] = Counter()
        for n in range(5):
            forged = {"X-Forwarded-For": f"203.0.113.{n + 1}"}
            guesser = Player(stack.url(), f"Guesser {n}", headers=forged)
            guesser.enter()
            for k in range(9):  # under the limit per device
                outcomes[guesser.error_of(type="join_room", code=f"ZZZZ{letters[n]}{letters[k]}", name="Guesser")] += 1
            guesser.close()
        assert outcomes == {"no_room": TRIES_PER_ADDRESS, "too_many_tries": 45 - TRIES_PER_ADDRESS}
    finally:
        client.delete(tries)  # the address's ceiling is reached: the tests after it join again
        client.close()
