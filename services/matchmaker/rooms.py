"""Rooms for playing with friends: the creator gets a code and picks the mode and the overlap
rule; the first friend who enters the code starts the game. A room waits 30 minutes at most and
is then kept a day as expired, so a late friend is told so. Wrong guesses at a code are counted
per device and per client address over the last minute, a sliding window, in the same Lua script
that joins, so codes cannot be found by trying (docs/protocol.md, Online play)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
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

# The window wrong guesses are counted over, sliding: at no moment did more than the limit go
# through in the minute before it.
TRIES_WINDOW_SECONDS = 60

# KEYS: room, the device's wrong guesses, the address's wrong guesses (sorted sets: a member per
# guess, scored by its moment in ms). ARGV: device, now ms, wrong guesses per device, wrong
# guesses per address, window ms, a member for this guess.
# Returns {'ok', creator, name, mode, overlap} or {reason}.
#
# A wrong guess names no room that can be joined: none, or one expired or closed. The right code
# of a room (one's own, or one somebody joined first) is no guess. Only wrong guesses count, so a
# device that made none is refused only when its address has made its whole ceiling of them: a
# friend in a household where one device guesses gets in, while a guesser who changes devices
# still gets no more than the address's ceiling a minute. A refused guess counts nothing (the
# sets stay at most the limits long).
_JOIN = """
local since = tonumber(ARGV[2]) - tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', since)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', since)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) or redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then
  return {'too_many_tries'}
end
local room = redis.call('HMGET', KEYS[1], 'device', 'name', 'mode', 'overlap', 'expires', 'state', 'joiner')
local wrong = nil
if not room[1] then wrong = 'no_room'
elseif room[1] == ARGV[1] then return {'own_room'}
elseif room[6] == 'closed' then wrong = 'room_closed'
elseif room[6] == 'started' then return {'room_full'}
elseif tonumber(room[5]) <= tonumber(ARGV[2]) then wrong = 'room_expired'
end
if wrong then
  for i = 2, 3 do
    redis.call('ZADD', KEYS[i], ARGV[2], ARGV[6])
    redis.call('PEXPIRE', KEYS[i], ARGV[5])
  end
  return {wrong}
end
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
        self,
        client: redis.Redis,
        keys: Keys,
        tries_per_device: int = 10,
        tries_per_address: int = 100,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.redis = client
        self.keys = keys
        # Wrong guesses a minute (settings: join_tries_per_device, join_tries_per_address).
        self.tries_per_device = tries_per_device
        self.tries_per_address = tries_per_address
        self.clock = clock  # epoch seconds; a test moves it across a window
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
        keys = [self.keys.room(code), self.keys.join_tries(f"d:{device}"), self.keys.join_tries(f"a:{address}")]
        now = round(self.clock() * 1000)
        args: list[str | int] = [
            device, now, self.tries_per_device, self.tries_per_address, TRIES_WINDOW_SECONDS * 1000,
            f"{now}:{secrets.token_hex(6)}",
        ]  # fmt: skip
        reply = await self._join(keys=keys, args=args)
        outcome = reply[0].decode()
        if outcome != "ok":
            raise Refusal(outcome)  # the catalogue's sentence for the room's refusal
        creator, name, mode, overlap = (value.decode() for value in reply[1:])
        return OpenRoom(code, creator, name, mode, overlap, 0.0)

    async def reopen(self, code: str, joiner: str) -> None:
        await self._reopen(keys=[self.keys.room(code)], args=[joiner])
