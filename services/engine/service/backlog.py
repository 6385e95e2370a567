"""What waits in the streams the engine writes: the computer turns no AI replica is playing, and
the finished games the stats service has not counted. Measured here, by the writer, so that the
figures still come while their readers are stopped (which is when they matter). Both streams
keep an entry only until its reader is done with it (boxedin.common.streams: acknowledged and
deleted together), so what a stream holds is what is still to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import redis.asyncio as redis

from boxedin.common.keys import AI_GROUP, Keys

# A pending turn's AI replica renews it every third of the claim idle while it plays it
# (boxedin.ai.service.turns); one idle for longer was left by a replica that stopped. At most
# this many of those are looked at per partition: beyond it the count says "at least".
_ORPHANS_LOOKED_AT = 100


@dataclass(frozen=True, slots=True)
class Backlog:
    """One stream's entries still to do, and the age of the oldest (0 when none waits)."""

    waiting: int
    oldest_seconds: float


def _written(entry_id: bytes | str) -> float:
    """When an entry was added: its id's milliseconds part (the stream's own clock)."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[0]) / 1000


def _age(entry_ids: list[bytes | str], now: float) -> float:
    return max(0.0, now - min(_written(e) for e in entry_ids)) if entry_ids else 0.0


async def computer_turns_waiting(
    client: redis.Redis, keys: Keys, claim_idle_seconds: float, now: float
) -> list[Backlog]:
    """Per partition: turns no AI replica has read yet, plus turns read by a replica that has not
    renewed them for ``claim_idle_seconds`` (it stopped; another will claim them)."""
    streams = keys.work_streams()
    async with client.pipeline(transaction=False) as pipe:
        for stream in streams:
            pipe.xinfo_groups(stream)
            pipe.xrange(stream, "-", "+", count=1)
        first = await pipe.execute(raise_on_error=False)
    groups: dict[str, dict[str, Any]] = {}
    for i, stream in enumerate(streams):
        found = first[2 * i]
        if not isinstance(found, Exception):
            for group in cast("list[dict[str, Any]]", found):
                if _text(group["name"]) == AI_GROUP:
                    groups[stream] = group
    idle_ms = round(claim_idle_seconds * 1000)
    async with client.pipeline(transaction=False) as pipe:
        for stream in streams:
            pipe.xlen(stream)
            if stream in groups:
                pipe.xpending(stream, AI_GROUP)
                pipe.xrange(stream, "(" + _text(groups[stream]["last-delivered-id"]), "+", count=1)
                pipe.xpending_range(stream, AI_GROUP, "-", "+", _ORPHANS_LOOKED_AT, idle=idle_ms)
        replies = iter(await pipe.execute())
    backlogs = []
    for i, stream in enumerate(streams):
        length = int(next(replies))
        if stream not in groups:
            # No AI replica ever read this partition: everything in it waits.
            oldest = cast("list[tuple[bytes, Any]]", first[2 * i + 1])
            backlogs.append(Backlog(length, _age([entry_id for entry_id, _ in oldest], now) if length else 0.0))
            continue
        pending = int(cast("dict[str, Any]", next(replies))["pending"])
        unread = cast("list[tuple[bytes, Any]]", next(replies))
        orphans = cast("list[dict[str, Any]]", next(replies))
        # What the stream holds is read and pending, or not read yet.
        not_read = max(0, length - pending)
        ids: list[bytes | str] = [entry_id for entry_id, _ in unread] + [o["message_id"] for o in orphans]
        backlogs.append(Backlog(not_read + len(orphans), _age(ids, now)))
    return backlogs


async def games_not_counted(client: redis.Redis, keys: Keys, now: float) -> list[Backlog]:
    """Per partition: finished games the stats service has not counted yet (read or not)."""
    streams = keys.finished_streams()
    async with client.pipeline(transaction=False) as pipe:
        for stream in streams:
            pipe.xlen(stream)
            pipe.xrange(stream, "-", "+", count=1)
        replies = await pipe.execute()
    backlogs = []
    for i in range(len(streams)):
        length, oldest = int(replies[2 * i]), cast("list[tuple[bytes, Any]]", replies[2 * i + 1])
        backlogs.append(Backlog(length, _age([entry_id for entry_id, _ in oldest], now) if length else 0.0))
    return backlogs


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
