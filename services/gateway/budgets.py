"""What one client address may ask of a gateway process, across all its connections
(docs/protocol.md, Limits, Budgets per address): connections held at once (counted from the TCP
accept, before the websocket upgrade), new connections a second, frames a second and actions a
second, and how many of its connections may sit idle. A connection's own credits (limits.py) keep
one socket in line; these keep one address from slowing everybody else down with many sockets.

Every check here is a few dictionary look-ups and arithmetic: a refusal costs no gRPC call, no
Redis round trip and no log line of its own (the limits log is rate-limited)."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from boxedin.common.settings import Settings, default


def client_address(client: Any) -> str:
    """The client's address as the gateway takes it: the TCP peer. This is the one place that
    decides it, so that trusting a proxy's X-Forwarded-For (issue 28) changes it here only."""
    host = getattr(client, "host", None)
    if host is None and isinstance(client, tuple) and client:
        host = client[0]
    return str(host) if host else ""


# Connections a player needs at once (a tab or two, and a page loading): near the descriptors'
# limit, an address holding this many gets no more.
PLAYERS_SHARE = 4


class TrustedProxies:
    """The proxies whose forwarded header names the client's address (``BOXEDIN_TRUSTED_PROXIES``:
    networks, comma-separated, as boxedin.gateway.forwarded reads them). A connection from
    one of them is counted against its address once its headers name it (app.py), not at its
    accept: the proxy's own address holds every player behind it."""

    def __init__(self, spec: str) -> None:
        items = [item.strip() for item in spec.split(",") if item.strip()]
        self.any = "*" in items
        self.networks = []
        for item in items:
            try:
                self.networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                continue  # a Unix socket's path or a name: no TCP peer is it

    def __contains__(self, host: str) -> bool:
        if self.any:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)


class Bucket:
    """A token bucket that may run into debt down to ``-burst``: ``burst`` at once, refilled at
    ``per_second``. A take that finds less than its cost is refused but still counts (down to the
    floor), so an address that keeps on pushing stays refused until it slows down."""

    __slots__ = ("_at", "_clock", "burst", "level", "per_second")

    def __init__(self, burst: float, per_second: float, clock: Callable[[], float]) -> None:
        self.burst = float(burst)
        self.per_second = per_second
        self._clock = clock
        self.level = self.burst
        self._at = clock()

    def _refill(self) -> None:
        now = self._clock()
        self.level = min(self.burst, self.level + (now - self._at) * self.per_second)
        self._at = now

    def take(self, cost: float = 1.0) -> bool:
        self._refill()
        granted = self.level >= cost
        self.level = max(-self.burst, self.level - cost)
        return granted

    @property
    def exhausted(self) -> bool:
        """Owes a whole burst (as of the last take): a client that got here kept on after being
        refused."""
        return self.level <= -self.burst

    @property
    def full(self) -> bool:
        self._refill()
        return self.level >= self.burst


@dataclass(frozen=True)
class BudgetSettings:
    """The budgets of docs/protocol.md, Limits, from the settings."""

    connections: int = default("connections_per_address")
    idle_connections: int = default("idle_connections_per_address")
    idle_after_seconds: float = default("idle_after_seconds")
    connects_burst: int = default("address_connects_burst")
    connects_per_second: float = default("address_connects_per_second")
    too_fast_cost: int = default("address_too_fast_cost")
    frames_burst: int = default("address_frames_burst")
    frames_per_second: float = default("address_frames_per_second")
    actions_burst: int = default("address_actions_burst")
    actions_per_second: float = default("address_actions_per_second")
    header_timeout_seconds: float = default("header_timeout_seconds")
    descriptor_reserve: int = default("descriptor_reserve")

    @classmethod
    def of(cls, config: Settings) -> BudgetSettings:
        return cls(
            connections=config.connections_per_address,
            idle_connections=config.idle_connections_per_address,
            idle_after_seconds=config.idle_after_seconds,
            connects_burst=config.address_connects_burst,
            connects_per_second=config.address_connects_per_second,
            too_fast_cost=config.address_too_fast_cost,
            frames_burst=config.address_frames_burst,
            frames_per_second=config.address_frames_per_second,
            actions_burst=config.address_actions_burst,
            actions_per_second=config.address_actions_per_second,
            header_timeout_seconds=config.header_timeout_seconds,
            descriptor_reserve=config.descriptor_reserve,
        )


class Idle(Protocol):
    """What the budgets need of a websocket to close it for being idle."""

    @property
    def active_at(self) -> float: ...

    def close_idle(self) -> None: ...


@dataclass
class AddressBudget:
    """One address's budgets and what it holds now."""

    connects: Bucket
    frames: Bucket
    actions: Bucket
    held: int = 0  # TCP connections open, before and after the upgrade
    websockets: set[Idle] = field(default_factory=set)


class AddressBudgets:
    """Every address's budgets in this gateway process. An address that holds nothing and whose
    buckets have filled up again is forgotten, so the table stays as large as the addresses that
    are connected or were refused lately."""

    def __init__(
        self, limits: BudgetSettings, clock: Callable[[], float] = time.monotonic, proxies: str = ""
    ) -> None:
        self.limits = limits
        self.proxies = TrustedProxies(proxies)
        self.clock = clock
        self.addresses: dict[str, AddressBudget] = {}
        self.held = 0  # every address's connections: against the descriptors' limit
        self.max_held: int | None = None  # set at start from the file-descriptor limit
        self._forget_after = 0

    def _of(self, address: str) -> AddressBudget:
        budget = self.addresses.get(address)
        if budget is None:
            limits = self.limits
            budget = self.addresses[address] = AddressBudget(
                Bucket(limits.connects_burst, limits.connects_per_second, self.clock),
                Bucket(limits.frames_burst, limits.frames_per_second, self.clock),
                Bucket(limits.actions_burst, limits.actions_per_second, self.clock),
            )
        return budget

    # --- connections ---------------------------------------------------------------------------

    def connect(self, address: str) -> str | None:
        """A TCP connection from ``address`` was accepted: None when it may go on (it is counted
        until ``disconnect``), else why it is refused: ``connect_rate`` (too many new ones a
        second), ``too_many_connections`` (the address holds its share, none of it idle), or
        ``descriptors`` (the process is near its file-descriptor limit, and the address holds
        more than a player needs)."""
        self._sweep()
        budget = self._of(address)
        if not budget.connects.take():
            return "connect_rate"
        if budget.held >= self.limits.connections and not self._close_idlest(budget):
            return "too_many_connections"
        if self.max_held is not None and self.held >= self.max_held and budget.held >= PLAYERS_SHARE:
            return "descriptors"
        budget.held += 1
        self.held += 1
        return None

    def disconnect(self, address: str) -> None:
        budget = self.addresses.get(address)
        if budget is None or budget.held <= 0:
            return
        budget.held -= 1
        self.held -= 1

    def too_fast(self, address: str) -> None:
        """A connection of ``address`` was closed for its flood: its reconnects cost more, so a
        client that reconnects after each close is held back (docs/protocol.md, Limits)."""
        budget = self._of(address)
        budget.connects.take(self.limits.too_fast_cost)

    def websocket_opened(self, address: str, websocket: Idle) -> None:
        """A websocket of ``address`` began its session: when the address already has its share of
        idle ones, the one idle longest is closed."""
        budget = self._of(address)
        idle = self._idle(budget)
        if len(idle) >= self.limits.idle_connections:
            min(idle, key=lambda ws: ws.active_at).close_idle()
        budget.websockets.add(websocket)

    def websocket_closed(self, address: str, websocket: Idle) -> None:
        budget = self.addresses.get(address)
        if budget is not None:
            budget.websockets.discard(websocket)

    def _idle(self, budget: AddressBudget) -> list[Idle]:
        since = self.clock() - self.limits.idle_after_seconds
        return [ws for ws in budget.websockets if ws.active_at <= since]

    def _close_idlest(self, budget: AddressBudget) -> bool:
        """Closes the address's websocket idle longest, to make room: False when none is idle."""
        idle = self._idle(budget)
        if not idle:
            return False
        idlest = min(idle, key=lambda ws: ws.active_at)
        budget.websockets.discard(idlest)
        idlest.close_idle()
        return True

    # --- frames --------------------------------------------------------------------------------

    def frame(self, address: str) -> bool:
        """A frame from a connection of ``address``: False when the address has sent more than
        its frames a second, across all its connections (that connection is then closed)."""
        return self._of(address).frames.take()

    def action(self, address: str) -> bool | None:
        """An action from ``address``: True when within its actions a second; False when beyond
        (refused ``too_fast``); None when the address kept on until it owes a whole burst (the
        connection is closed)."""
        actions = self._of(address).actions
        if actions.take():
            return True
        return None if actions.exhausted else False

    def _sweep(self) -> None:
        """Now and then, forgets the addresses that hold nothing and are owed nothing."""
        self._forget_after -= 1
        if self._forget_after > 0:
            return
        self._forget_after = max(64, len(self.addresses))
        for address in [a for a, b in self.addresses.items() if not b.held and b.connects.full and b.frames.full]:
            if self.addresses[address].actions.full:
                del self.addresses[address]
