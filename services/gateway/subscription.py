"""The update hub's subscription to Redis on a connection of its own, read with hiredis as the
messages come (issue 32). Through redis-py's PubSub a message cost the gateway about 115 us of
CPU: a task woken for each, a timeout set and cleared, the reply taken apart in Python layers
(and, over RESP3, printed into a debug line nobody reads); here it is about 35, the protocol's
callback handing channel and data to the hub at once. Every update an action makes reaches the
gateway of its player this way, besides the engine's answer.

Only for a plain Redis over TCP, as the commits' ScriptLine: for a cluster, TLS or a Unix socket
``for_client`` gives None and the hub reads through redis-py. The connection is made again by
the hub when it is lost; every channel is then subscribed anew, and the hub learns of it from
the confirmation of its own channel (UpdateHub._subscribed)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, cast

import hiredis

from boxedin.common.script_line import plain_address

log = logging.getLogger("boxedin.gateway.subscription")

# Seconds to wait for a connection (and its AUTH and SELECT) before the hub tries again.
CONNECT_SECONDS = 2.0
# The connection's name in Redis's CLIENT LIST.
NAME = "boxedin-gateway-updates"

Message = Callable[[bytes, bytes], None]  # channel, data
Subscribed = Callable[[bytes], None]  # channel


class SubscriptionLost(Exception):
    """The connection could not be made, or Redis refused it."""


class _Protocol(asyncio.Protocol):
    def __init__(self, on_message: Message, on_subscribed: Subscribed) -> None:
        self.on_message = on_message
        self.on_subscribed = on_subscribed
        self.reader = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # The replies to AUTH, CLIENT SETNAME and SELECT, before any message.
        self.greeted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.greetings = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            if isinstance(reply, hiredis.ReplyError):
                self._fail(SubscriptionLost(f"Redis refused the subscription: {reply}"))
                return
            if not isinstance(reply, list):  # +OK to a greeting
                self.greetings -= 1
                if self.greetings <= 0 and not self.greeted.done():
                    self.greeted.set_result(None)
                continue
            kind = reply[0]
            try:
                if kind == b"message":
                    self.on_message(reply[1], reply[2])
                elif kind == b"subscribe":
                    self.on_subscribed(reply[1])
            except Exception:
                # One message the hub could not take leaves the others to come.
                log.exception("a message of the update subscription was not handled")

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(SubscriptionLost(f"the connection to Redis was lost ({exc or 'closed'})"))

    def _fail(self, error: Exception) -> None:
        if not self.greeted.done():
            self.greeted.set_exception(error)
        if not self.lost.done():
            self.lost.set_result(None)
        if self.transport is not None:
            self.transport.close()


class Subscription:
    """The channels to be subscribed (``channels``), on the connection while it is up."""

    def __init__(
        self,
        host: str,
        port: int,
        db: int,
        username: str | None,
        password: str | None,
        on_message: Message,
        on_subscribed: Subscribed,
    ) -> None:
        self.host, self.port, self.db = host, port, db
        self.username, self.password = username, password
        self.on_message, self.on_subscribed = on_message, on_subscribed
        self.channels: set[str] = set()
        self._protocol: _Protocol | None = None

    @classmethod
    def for_client(cls, client: Any, on_message: Message, on_subscribed: Subscribed) -> Subscription | None:
        address = plain_address(client)
        return None if address is None else cls(*address, on_message, on_subscribed)

    @property
    def connected(self) -> bool:
        return self._protocol is not None and not self._protocol.lost.done()

    def subscribe(self, *channels: str) -> None:
        self.channels.update(channels)
        self._send("SUBSCRIBE", channels)

    def unsubscribe(self, *channels: str) -> None:
        self.channels.difference_update(channels)
        self._send("UNSUBSCRIBE", channels)

    def _send(self, command: str, channels: tuple[str, ...] | list[str]) -> None:
        protocol = self._protocol
        if channels and protocol is not None and protocol.transport is not None and not protocol.lost.done():
            protocol.transport.write(hiredis.pack_command((command, *channels)))

    async def connect(self) -> None:
        """Connects and subscribes every channel; raises SubscriptionLost when it cannot."""
        self.close()
        loop = asyncio.get_running_loop()
        try:
            _, protocol = await asyncio.wait_for(
                loop.create_connection(lambda: _Protocol(self.on_message, self.on_subscribed), self.host, self.port),
                CONNECT_SECONDS,
            )
        except (TimeoutError, OSError) as exc:
            raise SubscriptionLost(f"cannot connect to Redis at {self.host}:{self.port} ({exc})") from exc
        greetings: list[tuple[str | int, ...]] = []
        if self.password is not None:
            greetings.append(("AUTH", self.username, self.password) if self.username else ("AUTH", self.password))
        greetings.append(("CLIENT", "SETNAME", NAME))
        if self.db:
            greetings.append(("SELECT", self.db))
        assert protocol.transport is not None
        protocol.greetings = len(greetings)
        for greeting in greetings:
            protocol.transport.write(hiredis.pack_command(cast(Any, greeting)))
        try:
            await asyncio.wait_for(asyncio.shield(protocol.greeted), CONNECT_SECONDS)
        except TimeoutError as exc:
            protocol._fail(SubscriptionLost("Redis did not answer the subscription's greeting"))
            raise SubscriptionLost("Redis did not answer the subscription's greeting") from exc
        self._protocol = protocol
        self._send("SUBSCRIBE", sorted(self.channels))

    async def wait_lost(self, timeout: float) -> None:
        """Returns when the connection is lost, or after ``timeout`` seconds."""
        protocol = self._protocol
        if protocol is None or protocol.lost.done():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await asyncio.shield(protocol.lost)

    def close(self) -> None:
        if self._protocol is not None and self._protocol.transport is not None:
            self._protocol.transport.close()
        self._protocol = None
