"""The websocket protocol the gateway serves: uvicorn's default (websockets' sans-I/O one), with
the close of a connection whose keepalive ping went unanswered given the protocol's timeout code
(docs/protocol.md, Limits). uvicorn closes it with 1011 (internal error), which says the server
failed, while it is the client that stopped answering: the gateway's own timeouts close with 4408.
And a frame framed already (wire.py) can be written to the socket as it is, past the ASGI send.

A connection is pinged only when it has been silent for the ping interval: whatever the client
sent is as good a sign of life as a pong, and a client in play (or the web client, which sends
its own ping frame every 10 s) then costs no ping at all. One that went silent is still closed
within the interval and the timeout of its last sign of life (issue 32: a ping and its pong cost
the gateway about as much as a small frame each way)."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

PING_TIMEOUT_CODE = 4408
PING_TIMEOUT_REASON = "no answer to the ping"
# What uvicorn's keepalive fails the connection with when a pong did not come in time.
_LIBRARY_PING_TIMEOUT = (1011, "keepalive ping timeout")


class GatewayWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heard_at = self.loop.time()  # when the client last sent anything

    def data_received(self, data: bytes) -> None:
        self.heard_at = self.loop.time()
        super().data_received(data)

    def send_keepalive_ping(self) -> None:
        quiet = self.loop.time() - self.heard_at
        if self.ping_interval is not None and quiet < self.ping_interval:
            # Heard from since: the ping is due an interval after that.
            self.ping_timer = self.loop.call_later(self.ping_interval - quiet, self.send_keepalive_ping)
            return
        super().send_keepalive_ping()

    def keepalive_timeout(self) -> None:
        # uvicorn's own timeout, with the close code changed on its way out: the connection's
        # fail() is wrapped for this one call, so the rest of uvicorn's handling stays as it is.
        conn = self.conn
        fail = conn.fail

        def fail_as_timeout(code: int, reason: str = "", *args: Any, **kwargs: Any) -> None:
            if (code, reason) == _LIBRARY_PING_TIMEOUT:
                code, reason = PING_TIMEOUT_CODE, PING_TIMEOUT_REASON
            fail(code, reason, *args, **kwargs)

        setattr(conn, "fail", fail_as_timeout)  # noqa: B010 - an instance attribute, for one call
        try:
            super().keepalive_timeout()
        finally:
            delattr(conn, "fail")

    def write_frame(self, wire: bytes) -> bool:
        """Writes a whole frame (wire.py) to the socket, if the connection is open and its
        transport is taking more; False, writing nothing, otherwise: the frame then goes the ASGI
        way, which waits for the transport or says how the connection ended. The library's own
        frames (pings, pongs, the close) are written at once, on this same thread, so a whole
        frame written here never lands inside one of them."""
        if (
            self.disconnected
            or self.close_sent
            or not self.handshake_complete
            or not self.writable.is_set()
            or self.conn.state is not State.OPEN
            or self.transport.is_closing()
        ):
            return False
        self.transport.write(wire)
        return True

    async def until_writable(self) -> None:
        """Until the transport takes more (at once unless the client has stopped reading)."""
        await self.writable.wait()
