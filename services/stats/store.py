"""The statistics in Redis (key names: boxedin.common.keys; the record's form:
docs/stats-records.md). A device's keys share one hash tag, so counting a game is one Lua
script on one slot: it stores the new record only if nobody changed it since it was read, and
only if the game was not counted for the device before. A game is counted once, whoever reads
it, however often."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import cast

import redis.asyncio as redis

from boxedin.common.keys import Keys
from boxedin.v1 import stats_pb2

from .model import DeviceStats

# KEYS: record hash, counted games (a sorted set: game id by when it ended), results hash.
# ARGV: game id, expected revision, record, result, lifetime seconds, when the game ended, counted
# games kept, results kept. Returns 1 when counted now, 2 when the game was counted before, 0 when
# the record changed. Every count renews the device's keys for another lifetime, and keeps only
# the newest ids and results: a game can come again only while its finished-games entry is
# unacknowledged (moments, not a thousand games later), and a result is asked for just after its
# game. A counted set from before (a plain set) becomes a sorted set first.
_COUNT = """
if redis.call('TYPE', KEYS[2]).ok == 'set' then
  local ids = redis.call('SMEMBERS', KEYS[2])
  redis.call('DEL', KEYS[2])
  for _, id in ipairs(ids) do redis.call('ZADD', KEYS[2], 0, id) end
end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 2 end
local rev = redis.call('HGET', KEYS[1], 'rev') or '0'
if rev ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[3], 'rev', tostring(tonumber(rev) + 1))
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
local counted = redis.call('ZCARD', KEYS[2])
local results_kept = tonumber(ARGV[8])
if redis.call('HLEN', KEYS[3]) > results_kept and counted > results_kept then
  -- Steady state: the one result that just fell out of the newest; once, after an upgrade: all.
  local first = 0
  if redis.call('HLEN', KEYS[3]) == results_kept + 1 then first = counted - results_kept - 1 end
  local old = redis.call('ZRANGE', KEYS[2], first, counted - results_kept - 1)
  if #old > 0 then redis.call('HDEL', KEYS[3], unpack(old)) end
end
local counted_kept = tonumber(ARGV[7])
if counted > counted_kept then redis.call('ZREMRANGEBYRANK', KEYS[2], 0, counted - counted_kept - 1) end
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[5]) end
return 1
"""

# The newest counted game ids and results kept per device (see _COUNT).
COUNTED_KEPT = 1000
RESULTS_KEPT = 50

# A device's statistics are kept this long after its last counted game, then forgotten.
STATS_LIFETIME_SECONDS = 400 * 24 * 3600

# KEYS: record hash, results hash, reset token. ARGV: token. The counted set stays, so a game
# counted before the reset is never counted again.
_RESET = """
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1
"""

RESET_TOKEN_SECONDS = 60


def reset_token_hash(token: str) -> str:
    """What the store keeps of a reset confirmation token: its SHA-256. The token is random
    (128 bits), so an unsalted hash is enough to make the stored value useless to a reader."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(slots=True)
class StoredStats:
    stats: DeviceStats
    revision: str


class StatsStore:
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self.redis = client
        self.keys = keys
        self._count = client.register_script(_COUNT)
        self._reset = client.register_script(_RESET)

    async def load(self, device: str) -> StoredStats:
        fields = cast(dict[bytes, bytes], await self.redis.hgetall(self.keys.stats(device)))
        if not fields:
            return StoredStats(DeviceStats(), "0")
        return StoredStats(DeviceStats.from_json(fields[b"record"]), fields[b"rev"].decode())

    async def counted(self, device: str, game_id: str) -> bool:
        return await self.redis.zscore(self.keys.stats_counted(device), game_id) is not None

    async def count(
        self, device: str, game_id: str, ended: float, stored: StoredStats, result: stats_pb2.GameResult
    ) -> int:
        """Stores the record with the game counted: 1 done, 2 counted before, 0 lost a race."""
        keys = [self.keys.stats(device), self.keys.stats_counted(device), self.keys.stats_results(device)]
        args: list[str | bytes | int | float] = [
            game_id, stored.revision, stored.stats.to_json(), result.SerializeToString(), STATS_LIFETIME_SECONDS,
            ended, COUNTED_KEPT, RESULTS_KEPT,
        ]  # fmt: skip
        return int(await self._count(keys=keys, args=args))

    async def result(self, device: str, game_id: str) -> stats_pb2.GameResult | None:
        raw = cast(bytes | None, await self.redis.hget(self.keys.stats_results(device), game_id))
        return None if raw is None else stats_pb2.GameResult.FromString(raw)

    async def new_reset_token(self, device: str) -> str:
        """A confirmation token for the device's reset; only its hash is stored, like a device
        token's: whoever reads the store cannot reset anybody's statistics."""
        token = secrets.token_urlsafe(16)
        await self.redis.set(self.keys.stats_reset_token(device), reset_token_hash(token), ex=RESET_TOKEN_SECONDS)
        return token

    async def reset(self, device: str, token: str) -> bool:
        keys = [self.keys.stats(device), self.keys.stats_results(device), self.keys.stats_reset_token(device)]
        return bool(await self._reset(keys=keys, args=[reset_token_hash(token)]))
