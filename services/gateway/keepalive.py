"""The websocket protocol the gateway serves: uvicorn's default (websockets' sans-I/O one), with
the close of a connection whose keepalive ping went unanswered given the protocol's timeout code
(docs/protocol.md, Limits). uvicorn closes it with 1011 (internal error), which says the server
failed, while it is the client that stopped answering: the gateway's own timeouts close with 4408."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

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
