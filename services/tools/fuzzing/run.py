"""Fuzzing the websocket protocol (docs/protocol.md): a run that sends what draws.py draws from
the grammar of the client frames (boxedin.gateway.client_frames) to a real gateway and checks what comes
back against checks.py. Used by tests/tools/test_fuzzing.py and by `boxedin fuzz` (command.py).

What is drawn: a frame of every client type, valid or with its fields mutated (wrong kinds,
numbers far out of range, unicode, fields missing or unknown, nested junk), or text that is not a
frame at all, binary messages, text that is not UTF-8, and frames padded to each size class of
docs/protocol.md (Frames). What is checked, frame by frame:

- the connection stays open, except where the protocol says it closes: a message above
  ``client_frames.MAX_READ_BYTES`` (code 1009) and a text message that is not UTF-8 (code 1007);
- every frame is answered (a ``ping`` with a fresh id follows each one: what arrives before its
  ``pong`` is the answer), and every frame the server sends is one the protocol defines
  (``outgoing.server_frame``) with, for errors, a documented code; ``internal`` and
  ``unavailable`` count as failures, as nothing a client sends should cause them;
- a game held open by a device the fuzzed connections never are does not change, though their
  frames name it: its holder receives no update, and the game's ``seq`` and state are the same
  at the end.

The gateway process's memory (VmRSS) is read before and after when its pid is known.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from boxedin.gateway.client_frames import FRAME_TYPES
from boxedin.gateway.server_frames import server_frame

from .checks import DOCUMENTED_ERRORS, FAILURE_ERRORS, HELLO_TIMEOUT, LIMIT_CLOSES, Summary, expected_close
from .draws import SHAPES, Fuzzed, draw_messages, draw_tour


def rss_kib(pid: int) -> int:
    """The resident memory of a process (VmRSS in /proc/PID/status), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def _short(fuzzed: Fuzzed | None) -> str:
    text = repr(fuzzed)
    return text if len(text) <= 300 else text[:300] + f"... ({len(text)} characters)"


class _Closed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(code)
        self.code = code


class _Connection:
    """One fuzzed connection: a device of its own; reconnects after a close. Sends one message at
    a time, at most ``run.rate`` frames a second (the message and its marker ping count two)."""

    REPLY_SECONDS = 20.0  # game_result waits up to 5 s; a busy machine may add some

    def __init__(self, run: FuzzRun, index: int) -> None:
        self.run = run
        self.index = index
        self.device: str | None = None  # issued by the server in the first welcome
        self.ws: ClientConnection | None = None
        self.game: str | None = None  # the game this connection follows
        self.said_hello = False
        self._next_send = 0.0

    async def open(self) -> ClientConnection:
        # Half the connections compress, as browsers do. No keepalive pings (none of these
        # connections idles): websockets draws their payloads from the random module, which
        # hypothesis, drawing the next messages in another thread, would see change.
        compression = "deflate" if self.index % 2 == 0 else None
        self.said_hello = False
        ws = await connect(
            self.run.ws_url, max_size=2**24, compression=compression, open_timeout=15, ping_interval=None
        )
        self.ws = ws
        self.run.summary.connections += 1
        # Most connections say hello first; some stay before hello, where frames get hello_first.
        if self.index % 8 != 7:
            hello = {"type": "hello"} if self.device is None else {"type": "hello", "device": self.device}
            await self.exchange(json.dumps(hello), True, None)
        return ws

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    async def pace(self) -> None:
        if self.run.rate:
            now = time.monotonic()
            self._next_send = max(self._next_send + 2 / self.run.rate, now)
            if self._next_send > now:
                await asyncio.sleep(self._next_send - now)

    async def send(self, message: Fuzzed) -> None:
        payload, text = message.render(self.run.held_game, self.game or self.run.held_game)
        closes = expected_close(payload, text)
        summary = self.run.summary
        try:
            await self.pace()
            if self.ws is None:
                await self.open()
            replies = await self.exchange(payload, text, message)
        except _Closed as closed:
            self.ws = None
            if closes is not None and closed.code in (closes, None):
                # Closed at once, the gateway may reset a connection still sending (docs/protocol.md).
                summary.closes[str(closes) if closed.code else f"{closes} (seen as a reset)"] += 1
            elif closed.code == HELLO_TIMEOUT and not self.said_hello:
                summary.closes[f"{HELLO_TIMEOUT} (no hello in time)"] += 1
            elif closed.code in LIMIT_CLOSES:
                summary.limited[closed.code] += 1
            else:
                summary.dropped += 1
                summary.violate(
                    f"connection closed with {closed.code} (expected {closes or 'none'}) after {_short(message)}"
                )
            return
        finally:
            summary.sent += 1
            kind = message.value.get("type") if isinstance(message.value, dict) else None
            if isinstance(kind, str) and kind in SHAPES:
                summary.kinds[kind] += 1
        if closes is not None:
            summary.violate(f"not closed with {closes} after {_short(message)}")
        elif not replies:
            summary.violate(f"no answer to {_short(message)}")

    async def exchange(self, payload: str | bytes, text: bool, message: Fuzzed | None) -> list[dict[str, Any]]:
        """Sends the message and a marker ping; returns what came before the marker's answer."""
        ws = self.ws
        assert ws is not None
        marker = f"fuzz-{next(self.run.markers)}"
        replies: list[dict[str, Any]] = []
        try:
            await ws.send(payload, text=text)
            await ws.send(json.dumps({"type": "ping", "id": marker}))
            async with asyncio.timeout(self.REPLY_SECONDS):
                while True:
                    frame = self.check(await ws.recv(), message)
                    if frame.get("reply_to") == marker:
                        return replies
                    replies.append(frame)
        except ConnectionClosed as closed:
            raise _Closed(closed.rcvd.code if closed.rcvd is not None else None) from None
        except TimeoutError:
            self.run.summary.violate(f"no answer within {self.REPLY_SECONDS:.0f} s to {_short(message)}")
            await ws.close()
            raise _Closed(None) from None

    def check(self, raw: str | bytes, message: Fuzzed | None) -> dict[str, Any]:
        summary = self.run.summary
        summary.received += 1
        try:
            frame: dict[str, Any] = json.loads(raw)
            server_frame(frame)
        except (ValueError, ValidationError) as exc:
            summary.violate(f"undocumented frame {str(raw)[:200]!r} ({str(exc)[:200]}) after {_short(message)}")
            return {}
        kind = frame["type"]
        summary.replies[kind] += 1
        if kind == "error":
            code = frame["code"]
            summary.errors[code] += 1
            if code not in self.run.documented or code in FAILURE_ERRORS:
                summary.violate(f"error {code} ({frame['message']}) after {_short(message)}")
        elif kind == "state":
            self.game = frame["game"]["game"]
        elif kind == "welcome":
            self.said_hello = True
            self.device = frame["device"]
        return frame


class FuzzRun:
    """Fuzzes a running gateway (``url``: http://HOST:PORT) over ``connections`` connections, each
    sending at most ``rate`` frames a second (None: as fast as the gateway answers). An error
    code outside ``documented`` is a violation."""

    def __init__(
        self,
        url: str,
        *,
        connections: int = 8,
        rate: float | None = None,
        documented: frozenset[str] = DOCUMENTED_ERRORS,
    ) -> None:
        self.ws_url = url.replace("http://", "ws://").replace("https://", "wss://").rstrip("/") + "/ws"
        self.connections = connections
        self.rate = rate
        self.documented = documented
        self.summary = Summary()
        self.markers = itertools.count(1)
        self.held_game = ""
        self._holder_device = ""  # issued by the server in the holder's welcome
        self._holder: ClientConnection | None = None
        self._held_state: dict[str, Any] = {}
        self._holder_frames: list[dict[str, Any]] = []
        self._holder_tasks: list[asyncio.Task[None]] = []
        self._held_pong = asyncio.Event()

    async def hold_game(self) -> None:
        """A local game of a device no fuzzed connection is, held open by its own connection."""
        holder = await connect(self.ws_url, max_size=2**24, open_timeout=15, ping_interval=None)
        self._holder = holder
        await holder.send(json.dumps({"type": "hello", "id": 1}))
        await holder.send(json.dumps({"type": "new_game", "mode": "classic", "opponent": "local", "id": 2}))
        async with asyncio.timeout(15):
            while True:
                frame = json.loads(await holder.recv())
                if frame["type"] == "welcome":
                    self._holder_device = frame["device"]
                elif frame["type"] == "state":
                    break
        self.held_game, self._held_state = frame["game"]["game"], frame["game"]
        self.summary.held_game = self.held_game
        self._holder_tasks = [
            asyncio.create_task(self._watch_holder(holder)),
            asyncio.create_task(self._keep_holder(holder)),
        ]

    async def _watch_holder(self, holder: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in holder:
                frame = json.loads(raw)
                if frame.get("reply_to") == "held":
                    self._held_pong.set()
                elif frame.get("reply_to") != "keep":
                    self._holder_frames.append(frame)

    async def _keep_holder(self, holder: ClientConnection) -> None:
        """Pings as the web client does (every 25 s), so that no idle timeout ends the holder."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                await asyncio.sleep(25)
                await holder.send(json.dumps({"type": "ping", "id": "keep"}))

    async def check_held_game(self) -> None:
        """The held game is as it was: its connection had nothing before the pong to a ping, and
        a new connection of its device finds the same state."""
        holder = self._holder
        assert holder is not None
        await holder.send(json.dumps({"type": "ping", "id": "held"}))
        async with asyncio.timeout(15):
            await self._held_pong.wait()
        for frame in self._holder_frames:
            self.summary.violate(f"the held game's connection received {str(frame)[:300]}")
        self._holder_tasks[1].cancel()
        await holder.close()
        await asyncio.gather(*self._holder_tasks, return_exceptions=True)
        async with connect(self.ws_url, max_size=2**24, open_timeout=15, ping_interval=None) as again:
            await again.send(json.dumps({"type": "hello", "device": self._holder_device, "game": self.held_game}))
            async with asyncio.timeout(15):
                while (frame := json.loads(await again.recv()))["type"] != "state":
                    pass
        after = frame["game"]

        def lasting(state: dict[str, Any]) -> dict[str, Any]:
            return {key: value for key, value in state.items() if key != "clock_remaining_ms"}

        self.summary.held_seq = (self._held_state["seq"], after["seq"])
        if lasting(after) != lasting(self._held_state):
            self.summary.violate(f"the held game changed: seq {self._held_state['seq']} -> {after['seq']}")

    async def fuzz(self, batches: Iterator[list[Fuzzed]]) -> None:
        """Sends every message of the batches (the next batch is drawn, in a thread, while one is
        sent), each connection one message at a time."""
        queue: asyncio.Queue[Fuzzed | None] = asyncio.Queue(maxsize=4 * self.connections)
        conns = [_Connection(self, index) for index in range(self.connections)]

        async def work(conn: _Connection) -> None:
            while (message := await queue.get()) is not None:
                try:
                    await conn.send(message)
                except Exception as exc:  # the gateway unreachable, say: said, and on to the next
                    self.summary.violate(f"sending failed: {exc!r} for {_short(message)}")
                    conn.ws = None
            with contextlib.suppress(Exception):
                await conn.close()

        workers = [asyncio.create_task(work(conn)) for conn in conns]
        started = time.monotonic()
        try:
            batch = await asyncio.to_thread(next, batches, None)
            while batch is not None:
                coming = asyncio.create_task(asyncio.to_thread(next, batches, None))
                for message in batch:
                    await queue.put(message)
                batch = await coming
            for _ in workers:
                await queue.put(None)
            await asyncio.gather(*workers)
        finally:
            for worker in workers:
                worker.cancel()
            self.summary.seconds += time.monotonic() - started


async def run(
    url: str,
    frames: int,
    *,
    connections: int = 8,
    rate: float | None = None,
    pid: int | None = None,
    seed: int | None = None,
    warmup: int = 0,
    chunk: int = 2000,
    documented: frozenset[str] = DOCUMENTED_ERRORS,
) -> Summary:
    """Holds a game, sends ``warmup`` messages (not counted) then ``frames`` messages, checks the
    held game; the gateway's memory (``pid``) is read after the warm-up and at the end."""
    fuzz = FuzzRun(url, connections=connections, rate=rate, documented=documented)
    await fuzz.hold_game()

    def chunks(total: int, salt: int) -> Iterator[list[Fuzzed]]:
        tour = draw_tour(None if seed is None else seed * 7919 + salt) if total >= len(FRAME_TYPES) else []
        if tour:
            yield tour
        for index, start in enumerate(range(len(tour), total, chunk)):
            size = min(chunk, total - start)
            yield draw_messages(size, None if seed is None else seed * 7919 + salt * 104_729 + index)

    if warmup:
        await fuzz.fuzz(chunks(warmup, 1))
        fuzz.summary = Summary(held_game=fuzz.held_game, violations=fuzz.summary.violations)
    before = rss_kib(pid) if pid is not None else None
    await fuzz.fuzz(chunks(frames, 2))
    await fuzz.check_held_game()
    if pid is not None and before is not None:
        fuzz.summary.rss_kib = (before, rss_kib(pid))
    return fuzz.summary
