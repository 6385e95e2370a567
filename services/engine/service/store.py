"""Game records in Redis: one hash per game (its sequence number, the serialised game and its
service settings), a stream of its updates for clients that reconnect, a channel the gateways
listen on, and each device's saved game.

Every change is a compare-and-set on the sequence number inside one Lua script, so two actions
racing on one game never both apply, and an update is published exactly when it is stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis.asyncio as redis

# KEYS: game hash, updates stream, device key. ARGV: expected seq, new seq, record, meta,
# frame, updates kept, channel, game id, finished (1: the device no longer keeps it), ttl.
_CAS = """
local current = redis.call('HGET', KEYS[1], 'seq')
if current == false or tonumber(current) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'seq', ARGV[2], 'record', ARGV[3], 'meta', ARGV[4])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], ARGV[2] .. '-1', 'frame', ARGV[5])
redis.call('PUBLISH', ARGV[7], ARGV[5])
if ARGV[9] == '1' then
  if redis.call('GET', KEYS[3]) == ARGV[8] then redis.call('DEL', KEYS[3]) end
  redis.call('EXPIRE', KEYS[1], ARGV[10])
  redis.call('EXPIRE', KEYS[2], ARGV[10])
end
return 1
"""

FINISHED_GAME_TTL = 24 * 3600


@dataclass(slots=True)
class StoredGame:
    game_id: str
    seq: int
    record: bytes
    meta: dict[str, Any]


class GameStore:
    def __init__(self, client: redis.Redis, prefix: str, updates_kept: int = 500) -> None:
        self.redis = client
        self.prefix = prefix
        self.updates_kept = updates_kept
        self._cas = client.register_script(_CAS)

    def game_key(self, game_id: str) -> str:
        return f"{self.prefix}game:{game_id}"

    def updates_key(self, game_id: str) -> str:
        return f"{self.prefix}game:{game_id}:updates"

    def channel(self, game_id: str) -> str:
        return f"{self.prefix}updates:{game_id}"

    def device_key(self, device: str) -> str:
        return f"{self.prefix}device:{device}"

    async def load(self, game_id: str) -> StoredGame | None:
        fields = await self.redis.hgetall(self.game_key(game_id))
        if not fields:
            return None
        return StoredGame(game_id, int(fields[b"seq"]), fields[b"record"], json.loads(fields[b"meta"]))

    async def create(self, game_id: str, record: bytes, meta: dict[str, Any], device: str, *, saved: bool) -> None:
        """Stores a new game. A ``saved`` one becomes the device's saved game and the game it
        replaces is deleted; any other (a practice game) lives beside it for a day."""
        device_key = self.device_key(device)
        previous = await self.redis.get(device_key) if saved else None
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.game_key(game_id), mapping={"seq": 0, "record": record, "meta": json.dumps(meta)})
            if saved:
                pipe.set(device_key, game_id)
            else:
                pipe.expire(self.game_key(game_id), FINISHED_GAME_TTL)
            if previous and previous.decode() != game_id:
                pipe.delete(self.game_key(previous.decode()), self.updates_key(previous.decode()))
            await pipe.execute()

    async def compare_and_set(
        self, stored: StoredGame, record: bytes, meta: dict[str, Any], frame: str, *, finished: bool
    ) -> bool:
        """Stores the game's next state if nobody changed it since ``stored`` was loaded."""
        device = str(stored.meta["device"])
        done = await self._cas(
            keys=[self.game_key(stored.game_id), self.updates_key(stored.game_id), self.device_key(device)],
            args=[
                stored.seq, stored.seq + 1, record, json.dumps(meta), frame, self.updates_kept,
                self.channel(stored.game_id), stored.game_id, "1" if finished else "0", FINISHED_GAME_TTL,
            ],
        )  # fmt: skip
        return bool(done)

    async def saved_game_id(self, device: str) -> str | None:
        value = await self.redis.get(self.device_key(device))
        return value.decode() if value else None

    async def discard(self, device: str) -> bool:
        game_id = await self.saved_game_id(device)
        if game_id is None:
            return False
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.device_key(device), self.game_key(game_id), self.updates_key(game_id))
            await pipe.execute()
        return True

    async def updates_after(self, game_id: str, after_seq: int) -> list[tuple[int, str]]:
        """The stored updates with a sequence number above ``after_seq``, oldest first."""
        entries = await self.redis.xrange(self.updates_key(game_id), min=f"{after_seq + 1}-0", max="+")
        return [
            (int(entry_id.decode().split("-")[0]), fields[b"frame"].decode()) for entry_id, fields in entries
        ]
