"""What one client may ask of a gateway (docs/protocol.md, Limits): message credits per
connection, the budgets of each client address (budgets.py), the pages (origins) that may open /ws, and the close
codes that say which limit ended a connection."""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from boxedin.common.logs import RateLimitedLog
from boxedin.common.metrics import GATEWAY_REFUSALS
from boxedin.common.settings import Settings, default

from .budgets import AddressBudgets, BudgetSettings

# Close codes (RFC 6455 section 7.4: 4000-4999 are the application's own; 4408 and 4429 read as
# the HTTP statuses they borrow, as graphql-ws uses them).
CLOSE_TRY_LATER = 1013  # "try again later": the client address has too many open, or is over a budget
CLOSE_TIMEOUT = 4408  # no hello in time, no frame for too long, or idle beyond the address's share
CLOSE_TOO_FAST = 4429  # kept on sending without credits, the connection's or its address's
# How connections end, as boxedin_websocket_closes_total names them (each exported at 0): the
# close code either side sent (1000 closed, 1001 page gone, 1005 none given, 1006 lost without a
# close frame, 1012 the gateway restarting, and the gateway's own above), or "reset" when the
# gateway dropped a client that did not read.
CLOSE_CODES = ("1000", "1001", "1005", "1006", "1012", str(CLOSE_TRY_LATER), str(CLOSE_TIMEOUT),
               str(CLOSE_TOO_FAST), "reset")  # fmt: skip
# A page of an origin not allowed never gets a websocket: its handshake is answered HTTP 403.
# A gateway that is draining (drain.py) answers every new handshake HTTP 503.

# What boxedin_gateway_refusals_total counts, by reason: websockets refused or closed under a
# limit, and frames the gateway refuses itself (the other refusals are the engine's and the
# matchmaker's rules, in boxedin_refusals_total); too_many_tries is the room join limit, per
# device and per client address; the budgets of one client address (budgets.py) refuse new
# connections (connect_rate), keep descriptors for others (descriptors), close a connection for its
# address's frames or actions (address_frames, address_actions) and the idlest beyond the address's
# idle share (idle_share), and end connections whose headers never came (header_timeout).
CONNECTION_REFUSALS = ("origin", "too_many_connections", "draining", "credits_exhausted", "connect_rate",
                       "descriptors", "address_frames", "address_actions", "idle_share", "header_timeout")  # fmt: skip
FRAME_REFUSALS = ("too_fast", "too_large", "bad_message", "hello_first", "too_many_tries")
REFUSAL_REASONS = CONNECTION_REFUSALS + FRAME_REFUSALS


def count_refusal(reason: str) -> None:
    """Counts one of REFUSAL_REASONS (any other reason is not a limit of the gateway's)."""
    if reason in REFUSAL_REASONS:
        GATEWAY_REFUSALS.labels(reason).inc()


for _reason in REFUSAL_REASONS:
    GATEWAY_REFUSALS.labels(_reason)


@dataclass(frozen=True)
class ConnectionLimits:
    """The limits of docs/protocol.md, Limits, from the settings."""

    send_queue_frames: int = default("send_queue_frames")
    send_stall_seconds: float = default("send_stall_seconds")
    frame_credits: int = default("frame_credits")
    frame_credits_per_second: float = default("frame_credits_per_second")
    hello_timeout_seconds: float = default("hello_timeout_seconds")
    idle_timeout_seconds: float = default("idle_timeout_seconds")

    @classmethod
    def of(cls, config: Settings) -> ConnectionLimits:
        return cls(
            send_queue_frames=config.send_queue_frames,
            send_stall_seconds=config.send_stall_seconds,
            frame_credits=config.frame_credits,
            frame_credits_per_second=config.frame_credits_per_second,
            hello_timeout_seconds=config.hello_timeout_seconds,
            idle_timeout_seconds=config.idle_timeout_seconds,
        )


class Credits:
    """A connection's message credits, as lila-ws keeps them, in a token bucket: ``burst`` frames
    at once, refilled at ``per_second``. Each frame takes one; a frame that finds none is refused
    and still counts, so a client that keeps on sending sinks into debt, and one that owes
    ``burst`` frames is ``exhausted`` (its connection is closed). One that slows down to the
    refill rate gets its credits back."""

    def __init__(self, burst: int, per_second: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.per_second = per_second
        self.clock = clock
        self.level = float(burst)
        self._at = clock()

    def take(self) -> bool:
        """Takes a frame's credit: false when there was none (the frame is refused)."""
        now = self.clock()
        self.level = min(float(self.burst), self.level + (now - self._at) * self.per_second)
        self._at = now
        self.level -= 1
        return self.level >= 0

    @property
    def exhausted(self) -> bool:
        return self.level <= -self.burst


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _origin_key(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin such as ``https://example.org``; None when it is not one
    (``null``, a file: page, garbage)."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or _DEFAULT_PORTS[parts.scheme]


def _unrebindable(hostname: str) -> bool:
    """Whether a host name is one no other site's page can be served under: an IP address, or
    localhost. Any other name can be pointed at the gateway by whoever owns it (DNS rebinding: a
    page of evil.example whose name now resolves to the gateway sends Origin and Host both of
    evil.example), so a name is the gateway's own only when it is configured."""
    try:
        ipaddress.ip_address(hostname.strip("[]"))
    except ValueError:
        return hostname == "localhost"
    return True


def same_host(origin: str, host: str | None) -> bool:
    """Whether the page's origin names the host (and port) the client connected to, as its Host
    header says, and that host is an address (or localhost): the web client the gateway serves
    itself, reached by its address. A Host without a port was reached on the default port of the
    page's scheme. A page reached by a name is the gateway's own only when its origin is
    configured (``BOXEDIN_ALLOWED_ORIGINS``; the chart adds its Ingress hosts)."""
    key = _origin_key(origin)
    if key is None or not host:
        return False
    try:
        parts = urlsplit("//" + host.strip().lower())
        port = parts.port
    except ValueError:
        return False
    scheme, hostname, origin_port = key
    same = parts.hostname == hostname and (port or _DEFAULT_PORTS[scheme]) == origin_port
    return same and _unrebindable(hostname)


class OriginPolicy:
    """Which pages may open a websocket. Browsers always send ``Origin`` with a websocket
    handshake, so a page of another site that opens the gateway from its visitors' browsers is
    told apart by it; other clients (scripts, load tests, native apps) send none, or whatever they
    like, so it is no check on them and a handshake without one is allowed. Allowed: the origins
    listed in ``allowed`` (comma-separated; ``*``: any: the installation's public origins and
    other sites'), and the gateway's own host when the page reached it by its address."""

    def __init__(self, allowed: str) -> None:
        items = [item.strip() for item in allowed.split(",") if item.strip()]
        self.any = "*" in items
        self.allowed = {key for key in map(_origin_key, items) if key is not None}

    def allows(self, origin: str | None, host: str | None) -> bool:
        if origin is None or self.any:
            return True
        return _origin_key(origin) in self.allowed or same_host(origin, host)


@dataclass
class GatewayLimits:
    """The limits one gateway process keeps across its connections."""

    connection: ConnectionLimits
    addresses: AddressBudgets
    origins: OriginPolicy
    # One line per refused or ended connection, at most 10 a second for each reason.
    log: RateLimitedLog = field(
        default_factory=lambda: RateLimitedLog(logging.getLogger("boxedin.gateway.limits"), key_field="reason")
    )

    @classmethod
    def of(cls, config: Settings) -> GatewayLimits:
        return cls(
            ConnectionLimits.of(config),
            # The proxies whose forwarded header names the client (forwarded.py): their own address
            # holds every player behind them, so their connections are counted by that name.
            AddressBudgets(BudgetSettings.of(config), proxies=config.trusted_proxies),
            OriginPolicy(config.allowed_origins),
        )
