"""The link between the two processes: JSON messages over the sealed channel (secure.py), read
by a task of its own, with a keepalive so that a silent drop is noticed.

Messages (inside the channel; nothing of them is visible on the network):
    hello     {"t": "hello", "name", "resume"?}  the joiner's first; ``resume`` the token the host
                                                 gave it, when it comes back to a running game
    hello     {"t": "hello", "name", "mode", "overlap"}  the host's answer
    let_in    {"t": "let_in", "resume"}          the host let the joiner in (a token to come back with)
    cancel    {"t": "cancel"}                    the host refused the joiner (the codes differed)
    frame     {"t": "frame", "frame"}            a game frame: a browser's action to the host, or
                                                 the host's frames to the joiner's browser
    resync    {"t": "resync"}                    the joiner's browser wants the whole state
    bye       {"t": "bye"}                       the sender quits (the host: the game is over)
    ping      {"t": "ping"}                      keepalive
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .secure import Channel, ChannelError

log = logging.getLogger("boxedin.lan")
PING_SECONDS = 5.0
# No message for this long (three keepalives missed): the other side is gone.
SILENCE_SECONDS = 16.0


class Link:
    """One open link: ``send`` a message; ``on_message`` is called with each one received, and
    ``on_closed`` once with why it ended (None: an orderly end)."""

    def __init__(
        self,
        channel: Channel,
        on_message: Callable[[Link, dict[str, Any]], Awaitable[None]],
        on_closed: Callable[[Link, str | None], Awaitable[None]],
    ) -> None:
        self.channel = channel
        self.code = channel.code
        self._on_message = on_message
        self._on_closed = on_closed
        self._tasks: list[asyncio.Task[None]] = []
        self._send_lock = asyncio.Lock()
        self.closed = False

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._keepalive())]

    async def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            async with self._send_lock:
                await self.channel.send(json.dumps(message, separators=(",", ":")).encode())
        except (ConnectionError, OSError) as exc:
            await self.close(f"the connection broke: {exc}")

    async def _keepalive(self) -> None:
        while not self.closed:
            await asyncio.sleep(PING_SECONDS)
            await self.send({"t": "ping"})

    async def _read(self) -> None:
        why: str | None = "the other side closed the connection"
        try:
            while True:
                data = await asyncio.wait_for(self.channel.receive(), SILENCE_SECONDS)
                try:
                    message = json.loads(data)
                except ValueError:
                    why = "the other side sent a message that is not JSON"
                    break
                if not isinstance(message, dict):
                    why = "the other side sent a message that is not an object"
                    break
                if message.get("t") == "ping":
                    continue
                if message.get("t") == "bye":
                    why = None
                    break
                await self._on_message(self, message)
        except ChannelError as exc:
            # A refused message changes nothing; the stream it came in cannot be trusted after it.
            log.warning("link message refused: %s", exc)
            why = str(exc)
        except TimeoutError:
            why = f"nothing came for {SILENCE_SECONDS:.0f} s"
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        await self.close(why)

    async def close(self, why: str | None = None, *, bye: bool = False) -> None:
        if self.closed:
            return
        if bye:
            with contextlib.suppress(ConnectionError, OSError, ChannelError):
                async with self._send_lock:
                    await self.channel.send(b'{"t":"bye"}')
        self.closed = True
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        self.channel.close()
        await self._on_closed(self, why)
