"""Rooms for playing with friends: the creator gets a code and picks the mode and the overlap
rule; the first friend who enters the code starts the game. A room waits 30 minutes at most and
is then kept a day as expired, so a late friend is told so. Join attempts are counted per
device and per client address in the same Lua script that joins, so codes cannot be found by
trying."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import cast

import redis.asyncio as redis

from boxedin.common.keys import Keys
from boxedin.common.reasons import Refusal

from .codes import new_code

ROOM_WAIT_SECONDS = 30 * 60
# An expired or used room is remembered this long, to tell a late friend what became of it.
ROOM_KEPT_SECONDS = 24 * 3600

# KEYS: room, the device's room. ARGV: code, device, name, mode, overlap, expires ms, kept
# seconds, wait seconds. 0 when the code is taken (the caller draws another). The device's room
# is forgotten when the room stops waiting.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'code', ARGV[1], 'device', ARGV[2], 'name', ARGV[3], 'mode', ARGV[4],
  'overlap', ARGV[5], 'expires', ARGV[6], 'state', 'open')
redis.call('EXPIRE', KEYS[1], ARGV[7])
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[8])
return 1
"""

# KEYS: room, the device's room. ARGV: device, code. Closes the device's room if it is still open.
_CLOSE = """
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
if redis.call('HGET', KEYS[1], 'device') == ARGV[1] and redis.call('HGET', KEYS[1], 'state') == 'open' then
  redis.call('HSET', KEYS[1], 'state', 'closed')
  return 1
end
return 0
"""

# KEYS: room, the device's tries this minute, the address's tries this minute.
# ARGV: device, now ms, tries per device, tries per address.
# Returns {'ok', creator, name, mode, overlap} or {reason}.
_JOIN = """
local by_device = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], 60)
local by_address = redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], 60)
if by_device > tonumber(ARGV[3]) or by_address > tonumber(ARGV[4]) then return {'too_many_tries'} end
local room = redis.call('HMGET', KEYS[1], 'device', 'name', 'mode', 'overlap', 'expires', 'state', 'joiner')
if not room[1] then return {'no_room'} end
if room[1] == ARGV[1] then return {'own_room'} end
if room[6] == 'closed' then return {'room_closed'} end
if room[6] == 'started' then return {'room_full'} end
if tonumber(room[5]) <= tonumber(ARGV[2]) then return {'room_expired'} end
redis.call('HSET', KEYS[1], 'state', 'started', 'joiner', ARGV[1])
return {'ok', room[1], room[2], room[3], room[4]}
"""

# KEYS: room. ARGV: joiner. Opens a room again whose game could not start.
_REOPEN = """
if redis.call('HGET', KEYS[1], 'joiner') == ARGV[1] and redis.call('HGET', KEYS[1], 'state') == 'started' then
  redis.call('HSET', KEYS[1], 'state', 'open')
  redis.call('HDEL', KEYS[1], 'joiner')
  return 1
end
return 0
"""


@dataclass(frozen=True, slots=True)
class OpenRoom:
    code: str
    device: str  # the creator's device hash
    name: str
    mode: str
    overlap: str  # "" for the mode's usual rule
    expires: float  # epoch seconds


class Rooms:
    def __init__(
        self, client: redis.Redis, keys: Keys, tries_per_device: int = 10, tries_per_address: int = 30
    ) -> None:
        self.redis = client
        self.keys = keys
        # Join attempts a minute (settings: join_tries_per_device, join_tries_per_address).
        self.tries_per_device = tries_per_device
        self.tries_per_address = tries_per_address
        self._create = client.register_script(_CREATE)
        self._close = client.register_script(_CLOSE)
        self._join = client.register_script(_JOIN)
        self._reopen = client.register_script(_REOPEN)

    async def create(self, device: str, name: str, mode: str, overlap: str) -> OpenRoom:
        """A new room of the device's, closing the one it had open."""
        await self.close(device)
        expires = round(time.time() + ROOM_WAIT_SECONDS, 3)  # kept in milliseconds
        while True:
            code = new_code()
            args: list[str | int] = [
                code, device, name, mode, overlap, round(expires * 1000), ROOM_KEPT_SECONDS, ROOM_WAIT_SECONDS,
            ]  # fmt: skip
            if await self._create(keys=[self.keys.room(code), self.keys.device_room(device)], args=args):
                return OpenRoom(code, device, name, mode, overlap, expires)

    async def close(self, device: str) -> str | None:
        """Closes the device's open room; its code, or None when it had none."""
        room = await self.open_room(device)
        if room is None:
            return None
        await self._close(keys=[self.keys.room(room.code), self.keys.device_room(device)], args=[device, room.code])
        return room.code

    async def open_room(self, device: str) -> OpenRoom | None:
        """The device's room, if it is open and has time left."""
        code = cast("bytes | None", await self.redis.get(self.keys.device_room(device)))  # decode_responses is off
        if not code:
            return None
        fields = cast("dict[bytes, bytes]", await self.redis.hgetall(self.keys.room(code.decode())))
        expires = float(fields.get(b"expires", b"0")) / 1000
        if fields.get(b"state") != b"open" or fields.get(b"device", b"").decode() != device or expires <= time.time():
            return None
        return OpenRoom(
            code.decode(),
            device,
            fields[b"name"].decode(),
            fields[b"mode"].decode(),
            fields[b"overlap"].decode(),
            expires,
        )

    async def join(self, code: str, device: str, address: str) -> OpenRoom:
        """Claims the room for the device (the game is then started by the caller), or says why
        it cannot be joined."""
        minute = int(time.time() // 60)
        keys = [
            self.keys.room(code),
            self.keys.join_tries(f"d:{device}", minute),
            self.keys.join_tries(f"a:{address}", minute),
        ]
        reply = await self._join(
            keys=keys, args=[device, round(time.time() * 1000), self.tries_per_device, self.tries_per_address]
        )
        outcome = reply[0].decode()
        if outcome != "ok":
            raise Refusal(outcome)  # the catalogue's sentence for the room's refusal
        creator, name, mode, overlap = (value.decode() for value in reply[1:])
        return OpenRoom(code, creator, name, mode, overlap, 0.0)

    async def reopen(self, code: str, joiner: str) -> None:
        await self._reopen(keys=[self.keys.room(code)], args=[joiner])
