"""Finding Same Wi-Fi games: a host advertises its game with DNS-SD over multicast DNS
(``_boxedin._tcp.local.``, its player name and the mode in the TXT record) and a joiner browses
for them. What is advertised is only what the list shows; the link itself is encrypted
(secure.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass

import ifaddr
from zeroconf import IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

SERVICE_TYPE = "_boxedin._tcp.local."
log = logging.getLogger("boxedin.lan")


@dataclass(frozen=True)
class SeenGame:
    """A game some host advertises: what the list of games shows, and where to connect."""

    id: str
    name: str
    mode: str
    overlap: str | None
    address: str  # host:port

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "mode": self.mode, "overlap": self.overlap, "address": self.address}


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (loopback alone when it has none)."""
    found = [
        str(ip.ip)
        for adapter in ifaddr.get_adapters()
        for ip in adapter.ips
        if ip.is_IPv4 and not str(ip.ip).startswith("127.")
    ]
    return found or ["127.0.0.1"]


class Discovery:
    """One multicast DNS responder for the process: advertises the hosted game, if any, and keeps
    the list of games other hosts advertise."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        self._on_change = on_change
        self._zc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._advertised: AsyncServiceInfo | None = None
        self._own: str | None = None
        self.games: dict[str, SeenGame] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._zc = AsyncZeroconf(ip_version=IPVersion.V4Only)
        self._browser = AsyncServiceBrowser(self._zc.zeroconf, [SERVICE_TYPE], handlers=[self._changed])

    async def stop(self) -> None:
        await self.withdraw()
        for task in list(self._tasks):
            task.cancel()
        if self._browser is not None:
            await self._browser.async_cancel()
        if self._zc is not None:
            await self._zc.async_close()
        self._zc = self._browser = None

    async def advertise(self, game_id: str, name: str, mode: str, overlap: str | None, port: int) -> None:
        assert self._zc is not None, "discovery is not started"
        await self.withdraw()
        properties = {"id": game_id, "name": name, "mode": mode, "v": "1"}
        if overlap:
            properties["overlap"] = overlap
        info = AsyncServiceInfo(
            SERVICE_TYPE,
            f"{game_id}.{SERVICE_TYPE}",
            addresses=[socket.inet_aton(a) for a in local_addresses()],
            port=port,
            properties=properties,
            server=f"{game_id}.local.",
        )
        self._own = game_id
        await self._zc.async_register_service(info)
        self._advertised = info

    async def withdraw(self) -> None:
        info, self._advertised, self._own = self._advertised, None, None
        if info is not None and self._zc is not None:
            with contextlib.suppress(Exception):
                await self._zc.async_unregister_service(info)

    def _changed(self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Removed:
            key = name.removesuffix("." + SERVICE_TYPE)
            if self.games.pop(key, None) is not None:
                self._on_change()
            return
        task = asyncio.get_running_loop().create_task(self._resolve(service_type, name))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resolve(self, service_type: str, name: str) -> None:
        if self._zc is None:
            return
        info = AsyncServiceInfo(service_type, name)
        if not await info.async_request(self._zc.zeroconf, 3000):
            return
        props = {k.decode(): (v or b"").decode(errors="replace") for k, v in info.properties.items()}
        addresses = info.parsed_addresses(IPVersion.V4Only)
        game_id = props.get("id", "")
        if not addresses or not info.port or not game_id or game_id == self._own:
            return
        seen = SeenGame(
            id=game_id,
            name=props.get("name", "")[:20],
            mode=props.get("mode", ""),
            overlap=props.get("overlap") or None,
            address=f"{addresses[0]}:{info.port}",
        )
        if self.games.get(game_id) != seen:
            self.games[game_id] = seen
            self._on_change()
