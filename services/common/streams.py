"""Reading Redis streams through a consumer group, as the AI service reads computer turns and
the stats service finished games: a consumer name of its own per process, the group made on
each stream when missing (again if the stream was deleted), reads that log and wait out a
failure instead of ending the loop that made them, and the taking over of entries whose
reader died (``XAUTOCLAIM``)."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from collections.abc import Coroutine
from typing import Any, cast

import redis.asyncio as redis

from .cancelling import cancel_and_wait
from .metrics import REDIS_UP
from .progress import WATCH, Loop

log = logging.getLogger("boxedin.streams")
# decode_responses is off: ids and fields are bytes (RESP2 shapes).
Entry = tuple[bytes, dict[bytes, bytes]]
_ReadReply = list[tuple[bytes, list[Entry]]]
_ClaimedEntry = tuple[bytes | None, dict[bytes, bytes] | None]
# How long one read waits for an entry before the loop looks again.
BLOCK_MS = 2000


class GroupReader:
    def __init__(self, client: redis.Redis, group: str, what: str, loop: str = "") -> None:
        self.redis = client
        self.group = group
        self.what = what  # for the logs: "computer turns", "finished games"
        # The readers' loops, one a stream, under this name in the process's health
        # (boxedin.common.progress): "ai.turns", "stats.counter".
        self.loop = loop or f"{group}.reader"
        self._progress: dict[str, Loop] = {}
        self.consumer = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        await cancel_and_wait(list(self._tasks))
        for progress in self._progress.values():
            WATCH.forget(progress.name)
        self._progress.clear()

    async def round(self, stream: str) -> None:
        """A round of this stream's reader, for the process's health; blocks while a test
        freezes the readers. ``read`` reports it; a reader that waits on something else before
        reading (its capacity) reports it too, so that waiting counts as going round."""
        progress = self._progress.get(stream)
        if progress is None:
            # A read blocks BLOCK_MS, and one that failed waits 1 s more.
            progress = self._progress[stream] = WATCH.loop(f"{self.loop}:{stream}", BLOCK_MS / 1000 + 1, self.loop)
        await progress.round()

    async def ensure_group(self, stream: str) -> None:
        """The group on the stream, reading from its start (entries written before it count)."""
        try:
            await self.redis.xgroup_create(stream, self.group, id="0", mkstream=True)
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def read(self, stream: str, count: int) -> list[Entry]:
        """New entries of the stream for this consumer (none after ``BLOCK_MS``, or after a
        failure that was logged and waited out)."""
        await self.round(stream)
        try:
            reply = cast(
                "_ReadReply | None",
                await self.redis.xreadgroup(self.group, self.consumer, {stream: ">"}, count=count, block=BLOCK_MS),
            )
            REDIS_UP.set(1)
        except redis.ResponseError as exc:
            if "NOGROUP" in str(exc):  # the stream was deleted: make it and the group again
                await self.ensure_group(stream)
                return []
            log.warning(f"reading {self.what} failed", extra={"stream": stream, "error": str(exc)})
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            REDIS_UP.set(0)
            log.warning(f"reading {self.what} failed", extra={"stream": stream, "error": str(exc)})
        else:
            return [entry for _, entries in reply or () for entry in entries]
        await asyncio.sleep(1)
        return []

    async def claim_idle(self, stream: str, idle_ms: int, count: int) -> list[Entry]:
        """Entries pending for longer than ``idle_ms`` (their reader died), now this consumer's;
        entries deleted from the stream meanwhile are acknowledged and dropped."""
        try:
            reply = await self.redis.xautoclaim(stream, self.group, self.consumer, idle_ms, "0-0", count=count)
            deleted = cast("list[bytes]", reply[2] if len(reply) > 2 else [])
            if deleted:
                await self.redis.xack(stream, self.group, *deleted)
        except redis.RedisError as exc:
            log.warning(f"claiming {self.what} failed", extra={"stream": stream, "error": str(exc)})
            return []
        claimed = cast("list[_ClaimedEntry]", reply[1])
        return [(entry_id, fields) for entry_id, fields in claimed if entry_id is not None and fields]

    async def done(self, stream: str, *entry_ids: bytes) -> None:
        """Acknowledges entries and deletes them: read once, they are kept no longer."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xack(stream, self.group, *entry_ids)
            pipe.xdel(stream, *entry_ids)
            await pipe.execute()
