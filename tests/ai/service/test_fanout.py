"""Expert's fan-out when the worker pool's Redis goes away and comes back: a pool that does not
answer, never a failed turn. The turn is chosen within its budget, in-process, while Redis is
gone, and on the pool again once it is back (a failed turn would wait seconds for another
replica to claim it, as a Redis restart once showed in the fault test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator

import pytest

from boxedin.supervisor.launcher import free_port, redis_answers, redis_server_binary

BUDGET = 0.5
# Chooses one Expert turn of a game ten random edges in, for every line read, and prints how it
# went; in a process of its own, as the AI service's thinking runs in worker processes.
CHOOSER = """
import json, random, sys
from boxedin.ai.service.thinking import choose_turn
from boxedin.engine import codec
from boxedin.engine.game import Game
from boxedin.engine.rules import mode_by_id

game = Game.from_mode(mode_by_id("standard"), seed="fanout")
rng = random.Random(3)
for _ in range(10):
    game.draw(game.geo.edges[rng.choice(game.position.open_edge_list())])
record = codec.encode(game)
for line in sys.stdin:
    thought = choose_turn(record, "expert", float(line), True, 5.0)
    print(json.dumps({"seconds": thought.seconds, "fallbacks": thought.fallbacks, "actions": thought.actions}),
          flush=True)
"""


class Redis:
    """A redis-server on a port of its own, which the test stops and starts again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="boxedin-fanout-")
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        args = [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", self.folder]  # fmt: skip
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL)
        while not redis_answers(self.port):
            assert self.process.poll() is None, "redis-server did not start"

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait()


@pytest.fixture
def redis() -> Iterator[Redis]:
    server = Redis()
    server.start()
    try:
        yield server
    finally:
        server.kill()


def test_a_turn_is_chosen_within_its_budget_while_the_pools_redis_is_gone_and_after_it_is_back(
    redis: Redis,
) -> None:
    env = dict(os.environ, BOXEDIN_REDIS_URL=f"redis://127.0.0.1:{redis.port}/0", BOXEDIN_KEY_PREFIX="test-fanout:")
    env.pop("BOXEDIN_CELERY_BROKER_URL", None)
    chooser = subprocess.Popen([sys.executable, "-c", CHOOSER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               env=env, text=True)  # fmt: skip
    assert chooser.stdin is not None and chooser.stdout is not None

    def turn() -> dict:
        chooser.stdin.write(f"{BUDGET}\n")  # type: ignore[union-attr]
        chooser.stdin.flush()  # type: ignore[union-attr]
        line = chooser.stdout.readline()  # type: ignore[union-attr]
        assert line, "the chooser stopped"
        return json.loads(line)

    try:
        # No worker listens on this Redis: nobody takes the tasks, and the turn is played out here.
        up = turn()
        redis.kill()
        gone = turn()
        redis.start()
        back = turn()
    finally:
        chooser.stdin.close()
        chooser.wait(timeout=30)
    for thought in (up, gone, back):
        assert thought["actions"], thought
        assert thought["fallbacks"] == 1, thought
        # The budget, and room for a machine shared with the other tests; Celery's reconnecting
        # took 19 s here.
        assert thought["seconds"] < BUDGET + 1.0, thought
    assert chooser.returncode == 0
