"""One connection to Redis that carries the calls of a hot script, many at a time.

An action's commit is one Lua script call, and through redis-py it cost about as much CPU as
the engine's own work on the action (issue 14, Capacity): the command packed in Python, a
connection taken from the pool and given back, and the layers of retry around them. A
``ScriptLine`` packs the call with hiredis (C), writes it on one connection of its own and
reads the reply with hiredis's parser; calls made at the same moment share the connection, in
order (Redis answers a connection's commands in the order they came, so each reply goes to
the oldest call waiting).

The calls made in one turn of the event loop go out in one write, at the end of the turn: a
write to Redis is a system call that on loopback also does Redis's side of TCP, and an action's
commit spent about a seventh of the engine's CPU in it (py-spy, issue 32). The engine starts the
actions that came in one message of the action stream in one turn, so their commits share it.

It never tries again itself. When it has no connection, or loses it with calls in flight, or
Redis does not know the script (after a restart), it raises ``LineUnavailable`` and the caller
makes the same call through redis-py, which connects, loads the script and tries again as it
always did. That is safe for the same reason redis-py's own retries are: the scripts sent this
way compare the seq (and the revision) before they change anything, so a call that did land
before its reply was lost is refused the second time.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Sequence
from typing import Any, cast

import hiredis
import redis.asyncio as redis
from redis._parsers.base import BaseParser
from redis.exceptions import NoScriptError

# Seconds to wait for a connection to Redis before giving the call to redis-py.
CONNECT_SECONDS = 2.0
# Seconds the line stays down after it failed to connect.
DOWN_SECONDS = 0.5

# The connection's name in Redis's CLIENT LIST.
LINE_NAME = "boxedin-script-line"

Arg = str | bytes | int


class LineUnavailable(Exception):
    """The line could not carry the call (no connection, the connection lost, the script
    unknown to Redis): make it through redis-py instead."""


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()
        # The calls written (or to be written at the end of this turn) and not yet answered,
        # oldest first.
        self.waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.lost = False
        # Calls packed in this turn of the loop, written together when it ends (send).
        self._unsent: list[bytes] = []
        self.writes = 0  # writes made, for the tests and benchmarks

    def send(self, command: bytes, waiter: asyncio.Future[Any]) -> None:
        """Queues a packed call, answered through ``waiter``; written with the others of this
        turn of the loop. Replies come in the order of the calls, so the order of ``waiting``
        is that of the bytes on the connection."""
        self.waiting.append(waiter)
        if not self._unsent:
            asyncio.get_running_loop().call_soon(self._write)
        self._unsent.append(command)

    def _write(self) -> None:
        unsent, self._unsent = self._unsent, []
        if self.lost or self.transport is None:
            return  # their waiters were failed with the connection
        self.writes += 1
        self.transport.write(unsent[0] if len(unsent) == 1 else b"".join(unsent))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not subclasses of asyncio.Transport, only alike.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            if not self.waiting:  # a reply nobody asked for: the connection is out of step
                self._fail(LineUnavailable("Redis answered a call that was not made"))
                return
            waiter = self.waiting.popleft()
            if waiter.done():  # its caller gave up (cancelled); the reply is dropped
                continue
            if isinstance(reply, hiredis.ReplyError):
                # redis-py's own error classes, so callers catch what they always caught.
                waiter.set_exception(BaseParser.parse_error(str(reply)))  # type: ignore[no-untyped-call]
            else:
                waiter.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self._fail(LineUnavailable(f"the connection to Redis was lost ({exc or 'closed'})"))

    def _fail(self, error: Exception) -> None:
        self.lost = True
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_exception(error)
        if self.transport is not None:
            self.transport.close()


class ScriptLine:
    """Calls of registered scripts over one connection of the line's own, to the Redis that
    ``client`` talks to. Made with ``for_client``, which gives None where the client is not a
    plain connection over TCP (a cluster, TLS, a Unix socket): the caller then uses redis-py."""

    def __init__(self, host: str, port: int, db: int, username: str | None, password: str | None) -> None:
        self.host, self.port, self.db = host, port, db
        self.username, self.password = username, password
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Future[_Protocol] | None = None
        self._down_until = 0.0

    @classmethod
    def for_client(cls, client: Any) -> ScriptLine | None:
        address = plain_address(client)
        return None if address is None else cls(*address)

    async def evalsha(self, script: Any, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        """The reply of ``script`` (a redis-py ``AsyncScript``, for its sha) called with these
        keys and arguments; raises redis-py's error for an error Redis answers, and
        ``LineUnavailable`` where redis-py should make the call instead."""
        protocol = self._protocol
        if protocol is None or protocol.lost:
            protocol = await self._connect()
        assert protocol.transport is not None
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        protocol.send(hiredis.pack_command((b"EVALSHA", script.sha, len(keys), *keys, *args)), waiter)
        try:
            return await waiter
        except NoScriptError as exc:
            raise LineUnavailable("Redis does not know the script (it restarted)") from exc

    async def _connect(self) -> _Protocol:
        # One connection for every caller: those that come while it is being made wait for it.
        # After a failed attempt the line stays down for a moment, so that while Redis is away
        # each call goes to redis-py at once rather than waiting on a connection of its own.
        loop = asyncio.get_running_loop()
        if loop.time() < self._down_until:
            raise LineUnavailable("the line is down after a failed connection; redis-py makes the call")
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
        connecting = self._connecting
        try:
            protocol = await asyncio.shield(connecting)
        except LineUnavailable:
            self._down_until = loop.time() + DOWN_SECONDS
            raise
        finally:
            if self._connecting is connecting and connecting.done():
                self._connecting = None
        self._protocol = protocol
        return protocol

    async def _open(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        try:
            _, protocol = await asyncio.wait_for(
                loop.create_connection(_Protocol, self.host, self.port), CONNECT_SECONDS
            )
        except (TimeoutError, OSError) as exc:
            raise LineUnavailable(f"cannot connect to Redis at {self.host}:{self.port} ({exc})") from exc
        hello: list[tuple[Arg, ...]] = []
        if self.password is not None:
            hello.append(("AUTH", self.username, self.password) if self.username else ("AUTH", self.password))
        # Named, so that an operator (or a test) finds it in CLIENT LIST.
        hello.append(("CLIENT", "SETNAME", LINE_NAME))
        if self.db:
            hello.append(("SELECT", self.db))
        try:
            for command in hello:
                waiter: asyncio.Future[Any] = loop.create_future()
                protocol.waiting.append(waiter)
                assert protocol.transport is not None
                protocol.transport.write(hiredis.pack_command(cast(Any, command)))
                await waiter
        except (redis.RedisError, LineUnavailable) as exc:
            protocol._fail(LineUnavailable(f"Redis refused the line's connection ({exc})"))
            raise LineUnavailable(f"Redis refused the line's connection ({exc})") from exc
        return protocol

    def waiting_calls(self) -> int:
        """Calls made and not answered yet."""
        return len(self._protocol.waiting) if self._protocol is not None else 0

    def writes(self) -> int:
        """Writes made on the connection open now (the calls of a turn of the loop share one)."""
        return self._protocol.writes if self._protocol is not None else 0

    def close(self) -> None:
        if self._protocol is not None and self._protocol.transport is not None:
            self._protocol.transport.close()
        self._protocol = None


def plain_address(client: Any) -> tuple[str, int, int, str | None, str | None] | None:
    """Where a plain redis-py client connects (host, port, db, username, password), for a
    connection of one's own beside it; None for a cluster, TLS or a Unix socket."""
    pool = getattr(client, "connection_pool", None)
    if not isinstance(client, redis.Redis) or pool is None or pool.connection_class is not redis.Connection:
        return None
    kwargs = pool.connection_kwargs
    return (
        kwargs.get("host", "localhost"),
        int(kwargs.get("port", 6379)),
        int(kwargs.get("db", 0) or 0),
        kwargs.get("username"),
        kwargs.get("password"),
    )
