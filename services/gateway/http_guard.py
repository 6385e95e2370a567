"""The gateway's TCP connections under the budgets per address (budgets.py), from the moment they
are accepted: uvicorn's own protocols, each with a few lines more. A connection is counted against
its address as soon as it is accepted, so one that never finishes its HTTP headers counts like a
websocket; its headers must be in within ``header_timeout_seconds`` or it is reset; an address
over its budget is answered at once, before a byte of its request is read. uvicorn offers neither:
``timeout_keep_alive`` only runs between requests, ``limit_concurrency`` counts every client
together, and ``h11_max_incomplete_event_size`` is h11's, not httptools'."""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from boxedin.common.logs import RateLimitedLog

from .budgets import AddressBudgets, client_address
from .connection import reset
from .keepalive import GatewayWebSocketProtocol
from .limits import count_refusal

# What a refused connection is answered, written before its request is read: it says why, and
# closes. A browser's websocket sees the handshake fail and reconnects later, as after any failure.
_REFUSALS = {
    "connect_rate": (429, "Too Many Requests", "too many new connections from your address"),
    "too_many_connections": (503, "Service Unavailable", "too many connections from your address"),
    "descriptors": (503, "Service Unavailable", "the server is full; try again shortly"),
}


def _answer(status: int, phrase: str, text: str, retry_after: int) -> bytes:
    body = text.encode()
    return (
        f"HTTP/1.1 {status} {phrase}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nretry-after: {retry_after}\r\nconnection: close\r\n\r\n"
    ).encode() + body


def raise_descriptor_limit() -> int:
    """Raises this process's soft limit on open files to its hard limit (a server's connections
    are its files), and returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return soft


def guarded_protocols(budgets: AddressBudgets, log: RateLimitedLog) -> tuple[type[Any], type[Any]]:
    """uvicorn's HTTP and websocket protocol classes, counting each connection against its address
    from its accept to its end (``uvicorn.run(http=..., ws=...)``)."""
    header_timeout = budgets.limits.header_timeout_seconds
    answers = {
        why: _answer(status, phrase, text, max(1, round(1 / budgets.limits.connects_per_second)))
        for why, (status, phrase, text) in _REFUSALS.items()
    }

    class GuardedHttp(HttpToolsProtocol):
        _address = ""
        _counted = False
        _upgraded = False
        _headers_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._address = client_address(self.client)
            if self._address in budgets.proxies:
                # Counted by the address its headers name, in app.py; its headers are timed all the same.
                self._start_headers_timer()
                return
            refused = budgets.connect(self._address)
            if refused is not None:
                count_refusal(refused)
                log.log(refused, "connection refused", reason=refused, client=self._address)
                transport.write(answers[refused])
                transport.close()
                return
            self._counted = True
            self._start_headers_timer()

        def _start_headers_timer(self) -> None:
            if self._headers_timer is None:
                self._headers_timer = self.loop.call_later(header_timeout, self._headers_too_late)

        def _stop_headers_timer(self) -> None:
            if self._headers_timer is not None:
                self._headers_timer.cancel()
                self._headers_timer = None

        def _headers_too_late(self) -> None:
            self._headers_timer = None
            count_refusal("header_timeout")
            log.log("header_timeout", "connection ended by the gateway", reason="header_timeout", client=self._address)
            # Reset, not closed: the client sent nothing worth an answer, and a reset frees the
            # descriptor at once.
            reset(self.transport)

        def on_message_begin(self) -> None:
            # Each request of a kept-alive connection has its own time for its headers.
            self._start_headers_timer()
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._stop_headers_timer()
            super().on_headers_complete()

        def handle_websocket_upgrade(self) -> None:
            self._stop_headers_timer()
            # The count goes on with the websocket protocol, which gives it back at its end.
            self._upgraded = True
            super().handle_websocket_upgrade()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_headers_timer()
            if self._counted and not self._upgraded:
                self._counted = False
                budgets.disconnect(self._address)
            super().connection_lost(exc)

    class GuardedWebSocket(GatewayWebSocketProtocol):
        def connection_lost(self, exc: Exception | None) -> None:
            peer = client_address(self.client)
            if peer not in budgets.proxies:
                budgets.disconnect(peer)
            super().connection_lost(exc)

    return GuardedHttp, GuardedWebSocket


def quiet_uvicorn_logs() -> None:
    """What a client can make uvicorn log at will (a text frame that is not UTF-8, a request that
    is not HTTP, a traceback), at most a few lines a second each (boxedin.common.logs)."""
    from boxedin.common.logs import ThrottleLines

    logging.getLogger("uvicorn.error").addFilter(ThrottleLines())
