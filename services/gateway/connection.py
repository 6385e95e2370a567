"""One websocket connection's life, apart from what its frames mean (session.py). Frames go out
through a bounded queue that a writer task of the connection's own drains, so sending never waits
on the socket and a client that stops reading holds up nobody but itself: when its queue is full,
or a frame has waited ``send_stall_seconds`` for it to read, it is dropped. Frames come in under
the hello and idle timeouts (docs/protocol.md, Limits). A frame small enough goes out as bytes
framed once for every socket that sends it (wire.py): written at once when nothing is queued
before it, by the writer otherwise, past the ASGI send either way."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import time
from collections import deque
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from boxedin.common.cancelling import stop_task
from boxedin.common.logs import RateLimitedLog
from boxedin.common.metrics import WEBSOCKET_CLOSES, at_zero

from .budgets import client_address
from .limits import CLOSE_CODES, CLOSE_TIMEOUT, ConnectionLimits, Credits, count_refusal
from .wire import WIRE

at_zero(WEBSOCKET_CLOSES, *((code,) for code in CLOSE_CODES))

# The scope keys under which KeepTransport leaves a websocket's TCP transport, and its protocol
# when that is the gateway's own (keepalive.GatewayWebSocketProtocol: it writes whole frames).
TRANSPORT = "boxedin.transport"
PROTOCOL = "boxedin.protocol"


class KeepTransport:
    """ASGI middleware: keeps a websocket's TCP transport in its scope, when the server gives a
    way to it (uvicorn's send is a method of its protocol object, which holds the transport).
    ASGI itself cannot drop a connection whose client stopped reading: a close frame would wait
    behind the unread data, and closing the socket waits for that data to be read. Resetting the
    transport frees it at once. Without it (another ASGI server) such a connection's session still
    ends, and its socket is left to the server."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            protocol = getattr(send, "__self__", None)
            transport = getattr(protocol, "transport", None)
            if callable(getattr(transport, "abort", None)):
                scope[TRANSPORT] = transport
            if callable(getattr(protocol, "write_frame", None)):
                scope[PROTOCOL] = protocol
        await self.app(scope, receive, send)


def reset(transport: Any) -> None:
    """Resets a TCP connection: its unsent data is thrown away and the client gets a RST at once.
    A plain close (or asyncio's abort) leaves the kernel trying to deliver what the client never
    reads, and the client sees the connection open for minutes more."""
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


class Connection:
    def __init__(self, ws: WebSocket, limits: ConnectionLimits, log: RateLimitedLog) -> None:
        self.ws = ws
        self.limits = limits
        self.log = log
        self.credits = Credits(limits.frame_credits, limits.frame_credits_per_second)
        self.address = client_address(ws.client)
        # When the client last sent a frame other than ping (the session says): an address's
        # websockets idle longest are closed first when it has too many (budgets.py).
        self.active_at = time.monotonic()
        # Why the server ended the connection (a reason for the log), or None.
        self.ended: str | None = None
        self._queue: deque[str] = deque()
        self._sending = False  # the writer has a frame on its way: the next ones queue behind it
        self._protocol = ws.scope.get(PROTOCOL)
        self._ready = asyncio.Event()
        self._close_frame: tuple[int, str] | None = None  # sent after the frames queued before it
        self._gone = False  # the socket is closed: by the client, or reset by the server
        # How the connection ended, the first side's say (a close code, or "reset"), counted once.
        self.closed_with: str | None = None
        self._loop = asyncio.get_running_loop()
        self._opened = self._heard = self._loop.time()
        self._receiving: asyncio.Timeout | None = None
        self._writer = asyncio.create_task(self._write())

    @property
    def open(self) -> bool:
        return self.ended is None and not self._gone

    # --- out -----------------------------------------------------------------------------------

    def send(self, text: str) -> None:
        """Queues a frame; never waits. Frames go out in the order they were queued."""
        if not self.open:
            return
        if not self._queue and not self._sending and self._protocol is not None:
            wire = WIRE.frame(text)
            if wire is not None and self._protocol.write_frame(wire):
                return
        if len(self._queue) >= self.limits.send_queue_frames:
            self.drop("send_queue_full", f"{len(self._queue)} frames waited for the client to read them")
            return
        self._queue.append(text)
        self._ready.set()

    def close(self, code: int, reason: str, why: str) -> None:
        """Ends the connection once the frames queued so far are out, with a close frame."""
        if not self.open:
            return
        self.ended = why
        self._close_frame = (code, reason)
        self.closed_with = self.closed_with or str(code)
        self._ready.set()
        self._say_ended(why, reason)
        self._wake_reader()

    def close_idle(self) -> None:
        count_refusal("idle_share")
        self.close(CLOSE_TIMEOUT, "idle: too many idle connections from your address", "idle_over_share")

    def drop(self, why: str, detail: str) -> None:
        """Ends the connection now, dropping the frames queued, by resetting its TCP connection:
        for a client that does not read, which would never read a close frame either."""
        if self._gone:
            return
        self.closed_with = self.closed_with or "reset"
        if self.ended is None:
            self.ended = why
            self._say_ended(why, detail)
        self._gone = True
        self._queue.clear()
        if self._writer is not asyncio.current_task():
            self._writer.cancel()
        reset(self.ws.scope.get(TRANSPORT))
        self._wake_reader()

    async def _write(self) -> None:
        stall = self.limits.send_stall_seconds
        try:
            while True:
                if self._queue:
                    text = self._queue.popleft()
                    self._sending = True
                    async with asyncio.timeout(stall):
                        await self._send(text)
                    self._sending = False
                elif self._close_frame is not None:
                    async with asyncio.timeout(stall):
                        await self.ws.close(*self._close_frame)
                    return
                else:
                    self._ready.clear()
                    await self._ready.wait()
        except TimeoutError:  # before OSError: TimeoutError is one
            self.drop("not_reading", f"a frame waited {stall:g} s for the client to read")
        except WebSocketDisconnect as exc:
            self.closed_with = self.closed_with or str(exc.code)
            self._gone = True
            self._queue.clear()
        except (RuntimeError, OSError):
            # The client left (its reader sees it too), or the connection closed under the frame.
            self._gone = True
            self._queue.clear()

    async def _send(self, text: str) -> None:
        protocol = self._protocol
        if protocol is not None:
            wire = WIRE.frame(text)
            if wire is not None:
                await protocol.until_writable()
                if protocol.write_frame(wire):
                    return
        # Too large to go uncompressed, or the connection is ending: the ASGI send says how.
        await self.ws.send_text(text)

    def _say_ended(self, why: str, detail: str) -> None:
        self.log.log(why, "connection ended by the gateway", reason=why, detail=detail, client=self.address)

    # --- in ------------------------------------------------------------------------------------

    async def receive(self, *, said_hello: bool) -> dict[str, Any] | None:
        """The client's next message, or None once the connection is over: the client left, it
        said nothing in time (then it is closed with 4408), or the gateway is ending it."""
        if not self.open:
            return None
        limits = self.limits
        if said_hello:
            deadline, why = self._heard + limits.idle_timeout_seconds, "idle_timeout"
            reason = f"no frame for {limits.idle_timeout_seconds:g} s"
        else:
            deadline, why = self._opened + limits.hello_timeout_seconds, "hello_timeout"
            reason = f"no hello within {limits.hello_timeout_seconds:g} s"
        try:
            async with asyncio.timeout_at(deadline) as self._receiving:
                message = dict(await self.ws.receive())
        except TimeoutError:
            # Woken by close() or drop(), or the client said nothing in time.
            self.close(CLOSE_TIMEOUT, reason, why)
            return None
        finally:
            self._receiving = None
        if message["type"] == "websocket.disconnect":
            self.closed_with = self.closed_with or str(message.get("code") or 1005)
            self._gone = True
            return None
        self._heard = self._loop.time()
        return message

    def _wake_reader(self) -> None:
        """Ends a wait in receive() at once (it returns None)."""
        receiving = self._receiving
        if receiving is not None and not receiving.expired():
            receiving.reschedule(self._loop.time())

    # --- the end -------------------------------------------------------------------------------

    async def finish(self) -> None:
        """After the session: lets a close under way go out (a client that does not read it in
        time is dropped), then stops the writer."""
        if self._close_frame is not None and not self._gone:
            done, _ = await asyncio.wait({self._writer}, timeout=self.limits.send_stall_seconds + 1)
            if not done:
                self.drop("not_reading", "the close frame was not read")
        self._gone = True
        self._queue.clear()
        await stop_task(self._writer)
        # A connection that ended with neither side's close frame read was lost (1006).
        WEBSOCKET_CLOSES.labels(self.closed_with or "1006").inc()
