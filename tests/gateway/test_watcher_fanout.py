"""Telling a game's followers of an update (boxedin.gateway.hub.Followers): its players at once;
a few watchers at once after them; a crowd of watchers a part at a time, the gateway's loop
turning in between (every other game's frames go on meanwhile), each watcher still told of every
update once and in seq order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from boxedin.gateway.hub import WATCHERS_AT_ONCE, Followers
from boxedin.v1 import common_pb2

Told = list[tuple[str, int]]


def listener(name: str, told: Told) -> Callable[[common_pb2.Update, str], None]:
    return lambda update, _text: told.append((name, update.seq))


def update(seq: int) -> tuple[common_pb2.Update, str]:
    return common_pb2.Update(game_id="g_watched", seq=seq), f'{{"type":"update","seq":{seq}}}'


async def until(condition: Callable[[], bool], turns: int = 10_000) -> None:
    """Lets the loop turn until the condition holds (a bounded number of turns)."""
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("not within the turns allowed")


def test_players_and_a_few_watchers_are_told_at_once_players_first() -> None:
    async def scenario() -> None:
        told: Told = []
        followers = Followers()
        followers.watchers.update(listener(f"watcher {n}", told) for n in range(WATCHERS_AT_ONCE))
        followers.players.update(listener(name, told) for name in ("Ann", "Bob"))
        followers.tell(*update(1))
        # Before the loop turns at all: everybody, the two players first.
        assert {name for name, _ in told[:2]} == {"Ann", "Bob"}
        assert len(told) == 2 + WATCHERS_AT_ONCE

    asyncio.run(scenario())


def test_a_crowd_of_watchers_is_told_a_part_at_a_time_with_the_loop_turning_between() -> None:
    async def scenario() -> None:
        told: Told = []
        crowd = 2 * WATCHERS_AT_ONCE + 50
        followers = Followers()
        followers.watchers.update(listener(f"watcher {n}", told) for n in range(crowd))
        followers.players.add(listener("Ann", told))
        followers.tell(*update(1))
        followers.tell(*update(2))
        # The player at once, for both updates; no watcher yet.
        assert told == [("Ann", 1), ("Ann", 2)]
        # Another game's frame, due as the loop turns: it comes before the crowd is all told.
        asyncio.get_running_loop().call_soon(lambda: told.append(("another game", 0)))
        await until(lambda: len(told) == 2 + 2 * crowd + 1)
        other = told.index(("another game", 0))
        assert 2 < other < 2 + crowd, "the loop turned while the crowd was being told of update 1"
        # Every watcher told of each update once, update 1 before update 2.
        by_watcher: dict[str, list[int]] = {}
        for name, seq in told:
            by_watcher.setdefault(name, []).append(seq)
        assert all(seqs == [1, 2] for name, seqs in by_watcher.items() if name.startswith("watcher"))
        assert len([name for name in by_watcher if name.startswith("watcher")]) == crowd

    asyncio.run(scenario())


def test_an_update_that_comes_while_the_crowd_is_told_waits_its_turn_even_for_few_watchers() -> None:
    async def scenario() -> None:
        told: Told = []
        followers = Followers()
        watchers = [listener(f"watcher {n}", told) for n in range(WATCHERS_AT_ONCE + 1)]
        followers.watchers.update(watchers)
        followers.tell(*update(1))  # a crowd: told by a task
        followers.watchers.discard(watchers[0])  # now few, but update 1 is still being told
        followers.tell(*update(2))
        assert told == []  # update 2 did not overtake update 1
        # The one who left is told of neither; the others of both, in order.
        await until(lambda: len(told) == 2 * WATCHERS_AT_ONCE)
        assert not any(name == "watcher 0" for name, _ in told)
        for n in range(1, WATCHERS_AT_ONCE + 1):
            assert [seq for name, seq in told if name == f"watcher {n}"] == [1, 2]

    asyncio.run(scenario())
