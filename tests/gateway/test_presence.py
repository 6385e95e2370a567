"""Presence on the online menu (docs/protocol.md, Online play): a browser on the menu is pushed
the players online, and per mode whether somebody waits in Find Match, the online games now
and whether the mode is popular. The counts follow connections as they come and go, a killed
gateway's connections leave the count within 10 s, and a presence frame is sent only when it
changed (so no two frames one browser receives in a row are equal).

Every wait is for a condition (presence frames received until it holds), never a sleep. The
stack is this module's own: its counts are exact."""

from __future__ import annotations

import contextlib
import itertools
import time
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

# A killed gateway's connections must leave the count in 10 s; the margin is for measuring.
HEALED_SECONDS = 10.0
MARGIN_SECONDS = 1.0
# The engine works out the games now every 5 s; the presence figures are then read at most a
# second old and pushed about every 2 s.
FIGURES_SECONDS = 15


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    own = make_stack("presence", gateway_replicas=2, worker=False)
    try:
        own.start()
        yield own
    finally:
        own.stop()


@pytest.fixture
def browsers() -> Iterator[Callable[..., Browser]]:
    """Opens test browsers that have said hello, and closes whatever is left of them after the test."""
    opened: list[Browser] = []

    def open_browser(url: str, device: str | None = None) -> Browser:
        browser = Browser(url, device)
        opened.append(browser)
        browser.hello()
        return browser

    yield open_browser
    for browser in opened:
        with contextlib.suppress(Exception):
            browser.close()


def players(count: int) -> Callable[[dict[str, Any]], bool]:
    return lambda frame: frame["players_online"] == count


def watch(open_browser: Callable[..., Browser], url: str) -> Browser:
    """A browser on the online menu, with its first presence frame received."""
    watcher = open_browser(url)
    status = watcher.open_online_menu()
    assert status["game"] is None and status["room"] is None and status["waiting"] is None
    watcher.wait_presence(lambda frame: True)
    return watcher


def assert_each_frame_changed(watcher: Browser) -> None:
    """Presence is pushed only when it changed: no two frames in a row are equal."""
    frames = watcher.presence
    assert frames, "no presence frame came"
    for before, after in itertools.pairwise(frames):
        assert before != after, f"the same presence frame was sent twice in a row: {after}"


def close(*gone: Browser) -> None:
    for browser in gone:
        browser.close()


def test_players_online_count_connections_as_they_come_and_go(stack: Stack, browsers: Callable[..., Browser]) -> None:
    watcher = watch(browsers, stack.url(0))
    watcher.wait_presence(players(1))  # the watcher itself

    others = [browsers(stack.url(i % 2)) for i in range(6)]  # over both gateways
    watcher.wait_presence(players(7))
    # A second connection of a device already online (on the same gateway) is not another player.
    twin = browsers(stack.url(0), device=others[0].device)
    close(others[5])
    watcher.wait_presence(players(6))

    close(*others[1:4])
    watcher.wait_presence(players(3))
    close(others[0])  # its device stays online through the twin
    close(twin, others[4])
    watcher.wait_presence(players(1))
    assert_each_frame_changed(watcher)


def test_opponent_waiting_is_true_while_a_device_looks_for_a_game(
    stack: Stack, browsers: Callable[..., Browser]
) -> None:
    mode = "classic"
    watcher = watch(browsers, stack.url(0))
    watcher.wait_presence(lambda frame: not any(m["waiting"] for m in frame["modes"].values()))

    seeker = browsers(stack.url(1))
    assert seeker.find_match(mode, "Seeker")["type"] == "match_waiting"
    frame = watcher.wait_presence(lambda frame: frame["modes"][mode]["waiting"])
    assert [m for m, figures in frame["modes"].items() if figures["waiting"]] == [mode]

    reply = seeker.request(type="cancel_match")
    assert reply["type"] == "match_cancelled" and reply["cancelled"] is True
    watcher.wait_presence(lambda frame: not frame["modes"][mode]["waiting"])

    # A dropped connection gives its place up too.
    again = browsers(stack.url(1))
    assert again.find_match(mode, "Seeker")["type"] == "match_waiting"
    watcher.wait_presence(lambda frame: frame["modes"][mode]["waiting"])
    close(again)
    watcher.wait_presence(lambda frame: not frame["modes"][mode]["waiting"])
    assert_each_frame_changed(watcher)


def test_games_now_counts_online_games_and_popular_marks_the_modes_played_most(
    stack: Stack, browsers: Callable[..., Browser]
) -> None:
    # Online games started here, by mode: the three most played are popular, chain_reaction not.
    started = {"big_squares": 3, "strategic": 2, "marathon": 2, "chain_reaction": 1}
    popular = {"big_squares", "strategic", "marathon"}
    watcher = watch(browsers, stack.url(0))
    first = watcher.presence[-1]["modes"]
    assert set(first) >= set(started) and "practice_2x2" not in first
    assert all(figures["games_now"] == 0 and not figures["popular"] for figures in first.values())

    # A local game is not an online game: "standard" must stay at 0 games now.
    local = browsers(stack.url(1))
    assert local.new_game(mode="standard", opponent="local")["type"] == "state"

    pairs: dict[str, list[tuple[Browser, Browser]]] = {}
    for mode, games in started.items():
        for n in range(games):
            first_player, second_player = browsers(stack.url(0)), browsers(stack.url(1))
            assert first_player.find_match(mode, f"Waits {n}")["type"] == "match_waiting"
            matched = second_player.find_match(mode, f"Comes {n}")
            assert matched["type"] == "matched" and matched["seat"] == 2
            assert first_player.wait_matched()["game"] == matched["game"]
            pairs.setdefault(mode, []).append((first_player, second_player))

    def as_started(frame: dict[str, Any]) -> bool:
        modes = frame["modes"]
        return (
            all(figures["games_now"] == started.get(mode, 0) for mode, figures in modes.items())
            and {mode for mode, figures in modes.items() if figures["popular"]} == popular
        )

    watcher.wait_presence(as_started, timeout=FIGURES_SECONDS)

    # The chain_reaction game ends (a player leaves it): it is not played now, and the mode's
    # place among the modes played is unchanged.
    leaver, stayer = pairs["chain_reaction"][0]
    leaver.request(type="leave", game=leaver.game_id)
    stayer.wait_until(lambda state: state["over"])
    frame = watcher.wait_presence(
        lambda frame: frame["modes"]["chain_reaction"]["games_now"] == 0, timeout=FIGURES_SECONDS
    )
    assert frame["modes"]["big_squares"]["games_now"] == 3 and not frame["modes"]["chain_reaction"]["popular"]
    assert_each_frame_changed(watcher)


def test_a_killed_gateways_connections_leave_the_count_within_10_s(
    stack: Stack, browsers: Callable[..., Browser]
) -> None:
    watcher = watch(browsers, stack.url(0))
    watcher.wait_presence(players(1))
    client = redis.Redis.from_url(str(stack.redis_url))
    reports = Keys(stack.key_prefix).presence()
    before = set(client.hkeys(reports))

    port = free_port()
    victim = stack.start_gateway(port)
    stack.wait_ready(port)
    doomed = [browsers(f"http://127.0.0.1:{port}") for _ in range(5)]
    watcher.wait_presence(players(1 + len(doomed)))

    # The worst moment to die: just after the gateway reported its count (its report then
    # lasts longest). Its report is the one key that was not there before it started.
    (report,) = set(client.hkeys(reports)) - before
    last = client.hget(reports, report)
    deadline = time.monotonic() + 10
    while client.hget(reports, report) == last and time.monotonic() < deadline:
        time.sleep(0.005)  # polls Redis for the next report; the wait ends on it
    assert client.hget(reports, report) != last, "the gateway did not report its count again"
    stack.kill_process(victim)
    killed = time.monotonic()

    watcher.wait_presence(players(1), timeout=HEALED_SECONDS + 10)
    healed = time.monotonic() - killed
    print(f"the count healed {healed:.2f} s after the gateway was killed")
    assert healed <= HEALED_SECONDS + MARGIN_SECONDS, f"the count healed only {healed:.2f} s after the kill"
    assert_each_frame_changed(watcher)
    client.close()
