"""A gateway that is told to stop (SIGTERM) drains instead of dropping every websocket at once
(docs/protocol.md, Reconnecting): it stops taking websockets (a new handshake is answered HTTP
503, so a proxy sends it to another replica, and /readyz fails at once), and tells each client
to reconnect after a delay of its own. The delays cover the spread evenly in random order, so
the other replicas take the clients at a steady rate rather than all in one burst. Once every
client has gone, or DRAIN_MARGIN_SECONDS after the spread, uvicorn's own shutdown closes what is
left (1012) and lets running calls finish for shutdown_grace_seconds."""

from __future__ import annotations

import asyncio
import logging
import random
import signal
import socket
import time
from types import FrameType
from typing import Protocol

import uvicorn

log = logging.getLogger("boxedin.gateway.drain")

# What a client that was told to go gets past the end of the spread to reconnect (a handshake
# and a hello through the proxy) before it is closed.
DRAIN_MARGIN_SECONDS = 2.0


class Leaving(Protocol):
    """A connection that can be told to reconnect (a Session)."""

    def reconnect_after(self, seconds: float) -> None: ...


class Drain:
    """The connections of one gateway process, and whether it is draining."""

    def __init__(
        self, spread_seconds: float, rng: random.Random | None = None, margin_seconds: float = DRAIN_MARGIN_SECONDS
    ) -> None:
        self.spread = spread_seconds
        self.margin = margin_seconds
        self.rng = rng or random.Random()
        self.started_at: float | None = None
        self._open: set[Leaving] = set()
        self._gone = asyncio.Event()

    @property
    def draining(self) -> bool:
        return self.started_at is not None

    @property
    def connections(self) -> int:
        return len(self._open)

    def join(self, connection: Leaving) -> None:
        """A websocket accepted; one accepted while draining (its handshake was under way) is
        told at once, with a delay in what is left of the spread."""
        self._open.add(connection)
        self._gone.clear()
        if self.started_at is not None:
            left = max(0.0, self.started_at + self.spread - time.monotonic())
            connection.reconnect_after(self.rng.uniform(0, left))

    def leave(self, connection: Leaving) -> None:
        self._open.discard(connection)
        if not self._open:
            self._gone.set()

    def begin(self) -> None:
        """Tells every client to go, each after its own delay: the n connections get one delay
        in each n-th of the spread, in random order."""
        if self.started_at is not None:
            return
        self.started_at = time.monotonic()
        connections = list(self._open)
        self.rng.shuffle(connections)
        count = len(connections)
        for index, connection in enumerate(connections):
            connection.reconnect_after(self.spread * (index + self.rng.random()) / count)
        log.info("draining", extra={"connections": count, "spread_seconds": self.spread})
        if not self._open:
            self._gone.set()

    async def over(self) -> None:
        """Waits until every connection has gone, or the spread and its margin have passed."""
        assert self.started_at is not None, "over() before begin()"
        left = self.started_at + self.spread + self.margin - time.monotonic()
        try:
            await asyncio.wait_for(self._gone.wait(), max(0.0, left))
        except TimeoutError:
            log.info("drain over: closing the connections left", extra={"connections": len(self._open)})


class DrainingServer(uvicorn.Server):
    """uvicorn's server, but its first SIGTERM drains the gateway (``Drain``) before uvicorn's
    own shutdown. SIGINT (Ctrl-C at a terminal) and a second SIGTERM stop it at once, as ever."""

    def __init__(self, config: uvicorn.Config, drain: Drain) -> None:
        super().__init__(config)
        self.drain = drain
        self._loop: asyncio.AbstractEventLoop | None = None
        self._draining: asyncio.Task[None] | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().startup(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig == signal.SIGTERM and not self.drain.draining and self._loop is not None:
            # Kept, as uvicorn keeps it, so the process ends by the signal once shut down.
            self._captured_signals.append(sig)
            self._loop.call_soon_threadsafe(self._start_draining)
            return
        super().handle_exit(sig, frame)

    def _start_draining(self) -> None:
        self.drain.begin()
        self._draining = asyncio.get_running_loop().create_task(self._drain_then_exit())

    async def _drain_then_exit(self) -> None:
        await self.drain.over()
        self.should_exit = True
