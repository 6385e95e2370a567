"""Two engine replicas behind one gateway (issue 32): each game's actions reach the one replica
its partition's rendezvous choice names (each replica's boxedin_actions_total says which), and
when that replica is killed with games in play, play goes on at the other within the fault
tests' limit (tests/supervisor/test_faults.py, RESUME_LIMIT); started again, it takes its
partitions back."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from boxedin.common.engine_router import ranking
from boxedin.common.keys import partition_of
from boxedin.supervisor.launcher import Stack
from boxedin.tools.load.own_stack import actions_applied

from stacks import make_stack
from wsclient import Browser, ProtocolBroken

# Alone: it holds the time play takes to resume to a limit (scripts/test runs it after the rest).
pytestmark = [pytest.mark.stack, pytest.mark.alone]

# As tests/supervisor/test_faults.py: play resumes this soon after the kill.
RESUME_LIMIT = 3.0
PARTITIONS = 16
RETRY_PAUSE = 0.1


class TwoEngines:
    def __init__(self, stack: Stack, ports: dict[str, int]) -> None:
        self.stack = stack
        self.ports = ports  # replica name -> port
        self.by_endpoint = {f"127.0.0.1:{port}": name for name, port in ports.items()}

    def owner(self, game_id: str, live: list[str] | None = None) -> str:
        """The replica the rendezvous choice names for a game, among the live ones."""
        endpoints = [f"127.0.0.1:{self.ports[name]}" for name in (live or list(self.ports))]
        return self.by_endpoint[ranking(endpoints, partition_of(game_id, PARTITIONS))[0]]

    def applied(self) -> dict[str, int]:
        return {name: actions_applied(self.stack.metrics_url(name)) for name in self.stack.engines}


@pytest.fixture(scope="module")
def engines() -> Iterator[TwoEngines]:
    # As `boxedin up --engines 2` starts it: the gateway, the AI and the matchmaker get both.
    stack = make_stack("affinity", worker=False, engine_replicas=2)
    try:
        stack.start()
        yield TwoEngines(stack, dict(stack.engines))
    finally:
        stack.stop()


def _act_retrying(browser: Browser, deadline: float) -> None:
    """One turn, taken again after a refusal (the replica it went to was just killed), as the
    fault tests' players do."""
    while True:
        try:
            browser.play_turn()
            return
        except ProtocolBroken:
            if time.monotonic() > deadline:
                raise
            time.sleep(RETRY_PAUSE)


def test_every_action_of_a_game_reaches_the_replica_of_its_partition(engines: TwoEngines) -> None:
    owners = set()
    for _ in range(4):
        browser = Browser(engines.stack.url())
        try:
            browser.hello()
            before = engines.applied()
            browser.new_game(mode="mini", opponent="local")
            final = browser.play_to_the_end()
        finally:
            browser.close()
        owner = engines.owner(final["game"])
        # A replica counts an action once its commit returned, and the update the commit
        # published may reach the browser first (seen in CI: 32 of 33 counted): the count is
        # waited for, and then the other replica's read.
        give_up = time.monotonic() + 5
        while (engines.applied()[owner] - before[owner]) < final["seq"] and time.monotonic() < give_up:
            time.sleep(0.02)
        after = engines.applied()
        moved = {name: after[name] - before[name] for name in after}
        owners.add(owner)
        # Every action (the seq counts them) was applied by the owner, none by the other.
        assert moved[owner] == final["seq"] > 0, moved
        assert all(count == 0 for name, count in moved.items() if name != owner), moved
    assert owners  # which replicas owned the four games is chance; each game had one


def test_a_killed_replica_s_games_go_on_at_the_other_and_come_back_when_it_does(engines: TwoEngines) -> None:
    stack = engines.stack
    browsers: list[Browser] = []
    try:
        # Games until both replicas own some.
        while len({engines.owner(b.game_id) for b in browsers}) < 2 or len(browsers) < 4:
            browser = Browser(stack.url())
            browser.hello()
            browser.new_game(mode="mini", opponent="local")
            browser.play_turn()
            browsers.append(browser)
        victim = engines.owner(browsers[0].game_id)
        survivor = next(name for name in engines.ports if name != victim)
        stack.kill_process(victim)
        killed = time.monotonic()
        resumed = {}
        for index, browser in enumerate(browsers):
            before = browser.seq
            _act_retrying(browser, killed + RESUME_LIMIT + 10)
            assert browser.seq > before
            resumed[index] = time.monotonic() - killed
        assert max(resumed.values()) < RESUME_LIMIT, resumed
        for browser in browsers:
            final = browser.play_to_the_end()
            assert final["over"]

        # Started again, the replica answers and its partitions come back to it.
        stack.start_engine(engines.ports[victim], name=victim)
        stack.wait_serving(victim, engines.ports[victim])
        deadline = time.monotonic() + 15
        browser = Browser(stack.url())
        browsers.append(browser)
        browser.hello()
        while True:
            browser.new_game(mode="mini", opponent="local")
            if engines.owner(browser.game_id) == victim:
                before = engines.applied()
                browser.play_turn()
                after = engines.applied()
                if after[victim] > before[victim]:
                    assert after[survivor] == before[survivor]
                    break
            assert time.monotonic() < deadline, f"{victim}'s partitions did not come back to it"
    finally:
        for browser in browsers:
            browser.close()
