"""The websocket protocol the gateway serves: uvicorn's default (websockets' sans-I/O one), with
the close of a connection whose keepalive ping went unanswered given the protocol's timeout code
(docs/protocol.md, Limits). uvicorn closes it with 1011 (internal error), which says the server
failed, while it is the client that stopped answering: the gateway's own timeouts close with 4408.
And a frame framed already (wire.py) can be written to the socket as it is, past the ASGI send."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

PING_TIMEOUT_CODE = 4408
PING_TIMEOUT_REASON = "no answer to the ping"
# What uvicorn's keepalive fails the connection with when a pong did not come in time.
_LIBRARY_PING_TIMEOUT = (1011, "keepalive ping timeout")


class GatewayWebSocketProtocol(WebSocketsSansIOProtocol):
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
