"""Reviews over the websocket (docs/protocol.md, Reviews), on the real stack: a finished game's
review comes turn by turn until the last, asking again computes nothing again, and only a
player of a finished game may ask."""

from __future__ import annotations

import time
from typing import Any

from boxedin.engine.replay import play_transcript
from boxedin.supervisor.launcher import Stack

from wsclient import Browser


def _review_until_done(browser: Browser, game: str, timeout: float = 60) -> tuple[dict[str, Any], list[int]]:
    """The review once every turn is in, and the `done` counts of the frames on the way."""
    first = browser.request(type="review", game=game)
    assert first["type"] == "review", first
    counts = [first["done"]]
    review = first
    deadline = time.monotonic() + timeout
    while review["done"] < review["total"]:
        frame = browser.receive(max(0.1, deadline - time.monotonic()))
        if frame["type"] == "review":
            review = frame
            counts.append(frame["done"])
    return review, counts


def test_a_finished_local_game_is_reviewed_turn_by_turn_and_asking_again_computes_nothing(
    live_stack: Stack,
) -> None:
    browser = Browser(live_stack.url())
    try:
        browser.hello()
        started = browser.new_game(mode="practice_2x2", opponent="local", seed="review-a")
        assert started["type"] == "state", started
        final = browser.play_to_the_end()
        game = browser.game_id
        review, counts = _review_until_done(browser, game)
        assert counts == sorted(counts) and review["done"] == review["total"] > 0
        turns = review["turns"]
        assert all(t is not None and t["exact"] for t in turns)  # a small board: the solver's, every one
        assert [t["turn"] for t in turns] == sorted(t["turn"] for t in turns)
        assert turns[-1]["board"]["scores"] == final["scores"]
        for player, marked in enumerate(review["mistakes"], start=1):
            losses = {t["turn"]: t["loss"] for t in turns if t["player"] == player}
            assert all(losses[turn] > 0 for turn in marked)
            assert [losses[turn] for turn in marked] == sorted((losses[turn] for turn in marked), reverse=True)
        replayed = play_transcript(review["transcript"])
        assert list(replayed.scores) == final["scores"] and replayed.over
        # Asked again: every turn is there at once, with the very figures (and analysis times)
        # of the first time: nothing was analysed twice.
        again = browser.request(type="review", game=game)
        assert again["done"] == again["total"] and again["turns"] == turns
    finally:
        browser.close()


def test_only_a_player_of_a_finished_game_may_ask_for_its_review(live_stack: Stack) -> None:
    player, stranger = Browser(live_stack.url()), Browser(live_stack.url())
    try:
        player.hello()
        stranger.hello()
        started = player.new_game(mode="practice_2x2", opponent="local", seed="review-2x2")
        assert started["type"] == "state", started
        running = player.request(type="review", game=player.game_id)
        assert (running["type"], running["code"]) == ("error", "not_over")
        player.play_to_the_end()
        refused = stranger.request(type="review", game=player.game_id)
        assert (refused["type"], refused["code"]) == ("error", "not_your_game")
        unknown = stranger.request(type="review", game="no-such-game")
        assert (unknown["type"], unknown["code"]) == ("error", "no_game")
    finally:
        player.close()
        stranger.close()
