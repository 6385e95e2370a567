"""Game records in Redis (key names: boxedin.common.keys): one hash per game (its seq, the
serialised game and its record), a stream of its updates for clients that catch up, a channel
the gateways listen on, the partition's work stream of computer turns and its deadline set, and
each device's saved game.

Every change is a compare-and-set on the seq inside one Lua script that touches one slot (the
game's partition): the game, its update, the computer turn it leaves to play and its next
deadline are stored together or not at all, and an update is published exactly when it is
stored. So a computer turn is never lost between a commit and a queue, and never queued for a
change that did not happen.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import cast

import redis.asyncio as redis

from boxedin.common.keys import FINISHED_GAME_TTL, Keys, partition_of
from boxedin.common.script_line import LineUnavailable, ScriptLine
from boxedin.engine.rules import MODES
from boxedin.engine.session.table import Table
from boxedin.v1 import common_pb2

# KEYS: game hash, updates stream, work stream, deadline set, finished-games stream, the set of
# running games of its mode, the set of running online games of its mode, the action's applied
# key (keys.action_applied; named even when unused, to keep the keys fixed).
# ARGV: 1 expected seq (-1: the game is new), 2 new seq, 3 game, 4 record, 5 update ('' none),
# 6 updates kept, 7 channel, 8 game id, 9 ttl seconds, 10 deadline ms ('' none), 11 computer turn
# job ('' none), 12 work stream length kept, 13 finished game ('' none), 14 now (ms), 15 '1' when
# the game is over, 16 '1' for an online game, 17 finished-games stream length kept, 18 expected
# revision ('' when the record was just read: the seq alone is compared), 19 '1' when the action
# has a repeat key (the new seq is kept under KEYS[8] for a minute).
# The revision ('rev') counts every write of the record, those at the same seq (touch) included:
# a process that changes a game from its own copy, without reading it first, compares both.
_COMMIT = """
local current = redis.call('HMGET', KEYS[1], 'seq', 'rev')
if ARGV[1] == '-1' then
  if current[1] ~= false then return 0 end
elseif current[1] == false or tonumber(current[1]) ~= tonumber(ARGV[1]) then
  return 0
elseif ARGV[18] ~= '' and tonumber(current[2] or '0') ~= tonumber(ARGV[18]) then
  return 0
end
redis.call('HSET', KEYS[1], 'seq', ARGV[2], 'game', ARGV[3], 'record', ARGV[4])
local rev = redis.call('HINCRBY', KEYS[1], 'rev', 1)
if ARGV[19] == '1' then redis.call('SET', KEYS[8], ARGV[2], 'EX', 60) end
redis.call('EXPIRE', KEYS[1], ARGV[9])
if ARGV[5] ~= '' then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], ARGV[2] .. '-1', 'u', ARGV[5])
  redis.call('EXPIRE', KEYS[2], ARGV[9])
  redis.call('PUBLISH', ARGV[7], ARGV[5])
end
if ARGV[10] == '' then
  redis.call('ZREM', KEYS[4], ARGV[8])
else
  redis.call('ZADD', KEYS[4], ARGV[10], ARGV[8])
end
if ARGV[11] ~= '' then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[12], '*', 'job', ARGV[11])
end
if ARGV[13] ~= '' then
  redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[17], '*', 'game', ARGV[13])
end
if ARGV[15] == '1' then
  redis.call('ZREM', KEYS[6], ARGV[8])
  redis.call('ZREM', KEYS[7], ARGV[8])
else
  redis.call('ZADD', KEYS[6], ARGV[14], ARGV[8])
  if ARGV[16] == '1' then redis.call('ZADD', KEYS[7], ARGV[14], ARGV[8]) end
end
return rev
"""

# The deadline set keeps the game's next deadline only while the game stands at this seq, so a
# deadline loop that found nothing due cannot undo what a newer commit wrote.
# KEYS: game hash, deadline set. ARGV: seq, game id, deadline ms ('' none).
_SYNC_DEADLINE = """
local current = redis.call('HGET', KEYS[1], 'seq')
if current == false then redis.call('ZREM', KEYS[2], ARGV[2]) return 1 end
if tonumber(current) ~= tonumber(ARGV[1]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[2]) else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2]) end
return 1
"""

# A record renewed without a change anyone sees (a connection's lease): only while the game
# stands at that seq, with its next deadline. KEYS: game hash, deadline set. ARGV: seq, record,
# game id, deadline ms ('' none).
_TOUCH = """
local current = redis.call('HGET', KEYS[1], 'seq')
if current == false or tonumber(current) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
if ARGV[4] == '' then redis.call('ZREM', KEYS[2], ARGV[3]) else redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3]) end
return 1
"""

# Claims the deadlines due by now: each one's score moves a lease into the future, so exactly
# one caller gets it, and a caller that dies before applying it leaves it to be claimed again.
# KEYS: deadline set. ARGV: now ms, lease ms, most to claim.
_CLAIM_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3]))
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for i = 1, #due, 2 do
  redis.call('ZADD', KEYS[1], 'XX', until_ms, due[i])
end
return due
"""

# KEYS: game hash, updates stream, deadline set (one slot). ARGV: game id.
_DELETE_GAME = """
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"""

# The device's saved (or online) game is forgotten only if it is still that game. KEYS: the
# device's saved game. ARGV: game id.
_FORGET_SAVED = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# Running games live a month without a move; finished ones a day, for clients catching up. A
# practice game is nobody's saved game (a device may start any number): it lives a day after its
# last move, running or not (docs/protocol.md).
RUNNING_GAME_TTL = 30 * 24 * 3600
# A watch link's pointer outlives a game kept without another move after the link was asked
# for; a game gone before it leaves the pointer leading nowhere (the game is read behind it).
WATCH_LINK_TTL = RUNNING_GAME_TTL + FINISHED_GAME_TTL
PRACTICE_GAME_TTL = 24 * 3600
# Computer turns kept in a work stream: read ones are deleted, so this only bounds a backlog.
WORK_KEPT = 100_000
# Finished games waiting to be counted, per partition: the stats service acknowledges and deletes
# each as it counts it, so this is reached only when it has been down for a long time (at 100
# games a second over 16 partitions, about 2 hours); the oldest are then dropped uncounted rather
# than let Redis fill up.
FINISHED_KEPT = 50_000


def game_ttl(mode: str, over: bool) -> int:
    """How long a game (and its update stream) is kept after this change."""
    if over:
        return FINISHED_GAME_TTL
    known = MODES.get(mode)
    return PRACTICE_GAME_TTL if known is not None and known.practice else RUNNING_GAME_TTL


@dataclass(slots=True)
class StoredGame:
    game_id: str
    seq: int
    # The serialised game (codec); empty when the game was taken from a process's own copy.
    game: bytes
    # The game's table, stored as its "record" field.
    table: Table
    # How many times the record was written (the commit script's 'rev').
    rev: int = 0
    # The record as it was stored (JSON), when known.
    record_json: bytes | str = b""
    # Taken from a process's own copy, not read: the commit compares the revision too.
    kept: bool = False


@dataclass(frozen=True, slots=True)
class Commit:
    """What one change stores besides the game."""

    update: common_pb2.Update | None = None
    # The computer turn this change leaves to play, if any.
    computer_turn: common_pb2.ComputerTurn | None = None
    # The game this change finished, for the statistics.
    finished_game: common_pb2.FinishedGame | None = None
    # The game is over after the change (it finished now or before).
    over: bool = False
    online: bool = False


# Every commit names its game's keys: those of the games played now are kept.
@functools.lru_cache(maxsize=8192)
def _game_keys(keys: Keys, game_id: str, mode: str) -> tuple[str, ...]:
    partition = partition_of(game_id, keys.partitions)
    return (
        keys.game(game_id),
        keys.updates(game_id),
        keys.work(partition),
        keys.deadlines(partition),
        keys.finished(partition),
        keys.running(partition, mode),
        keys.running_online(partition, mode),
    )


def _ms(moment: float | None) -> str:
    return "" if moment is None else str(round(moment * 1000))


class GameStore:
    def __init__(self, client: redis.Redis, keys: Keys, updates_kept: int = 500, *, line: bool = True) -> None:
        self.redis = client
        self.keys = keys
        self.updates_kept = updates_kept
        self._commit = client.register_script(_COMMIT)
        self._sync_deadline = client.register_script(_SYNC_DEADLINE)
        self._touch = client.register_script(_TOUCH)
        self._claim_due = client.register_script(_CLAIM_DUE)
        self._delete_game = client.register_script(_DELETE_GAME)
        self._forget_saved = client.register_script(_FORGET_SAVED)
        # Commits, one an action, go over a line of their own (boxedin.common.script_line);
        # ``line=False`` leaves them to redis-py (the benchmark's path before issue 14).
        self._line = ScriptLine.for_client(client) if line else None
        # The mode of each followed game found in a running set (games_now): a game is in its
        # own mode's sets only, so it is looked for there alone from then on.
        self._mode_of: dict[str, str] = {}

    def close(self) -> None:
        """Closes the commits' line (the client is its owner's to close)."""
        if self._line is not None:
            self._line.close()

    def _game_keys(self, game_id: str, mode: str = "custom") -> tuple[str, ...]:
        return _game_keys(self.keys, game_id, mode)

    async def load(self, game_id: str) -> StoredGame | None:
        # decode_responses is off: the client returns bytes.
        fields = cast("dict[bytes, bytes]", await self.redis.hgetall(self.keys.game(game_id)))
        if not fields:
            return None
        try:
            table = Table.from_json(fields[b"record"])
        except (KeyError, ValueError):
            return None  # a game of an older layout: it does not load
        return StoredGame(
            game_id, int(fields[b"seq"]), fields[b"game"], table, int(fields.get(b"rev", 0)), fields[b"record"]
        )

    async def commit(
        self,
        game_id: str,
        mode: str,
        expected_seq: int,
        game: bytes,
        table: Table,
        change: Commit,
        *,
        expected_rev: int | None = None,
        record_json: str | None = None,
        repeat_key: str = "",
    ) -> int:
        """Stores the game at ``expected_seq + 1`` if it still stands at ``expected_seq`` (-1: a
        new game that must not exist yet), and its table at ``expected_rev`` when given, with
        its update, computer turn and next deadline. Returns the record's new revision, or 0
        when the game was not as expected (nothing is stored). ``record_json``: the table
        already serialised. ``repeat_key``: the action's identity for a repeat, under which the
        new seq is kept a minute (keys.action_applied)."""
        keys = [*self._game_keys(game_id, mode), self.keys.action_applied(game_id, repeat_key)]
        args: list[str | bytes | int] = [
            expected_seq, expected_seq + 1, game, record_json if record_json is not None else table.to_json(),
            change.update.SerializeToString() if change.update is not None else "",
            self.updates_kept, self.keys.channel(game_id), game_id,
            game_ttl(mode, change.over),
            _ms(table.next_deadline()),
            change.computer_turn.SerializeToString() if change.computer_turn is not None else "",
            WORK_KEPT,
            change.finished_game.SerializeToString() if change.finished_game is not None else "",
            round(time.time() * 1000),
            "1" if change.over else "0",
            "1" if change.online else "0",
            FINISHED_KEPT,
            "" if expected_rev is None else expected_rev,
            "1" if repeat_key else "0",
        ]  # fmt: skip
        if self._line is not None:
            try:
                return int(await self._line.evalsha(self._commit, keys, args))
            except LineUnavailable:
                pass  # redis-py makes the call: it connects, loads the script, tries again
        done = await self._commit(keys=keys, args=args)
        return int(done)

    async def applied_seq(self, game_id: str, repeat_key: str) -> int | None:
        """The seq the action with this repeat key made, if the engine applied it within a minute."""
        raw = await self.redis.get(self.keys.action_applied(game_id, repeat_key))
        return int(raw) if raw is not None else None

    async def make_saved(self, device: str, game_id: str) -> None:
        """Makes a game the device's saved game, deleting the one it replaces."""
        # With get=True: the value replaced, bytes (decode_responses is off) or None.
        # The pointer lives as long as a running game without a move; GetSavedGame renews it.
        previous = cast(
            "bytes | None",
            await self.redis.set(self.keys.saved_game(device), game_id, get=True, ex=RUNNING_GAME_TTL),
        )
        if previous and previous.decode() != game_id:
            await self.delete_game(previous.decode())

    async def delete_game(self, game_id: str) -> None:
        game_key, updates_key, _, deadlines_key, *_ = self._game_keys(game_id)
        await self._delete_game(keys=[game_key, updates_key, deadlines_key], args=[game_id])

    async def saved_game_id(self, device: str) -> str | None:
        """The device's saved game; asking renews the pointer, as a device asks on every hello."""
        key = self.keys.saved_game(device)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.expire(key, RUNNING_GAME_TTL)
            found, _ = await pipe.execute()
        value = cast("bytes | None", found)  # decode_responses is off
        return value.decode() if value else None

    async def forget_saved(self, device: str, game_id: str) -> None:
        """The device no longer keeps ``game_id`` (finished or gone), unless it moved on already."""
        await self._forget_saved(keys=[self.keys.saved_game(device)], args=[game_id])

    async def make_online(self, devices: list[str], game_id: str) -> None:
        """Makes a game the running online game of each device (a finished one is forgotten)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for device in devices:
                pipe.set(self.keys.online_game(device), game_id, ex=RUNNING_GAME_TTL)
            await pipe.execute()

    async def watch_id(self, game_id: str, made: str) -> str:
        """The game's watch id: ``made`` unless it has one already (both players share one),
        renewed with the pointer from the id to the game."""
        key = self.keys.game_watch(game_id)
        # NX then GET: the first id made for a game stays; a crash between the two writes is
        # mended by the next ask, which writes the pointer again.
        await self.redis.set(key, made, nx=True, ex=WATCH_LINK_TTL)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.expire(key, WATCH_LINK_TTL)
            value, _ = await pipe.execute()
        watch_id = cast("bytes | None", value)
        chosen = watch_id.decode() if watch_id else made
        await self.redis.set(self.keys.watch(chosen), game_id, ex=WATCH_LINK_TTL)
        return chosen

    async def watched_game_id(self, watch_id: str) -> str | None:
        key = self.keys.watch(watch_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.expire(key, WATCH_LINK_TTL)
            value, _ = await pipe.execute()
        found = cast("bytes | None", value)  # decode_responses is off
        return found.decode() if found else None

    async def online_game_id(self, device: str) -> str | None:
        value = cast("bytes | None", await self.redis.get(self.keys.online_game(device)))  # decode_responses is off
        return value.decode() if value else None

    async def forget_online(self, device: str, game_id: str) -> None:
        await self._forget_saved(keys=[self.keys.online_game(device)], args=[game_id])

    async def discard(self, device: str) -> bool:
        game_id = await self.saved_game_id(device)
        if game_id is None:
            return False
        await self.redis.delete(self.keys.saved_game(device))
        await self.delete_game(game_id)
        return True

    async def updates_after(self, game_id: str, after_seq: int) -> list[common_pb2.Update]:
        """The stored updates with a seq above ``after_seq``, oldest first."""
        # decode_responses is off: ids and fields are bytes; every stored entry has its fields.
        entries = cast(
            "list[tuple[bytes, dict[bytes, bytes]]]",
            await self.redis.xrange(self.keys.updates(game_id), min=f"{after_seq + 1}-0", max="+"),
        )
        return [common_pb2.Update.FromString(fields[b"u"]) for _, fields in entries]

    # --- deadlines -----------------------------------------------------------------------------

    async def claim_due(self, now: float, lease: float, most: int = 100) -> list[tuple[str, float]]:
        """Game ids whose deadline is due, each claimed by this caller alone for ``lease`` s, with
        when it fell due (epoch seconds; for a deadline claimed again, when its lease ran out)."""
        # One script call per partition, each on its own slot. On one Redis they go in one
        # pipeline: 16 round trips five times a second were most of an idle engine's CPU (issue
        # 32). On a Redis Cluster one after another: redis-py's cluster client has been seen to
        # fail opening connections for many at once.
        args = [round(now * 1000), round(lease * 1000), most]
        if isinstance(self.redis, redis.RedisCluster):
            replies = [await self._claim_due(keys=[key], args=args) for key in self.keys.deadline_sets()]
        else:
            async with self.redis.pipeline(transaction=False) as pipe:
                for key in self.keys.deadline_sets():
                    await self._claim_due(keys=[key], args=args, client=pipe)
                replies = await pipe.execute()
        return [
            (reply[i].decode(), float(reply[i + 1]) / 1000) for reply in replies for i in range(0, len(reply), 2)
        ]

    async def sync_deadline(self, stored: StoredGame) -> None:
        """Sets the deadline set to what the game as stored says, if it still stands at that seq."""
        game_key, _, _, deadlines_key, *_ = self._game_keys(stored.game_id)
        await self._sync_deadline(
            keys=[game_key, deadlines_key], args=[stored.seq, stored.game_id, _ms(stored.table.next_deadline())]
        )

    async def touch(self, stored: StoredGame) -> int:
        """Stores a record renewed at the same seq (1), unless the game moved on meanwhile (0)."""
        game_key, _, _, deadlines_key, *_ = self._game_keys(stored.game_id)
        args: list[str | int] = [
            stored.seq,
            stored.table.to_json(),
            stored.game_id,
            _ms(stored.table.next_deadline()),
        ]
        return int(await self._touch(keys=[game_key, deadlines_key], args=args))

    # --- figures -------------------------------------------------------------------------------

    async def games_now(
        self, modes: list[str], followed: Collection[str], *, prune: bool = False
    ) -> tuple[dict[str, int], dict[str, int]]:
        """The games being played now of each mode, and the online games among them. A game is
        played now while it is unfinished and a player's socket follows it (``followed``), or,
        online, while its grace runs: an unfinished online game that no socket follows has every
        player away, each in their grace, and it ends when the grace does (forfeit); so every
        unfinished online game counts. A game leaves its mode's running sets in the commit that
        ends it: it leaves these figures at once. ``prune``: games left a day without a move are
        dropped from the sets first (the figures loop's work, not every call's)."""
        stale = round((time.time() - 24 * 3600) * 1000)
        # The followed games of each partition and mode: a game whose mode is known is looked
        # for in that mode's sets only, one not known yet in every mode's (issue 32: with 2,000
        # games followed and 13 modes, 52,000 ids went to Redis every 5 s, 4,000 now).
        self._mode_of = {game_id: mode for game_id, mode in self._mode_of.items() if game_id in followed}
        unknown: dict[int, list[str]] = {}
        known: dict[tuple[int, str], list[str]] = {}
        for game_id in followed:
            partition = partition_of(game_id, self.keys.partitions)
            mode = self._mode_of.get(game_id)
            if mode is None or mode not in modes:
                unknown.setdefault(partition, []).append(game_id)
            else:
                known.setdefault((partition, mode), []).append(game_id)
        now = dict.fromkeys(modes, 0)
        online_now = dict.fromkeys(modes, 0)
        # One pipeline a partition, not one for all: with thousands of games followed, encoding
        # their ids for every mode at once held the engine's event loop for tens of milliseconds
        # every few seconds, and every action waited (issue 32, the round trip's tail).
        for partition in range(self.keys.partitions):
            asked: list[tuple[str, list[str]]] = []
            async with self.redis.pipeline(transaction=False) as pipe:
                for mode in modes:
                    running, online = self.keys.running(partition, mode), self.keys.running_online(partition, mode)
                    if prune:
                        pipe.zremrangebyscore(running, "-inf", stale)
                        pipe.zremrangebyscore(online, "-inf", stale)
                    pipe.zcard(online)
                    ids = known.get((partition, mode), []) + unknown.get(partition, [])
                    if ids:
                        pipe.zmscore(running, ids)
                        pipe.zmscore(online, ids)
                    asked.append((mode, ids))
                replies = iter(await pipe.execute())
            for mode, ids in asked:
                if prune:
                    next(replies), next(replies)
                online_count = int(next(replies))
                online_now[mode] += online_count
                now[mode] += online_count
                if ids:
                    in_running, in_online = next(replies), next(replies)
                    for game_id, running_score, online_score in zip(ids, in_running, in_online, strict=True):
                        if running_score is None:
                            continue
                        self._mode_of[game_id] = mode
                        if online_score is None:
                            # A followed game of the mode that is not online (those are counted above).
                            now[mode] += 1
        return now, online_now
