"""Find Match at scale: 400 devices look for a game at once through two gateways, each with a
matchmaker replica of its own, 200 of them in each of two modes. Exactly 200 games start, each
between two distinct devices in seats 1 and 2 of one mode, and no device is in two games."""

from __future__ import annotations

import asyncio
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator

import pytest

from boxedin.supervisor.launcher import Stack, free_port
from boxedin.tools.load.online import OnlinePlayer

from stacks import ROOMY_BUDGETS, make_stack

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

DEVICES = 400
MODES = ("mini", "quick")


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    """Two gateways, the second talking to a second matchmaker replica."""
    own = make_stack("online-scale", worker=False, extra_env=ROOMY_BUDGETS)
    try:
        own.start()
        matchmaker_port = free_port()
        own.start_matchmaker(port=matchmaker_port, name="matchmaker-2")
        own.wait_serving("matchmaker-2", matchmaker_port)
        gateway_port = free_port()
        own.start_gateway(gateway_port, matchmaker_port=matchmaker_port)
        own.wait_ready(gateway_port)
        yield own
    finally:
        own.stop()


def games_started(stack: Stack, matchmaker: str) -> float:
    """The online games a matchmaker replica started, from its Prometheus figures."""
    url = f"http://127.0.0.1:{stack.metrics_ports[matchmaker]}/metrics"
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("boxedin_online_games_started_total{")
    )


async def find_all(urls: list[str]) -> list[tuple[OnlinePlayer, str]]:
    """Every device connects and says hello; then all send find_match at once (device i through
    gateway i % 2, in mode (i // 2) % 2, so that both gateways take both modes) and wait for
    `matched` and the game's state."""
    players = [(OnlinePlayer(urls[i % 2], f"Scale {i}", seed=i), MODES[(i // 2) % 2]) for i in range(DEVICES)]
    try:
        await asyncio.gather(*(player.connect() for player, _ in players))
        await asyncio.gather(*(player.send_find_match(mode) for player, mode in players))
        await asyncio.gather(*(player.await_match(timeout=45) for player, _ in players))
        # A ping answered on every connection: a `matched` sent twice would be in by now.
        await asyncio.gather(*(player.request({"type": "ping"}, timeout=20) for player, _ in players))
    finally:
        await asyncio.gather(*(player.close() for player, _ in players), return_exceptions=True)
    return players


def test_400_devices_calling_find_match_at_once_make_exactly_200_games(stack: Stack) -> None:
    before = {name: games_started(stack, name) for name in stack.matchmakers}
    started = time.monotonic()
    players = asyncio.run(find_all([stack.url(0), stack.url(1)]))
    took = time.monotonic() - started

    seats: dict[str, list[tuple[str, int, str]]] = {}
    for player, mode in players:
        assert player.matched is not None and player.state is not None
        assert player.matched_frames == 1, f"{player.name} was sent `matched` {player.matched_frames} times"
        assert player.matched["via"] == "find_match"
        game = player.matched["game"]
        assert player.state["game"] == game and player.state["mode"] == mode, (player.state["game"], mode)
        assert player.state["opponent"] == "online" and not player.state["over"]
        seats.setdefault(game, []).append((player.device, player.matched["seat"], mode))

    assert len(seats) == DEVICES // 2, f"{len(seats)} games for {DEVICES} devices"
    for game, sitting in seats.items():
        assert len(sitting) == 2, f"game {game} has {len(sitting)} players"
        (device_a, seat_a, mode_a), (device_b, seat_b, mode_b) = sitting
        assert device_a != device_b, f"game {game}: a device plays itself"
        assert {seat_a, seat_b} == {1, 2}, f"game {game}: seats {seat_a} and {seat_b}"
        assert mode_a == mode_b, f"game {game} pairs {mode_a} with {mode_b}"
    devices = Counter(device for sitting in seats.values() for device, _, _ in sitting)
    assert len(devices) == DEVICES and max(devices.values()) == 1
    assert Counter(mode for sitting in seats.values() for _, _, mode in sitting) == dict.fromkeys(MODES, DEVICES // 2)

    # Both matchmaker replicas paired players, and together they started each game once.
    after = {name: games_started(stack, name) for name in stack.matchmakers}
    started_by = {name: after[name] - before[name] for name in after}
    assert sum(started_by.values()) == DEVICES // 2, started_by
    assert all(count > 0 for count in started_by.values()), started_by
    print(f"{DEVICES} devices paired into {len(seats)} games in {took:.1f} s; games started by {started_by}")
