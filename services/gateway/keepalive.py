"""The websocket protocol the gateway serves: uvicorn's, with the close of a connection whose
keepalive ping went unanswered given the protocol's timeout code (docs/protocol.md, Limits).
The websockets library closes it with 1011 (internal error), which says the server failed, while
it is the client that stopped answering: the gateway's own timeouts close with 4408."""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_impl import WebSocketProtocol

PING_TIMEOUT_CODE = 4408
PING_TIMEOUT_REASON = "no answer to the ping"
# What websockets' keepalive passes when a pong did not come in time.
_LIBRARY_PING_TIMEOUT = (1011, "keepalive ping timeout")


class GatewayWebSocketProtocol(WebSocketProtocol):
    def fail_connection(self, code: int = 1006, reason: str = "") -> None:
        if (code, reason) == _LIBRARY_PING_TIMEOUT:
            code, reason = PING_TIMEOUT_CODE, PING_TIMEOUT_REASON
        super().fail_connection(code, reason)
