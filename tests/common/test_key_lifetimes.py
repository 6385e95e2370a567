"""Every Redis key ends (docs/keys.md): the table names every key keys.py makes, and on a stack
that has played every kind of game, each key Redis holds either expires or is one of the few
bounded keys the table says never expire."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
import redis

from boxedin.common.keys import Keys, celery_prefix
from boxedin.engine.rules import MODES
from boxedin.supervisor.launcher import Stack

from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

DOC = Path(__file__).parents[2] / "docs" / "keys.md"
# Keys methods that name no key of their own: hash tags, and lists of other methods' keys.
NOT_KEYS = {"tag", "game_tag", "stats_tag", "channel_prefix", "work_streams", "deadline_sets", "finished_streams"}


def documented() -> set[str]:
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([a-z_]+)`", row.split("|")[1])}


def test_the_table_names_every_key_and_nothing_else() -> None:
    members = inspect.getmembers(Keys, predicate=lambda m: inspect.isfunction(m) or isinstance(m, property))
    made = {name for name, _ in members if not name.startswith("_") and name not in NOT_KEYS}
    made |= {"celery_queue", "celery_prefix"}
    assert documented() == made


def never_expiring(keys: Keys) -> set[str]:
    """The keys the table says live without an expiry, being bounded and few."""
    modes = [*MODES, "custom"]
    return {
        *keys.work_streams(), *keys.deadline_sets(), *keys.finished_streams(),
        *(keys.running(p, m) for p in range(keys.partitions) for m in modes),
        *(keys.running_online(p, m) for p in range(keys.partitions) for m in modes),
        keys.presence(), keys.device_token_key(), keys.waiting(), keys.waiting_devices(),
    }  # fmt: skip


def test_every_key_a_stack_writes_ends(live_stack: Stack) -> None:
    finished, running = Browser(live_stack.url()), Browser(live_stack.url())
    practice, host = Browser(live_stack.url()), Browser(live_stack.url())
    try:
        finished.hello()
        finished.new_game(mode="mini", opponent="ai", level="easy", ai_speed="fast")
        finished.play_to_the_end()
        finished.request(type="game_result", game=finished.game_id)
        running.hello()
        running.new_game(mode="classic", opponent="local", clock=30)
        practice.hello()
        practice.new_game(mode="practice_3x3", opponent="practice", seed="lifetimes")
        host.hello()
        room = host.request(type="create_room", mode="mini", name="Host")
        assert room["type"] == "room", room
    finally:
        for browser in (finished, running, practice, host):
            browser.close()
    keys = Keys(live_stack.key_prefix)
    allowed = never_expiring(keys)
    day = 24 * 3600
    client = redis.Redis.from_url(str(live_stack.redis_url))
    try:
        names = [name.decode() for name in client.scan_iter(match=f"{live_stack.key_prefix}*", count=1000)]
        lasting = [name for name in names if client.ttl(name) == -1]
        # A running game a month, a finished one and a practice game (nobody's saved game) a day.
        assert 29 * day < client.ttl(keys.game(running.game_id)) <= 30 * day
        assert 0 < client.ttl(keys.game(finished.game_id)) <= day
        assert 0 < client.ttl(keys.game(practice.game_id)) <= day
    finally:
        client.close()
    assert len(names) > 10, names
    assert [n for n in lasting if n not in allowed and not n.startswith(celery_prefix(live_stack.key_prefix))] == []
