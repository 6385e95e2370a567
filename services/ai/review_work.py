"""Where a review runs and is kept: each turn one task on the Celery ``analysis`` queue (apart
from Expert's in-play playouts), its figures in the game's review hash (``Keys.review``), kept as
long as the finished game (``FINISHED_GAME_TTL``).

- Asking twice computes once: the first ask creates the hash (a script: only if it is missing)
  and sends the turns; a later ask only reads it. A turn's figures are written only where none
  are (HSETNX), so a task run twice writes once.
- A worker that dies mid-review loses nothing: the tasks are acknowledged after they ran
  (``acks_late``, and a killed pool process puts its task back), and an ask that finds a review
  unfinished with no turn done for ``RESEND_SECONDS`` sends its missing turns again (a task for a
  turn already done does nothing).
- Without Celery (``--no-worker``), the AI service runs the turns itself, in a process of its own
  (``run_in_process``), one after another: slower, the same figures.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio as aioredis

from boxedin.common.keys import FINISHED_GAME_TTL, Keys
from boxedin.engine import codec

from .review import ESTIMATE_SECONDS, review_turn, turns_of

RECORD, TOTAL, TOUCHED, REPORTED = "record", "total", "touched", "reported"
# An unfinished review none of whose turns came in for this long has lost its workers' tasks:
# the next ask sends the missing turns again.
RESEND_SECONDS = 60.0

# KEYS[1] the review; ARGV: record, total, now, ttl. 1 when this call created it.
_START = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'total', ARGV[2], 'touched', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
"""
# KEYS[1] the review; ARGV: field, figures, now. Never brings back a review that has expired.
_KEEP_TURN = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local kept = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
if kept == 1 then redis.call('HSET', KEYS[1], 'touched', ARGV[3]) end
return kept
"""

# KEYS[1] the review; ARGV: the touch read, now. 1 when the touch was still the one read.
_RETOUCH = """
if redis.call('HGET', KEYS[1], 'touched') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'touched', ARGV[2])
return 1
"""


def turn_field(index: int) -> str:
    return f"t{index}"


@dataclass(frozen=True, slots=True)
class ReviewState:
    """A review as it stands: ``total`` turns, the figures of each done (None where not yet),
    and when a turn last came in."""

    total: int
    turns: list[dict[str, Any] | None]
    touched: float

    @property
    def done(self) -> int:
        return sum(1 for t in self.turns if t is not None)

    @property
    def complete(self) -> bool:
        return self.done == self.total


async def start(client: aioredis.Redis, keys: Keys, game_id: str, record: bytes) -> int | None:
    """Creates the review of a finished game and returns its number of turns, or None when it
    already exists (somebody asked before)."""
    total = len(turns_of(codec.decode(record)))
    created = await client.eval(_START, 1, keys.review(game_id), record, total, time.time(), FINISHED_GAME_TTL)
    return total if created else None


async def read(client: aioredis.Redis, keys: Keys, game_id: str) -> ReviewState | None:
    """The review as it stands, or None when there is none (never asked, or gone with its game)."""
    raw = await client.hgetall(keys.review(game_id))
    if not raw:
        return None
    fields = {k.decode() if isinstance(k, bytes) else k: v for k, v in raw.items()}
    total = int(fields[TOTAL])
    turns = [fields.get(turn_field(i)) for i in range(total)]
    return ReviewState(total, [None if t is None else json.loads(t) for t in turns], float(fields[TOUCHED]))


async def claim_report(client: aioredis.Redis, keys: Keys, game_id: str) -> bool:
    """True for the one ask (of any AI replica) that first finds the review complete: it alone
    counts the turns' times into the metrics."""
    return bool(await client.hsetnx(keys.review(game_id), REPORTED, 1))


async def claim_resend(client: aioredis.Redis, keys: Keys, game_id: str, state: ReviewState) -> list[int]:
    """The turns to send again when the review stalled (see the module), claimed for this ask:
    the touch is moved on only if nobody moved it meanwhile, so two asks resend once."""
    if state.complete or time.time() - state.touched < RESEND_SECONDS:
        return []
    key = keys.review(game_id)
    raw = await client.hget(key, TOUCHED)
    if raw is None or not await client.eval(_RETOUCH, 1, key, raw, time.time()):
        return []
    return [i for i, t in enumerate(state.turns) if t is None]


def analyse(
    client: redis.Redis, keys: Keys, game_id: str, index: int, estimate_seconds: float = ESTIMATE_SECONDS
) -> bool:
    """Analyses turn ``index`` of a review and keeps its figures; False when there was nothing
    to do (done already, or the review is gone)."""
    key = keys.review(game_id)
    if client.hexists(key, turn_field(index)):
        return False
    record = client.hget(key, RECORD)
    if record is None:
        return False
    game = codec.decode(bytes(record))  # type: ignore[arg-type]
    plays = turns_of(game)
    if not 0 <= index < len(plays):
        return False
    started = time.perf_counter()
    figures = review_turn(game, plays[index], estimate_seconds=estimate_seconds).to_json()
    figures["seconds"] = round(time.perf_counter() - started, 3)
    return bool(client.eval(_KEEP_TURN, 1, key, turn_field(index), json.dumps(figures), time.time()))


def ready() -> bool:
    """Nothing: submitted to a new review process, it has the process import this module (and
    the engine, the solver and Expert with it) before the first review needs them."""
    return True


def run_in_process(redis_url: str, prefix: str, partitions: int, game_id: str, indexes: list[int]) -> int:
    """The turns of a review, one after another, in this process (the AI service's own review
    process, when there is no Celery worker). Returns how many it analysed."""
    client = redis.Redis.from_url(redis_url)
    keys = Keys(prefix, partitions)
    try:
        return sum(analyse(client, keys, game_id, i) for i in indexes)
    finally:
        client.close()
