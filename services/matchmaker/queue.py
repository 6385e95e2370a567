"""Find Match: at most one player waits in each mode, so pairing is taking that player or
becoming them, in one Lua script: nobody is paired twice, nobody with themself, and nobody
waits while another player waits in the same mode. A waiting player's place lapses when their
gateway stops keeping it (the connection or the gateway is gone)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import cast

import redis.asyncio as redis

from boxedin.common.keys import Keys

# A place not kept for this long is taken by nobody: its player is gone (three of the gateways'
# rounds of keeping, BOXEDIN_ONLINE_KEEP_SECONDS).
LAPSE_SECONDS = 30.0

# KEYS: waiting (mode -> entry), waiting devices (device -> mode).
# ARGV: device, mode, entry, now ms, lapse ms. An entry is "device<TAB>name<TAB>kept ms".
# Returns {1, the waiting player's entry} when paired, {0, ''} when the caller now waits.
_FIND = """
local function owner(entry) return string.sub(entry, 1, string.find(entry, '\\t', 1, true) - 1) end
local before = redis.call('HGET', KEYS[2], ARGV[1])
if before then
  local held = redis.call('HGET', KEYS[1], before)
  if held and owner(held) == ARGV[1] then redis.call('HDEL', KEYS[1], before) end
  redis.call('HDEL', KEYS[2], ARGV[1])
end
local other = redis.call('HGET', KEYS[1], ARGV[2])
if other then
  local device = owner(other)
  redis.call('HDEL', KEYS[1], ARGV[2])
  if redis.call('HGET', KEYS[2], device) == ARGV[2] then redis.call('HDEL', KEYS[2], device) end
  local kept = tonumber(string.match(other, '\\t(%d+)$'))
  if device ~= ARGV[1] and kept >= tonumber(ARGV[4]) - tonumber(ARGV[5]) then
    return {1, other}
  end
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return {0, ''}
"""

# KEYS: as _FIND. ARGV: now ms, then devices. Returns how many still had a place.
_KEEP = """
local kept = 0
for i = 2, #ARGV do
  local mode = redis.call('HGET', KEYS[2], ARGV[i])
  if mode then
    local entry = redis.call('HGET', KEYS[1], mode)
    local tab = entry and string.find(entry, '\\t', 1, true)
    if tab and string.sub(entry, 1, tab - 1) == ARGV[i] then
      redis.call('HSET', KEYS[1], mode, (string.gsub(entry, '\\t%d+$', '\\t' .. ARGV[1])))
      kept = kept + 1
    end
  end
end
return kept
"""

# KEYS: as _FIND. ARGV: device. 1 when the device gave up its place, 0 when it had none.
_CANCEL = """
local mode = redis.call('HGET', KEYS[2], ARGV[1])
if not mode then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
local entry = redis.call('HGET', KEYS[1], mode)
if entry and string.sub(entry, 1, #ARGV[1] + 1) == ARGV[1] .. '\\t' then
  redis.call('HDEL', KEYS[1], mode)
  return 1
end
return 0
"""

# KEYS: as _FIND. ARGV: mode, entry. Puts a paired player back whose game could not start, if
# nobody took the mode's place meanwhile.
_PUT_BACK = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('HSET', KEYS[2], string.sub(ARGV[2], 1, string.find(ARGV[2], '\\t', 1, true) - 1), ARGV[1])
  return 1
end
return 0
"""


@dataclass(frozen=True, slots=True)
class Waiting:
    """The player who was waiting in a mode."""

    device: str  # hash of the device token
    name: str
    entry: str


def _now_ms() -> int:
    return round(time.time() * 1000)


class MatchQueue:
    def __init__(self, client: redis.Redis, keys: Keys, lapse_seconds: float = LAPSE_SECONDS) -> None:
        self.redis = client
        self.keys = keys
        self.lapse_seconds = lapse_seconds
        self._find = client.register_script(_FIND)
        self._keep = client.register_script(_KEEP)
        self._cancel = client.register_script(_CANCEL)
        self._put_back = client.register_script(_PUT_BACK)

    @property
    def _keys(self) -> list[str]:
        return [self.keys.waiting(), self.keys.waiting_devices()]

    async def find(self, device: str, name: str, mode: str) -> Waiting | None:
        """The player the device is paired with, or None when the device now waits in the mode
        (giving up any place it had in another)."""
        entry = f"{device}\t{name}\t{_now_ms()}"
        paired, other = await self._find(
            keys=self._keys, args=[device, mode, entry, _now_ms(), round(self.lapse_seconds * 1000)]
        )
        if not paired:
            return None
        text = other.decode()
        other_device, other_name, _ = text.split("\t")
        return Waiting(other_device, other_name, text)

    async def keep(self, devices: list[str]) -> int:
        if not devices:
            return 0
        return int(await self._keep(keys=self._keys, args=[_now_ms(), *devices]))

    async def cancel(self, device: str) -> bool:
        return bool(await self._cancel(keys=self._keys, args=[device]))

    async def put_back(self, mode: str, waiting: Waiting) -> bool:
        return bool(await self._put_back(keys=self._keys, args=[mode, waiting.entry]))

    async def waiting_in(self, device: str) -> str | None:
        """The mode the device waits in, if its place is kept."""
        mode = cast(
            "bytes | None", await self.redis.hget(self.keys.waiting_devices(), device)
        )  # decode_responses is off
        return mode.decode() if mode else None

    async def modes_waiting(self) -> set[str]:
        """The modes somebody waits in now (places not kept lately are not counted)."""
        raw = cast("dict[bytes, bytes]", await self.redis.hgetall(self.keys.waiting()))
        floor = _now_ms() - self.lapse_seconds * 1000
        return {mode.decode() for mode, entry in raw.items() if int(entry.rsplit(b"\t", 1)[1]) >= floor}
