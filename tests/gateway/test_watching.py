"""Watching an online game by its link, over real websockets through the gateway, matchmaker
and engine processes (docs/protocol.md, Watching): a player shares the link, anyone with it sees
the game live through the same updates and seq, the players see how many watch, a watcher never
acts, and a link whose game is gone, or one never made, leads nowhere with a clear error. Once
the game is over a watcher may read its review, asked by the watch id."""

from __future__ import annotations

import secrets
import time
from typing import Any

import grpc
import pytest
import redis

from boxedin.common.keys import Keys
from boxedin.common.reasons import REASON_KEY
from boxedin.gateway.client_frames import FRAME_TYPES, WATCHER_FRAMES
from boxedin.supervisor.launcher import Stack
from boxedin.v1 import ai_pb2, ai_pb2_grpc

from wsclient import Browser

pytestmark = pytest.mark.stack

MODE = "mini"  # the shortest online game


class Person(Browser):
    """A test browser that plays or watches online: its seat, and the counts of watchers told."""

    def __init__(self, base_url: str, name: str) -> None:
        super().__init__(base_url)
        self.name = name
        self.seat = 0
        self.counts: list[int] = []

    def _apply(self, frame: dict[str, Any]) -> None:
        super()._apply(frame)
        if frame["type"] == "matched":
            self.seat = frame["seat"]
        elif frame["type"] == "watching":
            self.counts.append(frame["count"])

    def my_turn(self) -> bool:
        return self.state is not None and not self.state["over"] and self.state["to_move"] == self.seat

    def error_of(self, **frame: Any) -> dict[str, Any]:
        reply = self.request(**frame)
        assert reply["type"] == "error", reply
        return reply

    def watch(self, watch_id: str) -> dict[str, Any]:
        watched = self.request(type="watch", watch=watch_id)
        assert watched["type"] == "watched", watched
        while self.receive()["type"] != "state":
            pass
        return watched

    def review_until_done(self, game: str, timeout: float = 60) -> dict[str, Any]:
        """The game's review once every turn is in (the reply, then a frame as turns come)."""
        review = self.request(type="review", game=game)
        assert review["type"] == "review", review
        deadline = time.monotonic() + timeout
        while review["done"] < review["total"]:
            frame = self.receive(max(0.1, deadline - time.monotonic()))
            if frame["type"] == "review":
                review = frame
        return review

    def until_count(self, count: int) -> None:
        while not self.counts or self.counts[-1] != count:
            self.receive()


@pytest.fixture
def url(live_stack: Stack) -> str:
    return live_stack.url()


def a_game(url: str) -> tuple[Person, Person]:
    """Ann makes a room, Bob joins it: both follow the game, and both are connected."""
    ann, bob = Person(url, "Ann"), Person(url, "Bob")
    for player in (ann, bob):
        player.hello()
        player.request(type="online_menu", open=True)
    room = ann.request(type="create_room", mode=MODE, name="Ann")
    game = bob.request(type="join_room", code=room["code"], name="Bob")["game"]
    for player in (ann, bob):
        player.wait_until(lambda state: state["game"] == game and state["online"]["connected"] == [True, True])
    return ann, bob


def watch_id_of(player: Person) -> str:
    link = player.request(type="watch_link", game=player.game_id)
    assert link["type"] == "watch_link" and link["url"] == f"/watch/{link['watch']}", link
    return str(link["watch"])


def test_a_watcher_with_the_link_sees_the_game_live_with_the_same_updates(url: str) -> None:
    ann, bob = a_game(url)
    watch_id = watch_id_of(ann)
    assert watch_id_of(bob) == watch_id  # one link per game, whoever shares it
    assert watch_id not in (ann.game_id, ann.device, bob.device)
    cat = Person(url, "Cat")
    cat.hello()
    assert cat.watch(watch_id)["game"] == ann.game_id
    assert cat.state == ann.state and cat.seq == ann.seq
    assert [p["name"] for p in cat.state["players"]] == ["Ann", "Bob"]
    mover = ann if ann.my_turn() else bob
    mover.play_turn()
    cat.wait_until(lambda state: state["seq"] == mover.seq)
    assert cat.updates[-1] == mover.updates[-1] and cat.state == mover.state


def test_the_players_see_how_many_are_watching(url: str) -> None:
    ann, bob = a_game(url)
    watch_id = watch_id_of(ann)
    cat, dan = Person(url, "Cat"), Person(url, "Dan")
    for watcher in (cat, dan):
        watcher.hello()
        watcher.watch(watch_id)
    for someone in (ann, bob, dan):
        someone.until_count(2)
    cat.close()
    for someone in (ann, bob, dan):
        someone.until_count(1)
    assert dan.request(type="unwatch")["type"] == "ack"
    ann.until_count(0)
    bob.until_count(0)


def test_a_watcher_is_refused_every_action_and_nothing_changes(url: str) -> None:
    ann, bob = a_game(url)
    cat = Person(url, "Cat")
    cat.hello()
    cat.watch(watch_id_of(ann))
    game, seq = ann.game_id, ann.seq
    updates = [len(someone.updates) for someone in (ann, bob, cat)]
    acting = {
        "new_game": {"mode": MODE}, "resume": {}, "discard": {}, "roll": {"game": game},
        "draw": {"game": game, "edge": ["h", 0, 0]}, "end_turn": {"game": game}, "undo": {"game": game},
        "timeout": {"game": game}, "resign": {"game": game}, "visibility": {"game": game, "visible": False},
        "stats": {}, "game_result": {"game": game}, "reset_stats": {}, "online_menu": {"open": True},
        "find_match": {"mode": MODE, "name": "Cat"}, "cancel_match": {}, "create_room": {"mode": MODE, "name": "Cat"},
        "close_room": {}, "join_room": {"code": "ABCD", "name": "Cat"}, "leave": {"game": game},
        "rematch": {"game": game, "want": True}, "watch_link": {"game": game}, "running_online": {},
    }  # fmt: skip
    assert set(acting) == set(FRAME_TYPES) - WATCHER_FRAMES  # every family of frames that acts
    for kind, fields in acting.items():
        refused = cat.error_of(type=kind, **fields)
        assert refused["code"] == "watcher" and refused["seq"] == seq, (kind, refused)
    for someone in (ann, bob, cat):
        assert someone.request(type="ping")["type"] == "pong" and someone.seq == seq
    assert [len(someone.updates) for someone in (ann, bob, cat)] == updates


def test_watchers_see_the_result_when_the_game_ends(url: str) -> None:
    ann, bob = a_game(url)
    cat = Person(url, "Cat")
    cat.hello()
    cat.watch(watch_id_of(bob))
    while ann.state is not None and not ann.state["over"]:
        mover, other = (ann, bob) if ann.my_turn() else (bob, ann)
        mover.play_turn()
        other.wait_until(lambda state, seq=mover.seq: state["seq"] >= seq)
    final = cat.wait_until(lambda state: state["over"])
    assert final == ann.state and final["winner"] in (0, 1, 2)


def test_unknown_and_malformed_watch_ids_are_refused_clearly(url: str) -> None:
    eve = Person(url, "Eve")
    eve.hello()
    unknown = eve.error_of(type="watch", watch=secrets.token_urlsafe(18))
    assert unknown["code"] == "no_watch" and "link" in unknown["message"]
    malformed = eve.error_of(type="watch", watch="not a watch id")
    assert malformed["code"] == "no_watch" and "24 letters" in malformed["message"]
    assert eve.error_of(type="watch", watch="")["code"] == "bad_message"
    assert eve.error_of(type="watch", watch="x" * 65)["code"] == "bad_message"
    # Refused, Eve is no watcher: she may act as ever.
    assert eve.request(type="stats")["type"] == "stats"


def test_only_a_player_of_an_online_game_gets_its_link(url: str) -> None:
    ann, _bob = a_game(url)
    eve = Person(url, "Eve")
    eve.hello()
    assert eve.error_of(type="watch_link", game=ann.game_id)["code"] == "not_your_game"
    eve.new_game(mode=MODE, opponent="local")
    assert eve.error_of(type="watch_link", game=eve.game_id)["code"] == "not_online"


def test_the_link_leads_nowhere_once_the_game_is_gone(live_stack: Stack, url: str) -> None:
    ann, _bob = a_game(url)
    watch_id = watch_id_of(ann)
    keys = Keys(live_stack.key_prefix)
    client = redis.Redis.from_url(str(live_stack.redis_url))
    try:
        assert 30 * 24 * 3600 < client.ttl(keys.watch(watch_id)) <= 31 * 24 * 3600
        client.delete(keys.game(ann.game_id))  # what its expiry does, a day after it ended
    finally:
        client.close()
    eve = Person(url, "Eve")
    eve.hello()
    assert eve.error_of(type="watch", watch=watch_id)["code"] == "no_watch"


def one_turn_then_bob_leaves(ann: Person, bob: Person, watcher: Person) -> None:
    """A whole turn of the player to move, then Bob leaves: Ann wins a game of one turn (its
    review is short), and the watcher has seen it end."""
    mover = ann if ann.my_turn() else bob
    while mover.my_turn():
        mover.play_turn()
    bob.request(type="leave", game=bob.game_id)
    for someone in (ann, watcher):
        someone.wait_until(lambda state: state["over"])


def test_a_watcher_reads_the_review_once_the_game_is_over(url: str) -> None:
    ann, bob = a_game(url)
    cat = Person(url, "Cat")
    cat.hello()
    cat.watch(watch_id_of(ann))
    game, seq, state = ann.game_id, ann.seq, ann.state
    running = cat.error_of(type="review", game=game)
    assert running["code"] == "not_over" and running["seq"] == seq
    for someone in (ann, bob, cat):  # the ping's answer comes after anything the ask changed
        assert someone.request(type="ping")["type"] == "pong" and someone.seq == seq and someone.state == state
    one_turn_then_bob_leaves(ann, bob, cat)
    watched = cat.review_until_done(game)
    assert watched["game"] == game and watched["done"] == watched["total"] > 0
    assert [t["player"] for t in watched["turns"]][:1] == [state["to_move"]]  # type: ignore[index]
    # The players' review is the very same one: computed once, whoever asked first.
    assert ann.review_until_done(game)["turns"] == watched["turns"]
    assert cat.state == ann.state  # reading the review changed nothing in the game


def test_a_watchers_review_is_of_the_watched_game_only(url: str) -> None:
    ann, _bob = a_game(url)
    cat = Person(url, "Cat")
    cat.hello()
    cat.watch(watch_id_of(ann))
    other_ann, other_bob = a_game(url)
    one_turn_then_bob_leaves(other_ann, other_bob, other_ann)
    # The watch id leads to Ann's running game, not to the other finished one, nor to none.
    assert cat.error_of(type="review", game=other_ann.game_id)["code"] == "no_watch"
    assert cat.error_of(type="review", game="no-such-game")["code"] == "no_watch"
    # Nor is anyone's review open to a connection that does not watch.
    eve = Person(url, "Eve")
    eve.hello()
    assert eve.error_of(type="review", game=other_ann.game_id)["code"] == "not_your_game"


def test_the_ai_service_takes_a_review_by_a_watch_id_the_engine_vouches_for(live_stack: Stack, url: str) -> None:
    ann, bob = a_game(url)
    watch_id = watch_id_of(ann)
    one_turn_then_bob_leaves(ann, bob, ann)
    game, device = ann.game_id, ann.device or ""

    def review(**asker: str) -> tuple[str, str]:
        with grpc.insecure_channel(f"127.0.0.1:{live_stack.ai_port}") as channel:
            try:
                request = ai_pb2.ReviewRequest(game_id=game, **asker)
                reply = ai_pb2_grpc.AiStub(channel).Review(
                    request, timeout=10, metadata=live_stack.call_metadata("gateway")
                )
            except grpc.RpcError as error:
                assert isinstance(error, grpc.Call)
                reason = dict(error.trailing_metadata() or ()).get(REASON_KEY, "")
                return str(reason), str(error.details())
            return "review", str(reply.total)

    assert review(watch_id=watch_id)[0] == "review"
    assert review(device=device)[0] == "review"
    assert review(watch_id=secrets.token_urlsafe(18))[0] == "no_watch"  # well formed, made by nobody
    assert review(watch_id="not a watch id")[0] == "no_watch"
    for asker in ({}, {"device": device, "watch_id": watch_id}):
        reason, details = review(**asker)
        assert reason == "malformed" and "either" in details, asker
