"""The abuses of issue 31 as clients on loopback, each from source addresses of its own
(127.0.0.2 and on: binding a client socket to any 127.0.0.x works on Linux, and the gateway sees
it as that client's address), while live players on 127.0.0.1 play and their action round trip is
measured (loadtest.play_one).

- ``reconnect``: each client floods until it is closed, and reconnects at once, again and again;
- ``frames``: connections that each send 19 pings a second, inside their own credits;
- ``actions``: connections that each play a local game at 19 legal actions a second;
- ``idle``: websockets that say hello and then nothing;
- ``half_open``: raw TCP connections that send part of a request's headers and never the rest.

Each runs until it is cancelled and counts what it did (``Counts``)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from boxedin.common import delta
from boxedin.tools.load.loadtest import open_edges

PER_SECOND = 19  # just under a connection's 20 credits a second


@dataclass
class Counts:
    connections: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # handshakes refused, by HTTP status
    closes: Counter[int] = field(default_factory=Counter)  # connections closed, by close code
    frames: int = 0
    held: int = 0  # connections open now (idle, half-open)
    most_held: int = 0

    def hold(self, change: int) -> None:
        self.held += change
        self.most_held = max(self.most_held, self.held)


async def _open(url: str, address: str, counts: Counts) -> websockets.ClientConnection | None:
    try:
        ws = await websockets.connect(url, ping_interval=None, open_timeout=10, local_addr=(address, 0))
    except InvalidStatus as refused:
        counts.refused[str(refused.response.status_code)] += 1
        return None
    except (OSError, InvalidHandshake, TimeoutError) as failed:
        counts.refused[type(failed).__name__] += 1
        return None
    counts.connections += 1
    return ws


async def _until_closed(ws: websockets.ClientConnection, counts: Counts) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for _ in ws:
            pass
    counts.closes[ws.close_code if ws.close_code is not None else 1006] += 1


def _abort(ws: websockets.ClientConnection) -> None:
    """Drops the connection at once: an abuse that is over does not wait for a close handshake."""
    ws.transport.abort()


async def _hello(ws: websockets.ClientConnection) -> None:
    await ws.send(json.dumps({"type": "hello"}))


async def reconnect(url: str, address: str, counts: Counts) -> None:
    """Floods until it is closed, and reconnects at once: as fast as the gateway lets it."""
    while True:
        ws = await _open(url, address, counts)
        if ws is None:
            await asyncio.sleep(0.01)  # a refusal is instant: without a pause this is a busy loop
            continue
        reader = asyncio.create_task(_until_closed(ws, counts))
        try:
            await _hello(ws)
            for number in itertools.count():
                if reader.done():
                    break
                await ws.send(json.dumps({"type": "ping", "id": number}))
                counts.frames += 1
                if number % 20 == 0:
                    await asyncio.sleep(0)  # lets the reader see the close
        except ConnectionClosed:
            pass
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            _abort(ws)


async def _paced(
    url: str, address: str, counts: Counts, step: Callable[[websockets.ClientConnection], Awaitable[None]]
) -> None:
    """A connection that runs ``step`` PER_SECOND times a second; reconnects a second after it is closed."""
    while True:
        ws = await _open(url, address, counts)
        if ws is None:
            await asyncio.sleep(1)
            continue
        reader = asyncio.create_task(_until_closed(ws, counts))
        try:
            await _hello(ws)
            loop = asyncio.get_running_loop()
            next_at = loop.time()
            while not reader.done():
                await step(ws)
                counts.frames += 1
                next_at += 1 / PER_SECOND
                await asyncio.sleep(max(0.0, next_at - loop.time()))
        except ConnectionClosed:
            pass
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            _abort(ws)
        await asyncio.sleep(1)


async def frames(url: str, address: str, counts: Counts) -> None:
    numbers = itertools.count()

    async def ping(ws: websockets.ClientConnection) -> None:
        await ws.send(json.dumps({"type": "ping", "id": next(numbers)}))

    await _paced(url, address, counts, ping)


async def actions(url: str, address: str, counts: Counts) -> None:
    """Plays local games at PER_SECOND legal actions a second, one after another."""
    rng = random.Random()
    while True:
        ws = await _open(url, address, counts)
        if ws is None:
            await asyncio.sleep(1)
            continue
        try:
            await ws.send(json.dumps({"type": "hello"}))
            await ws.send(json.dumps({"type": "new_game", "mode": "mini", "opponent": "local"}))
            state: dict[str, Any] | None = None
            loop = asyncio.get_running_loop()
            next_at = loop.time()
            while True:
                reply = json.loads(await ws.recv())
                if reply["type"] == "state":
                    state = reply["game"]
                elif reply["type"] == "update" and state is not None and reply["seq"] == state["seq"] + 1:
                    state = delta.apply(state, reply["changes"])
                elif reply["type"] != "error":
                    continue
                if state is None:
                    continue
                if state["over"]:
                    await ws.send(json.dumps({"type": "new_game", "mode": "mini", "opponent": "local"}))
                    state = None
                    continue
                next_at += 1 / PER_SECOND
                await asyncio.sleep(max(0.0, next_at - loop.time()))
                if state["phase"] == "roll":
                    frame: dict[str, Any] = {"type": "roll", "game": state["game"], "seq": state["seq"]}
                else:
                    frame = {
                        "type": "draw",
                        "game": state["game"],
                        "edge": rng.choice(open_edges(state)),
                        "seq": state["seq"],
                    }
                await ws.send(json.dumps(frame))
                counts.frames += 1
        except ConnectionClosed:
            counts.closes[ws.close_code if ws.close_code is not None else 1006] += 1
        finally:
            _abort(ws)
        await asyncio.sleep(1)


async def idle(url: str, address: str, counts: Counts) -> None:
    """A websocket that says hello and then nothing; opened again a second after it is closed."""
    while True:
        ws = await _open(url, address, counts)
        if ws is None:
            await asyncio.sleep(1)
            continue
        counts.hold(1)
        try:
            await _hello(ws)
            await _until_closed(ws, counts)
        except ConnectionClosed:
            counts.closes[ws.close_code if ws.close_code is not None else 1006] += 1
        finally:
            counts.hold(-1)
            _abort(ws)
        await asyncio.sleep(1)


async def half_open(host: str, port: int, address: str, counts: Counts) -> None:
    """A TCP connection that sends part of a request's headers and then waits; opened again as soon
    as the gateway ends it."""
    while True:
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(address, 0))
        except OSError as failed:
            counts.refused[type(failed).__name__] += 1
            await asyncio.sleep(1)
            continue
        counts.connections += 1
        counts.hold(1)
        try:
            writer.write(b"GET /ws HTTP/1.1\r\nHost: " + host.encode() + b"\r\nUpgrade: websocket\r\n")
            answer = await reader.read(12)
            counts.closes[
                503 if answer.startswith(b"HTTP/1.1 503") else 429 if answer.startswith(b"HTTP/1.1 429") else 0
            ] += 1
        except OSError:
            counts.closes[0] += 1  # reset: the header timeout
        finally:
            counts.hold(-1)
            writer.transport.abort()
        await asyncio.sleep(1)


def socket_limit() -> int:
    """This process's soft limit on open files, raised to its hard limit."""
    from boxedin.gateway.http_guard import raise_descriptor_limit

    return raise_descriptor_limit()
