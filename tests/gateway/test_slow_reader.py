"""A client that stops reading holds up nobody else (docs/protocol.md, Limits). One stuck reader
follows a busy game and never reads a byte (a raw socket with a small receive buffer, so the TCP
buffers between it and the gateway fill: updates carry only what changed, so it also says hello
again and again, each answered with the game's whole state); 50 live games go on through the same gateway, each
watched by a second connection of its device that gets every update through the gateway's Redis
subscription, as the stuck reader does. Their updates keep arriving in order and fast, and the
gateway drops the stuck connection."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
import statistics
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from boxedin.common import delta
from boxedin.supervisor.launcher import Stack

from edge_policy import choose_edge
from stacks import ROOMY_BUDGETS, make_stack

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

LIVE_GAMES = 50
LIVE_MODE = "classic"  # long enough to last the whole test
THINK_SECONDS = 0.3  # a live game's player thinks this long between moves
P99_LIMIT = 0.100
TCP_ESTABLISHED = 1


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    # The busy game is played by a robot, far faster than the credits of a person's connection.
    own = make_stack(
        "slow-reader", worker=False, extra_env={"BOXEDIN_FRAME_CREDITS_PER_SECOND": "1000", **ROOMY_BUDGETS}
    )
    try:
        own.start()
        yield own
    finally:
        own.stop()


# --- the stuck reader: a websocket client on a raw socket that never reads -----------------------


def _client_frame(text: str) -> bytes:
    """A masked text frame, as a client sends it (RFC 6455 section 5.2)."""
    payload = text.encode()
    mask = os.urandom(4)
    head = bytes([0x81])
    if len(payload) < 126:
        head += bytes([0x80 | len(payload)])
    else:
        head += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def stuck_reader(port: int, device: str, game: str) -> socket.socket:
    """Opens a websocket that follows ``game`` and never reads another byte after the handshake."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Set before connecting, so that the window the client offers stays this small.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    response = b""
    while b"\r\n\r\n" not in response:  # the server sends nothing more before the hello
        chunk = sock.recv(1)
        assert chunk, "the gateway closed the handshake"
        response += chunk
    assert response.startswith(b"HTTP/1.1 101"), response
    sock.sendall(_client_frame(json.dumps({"type": "hello", "device": device, "game": game})))
    return sock


def ask_again(sock: socket.socket, device: str, game: str, times: int) -> None:
    """The stuck reader says hello again naming the game (no seq): each is answered with the
    game's whole state, as large as the game has grown, which it never reads."""
    with contextlib.suppress(OSError):  # the gateway dropped it meanwhile
        for _ in range(times):
            sock.sendall(_client_frame(json.dumps({"type": "hello", "device": device, "game": game})))


def tcp_state(sock: socket.socket) -> int:
    """The kernel's state of the connection (struct tcp_info's first byte), read without reading
    any data: 1 while established, 7 once reset, 8 once the peer closed its side."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


# --- live games ------------------------------------------------------------------------------------


@dataclass
class LiveGame:
    """A local game played by one connection and watched by another of the same device."""

    url: str
    device: str = ""  # issued by the server in the player's welcome
    sent: dict[int, float] = field(default_factory=dict)  # seq the move made -> when it was sent
    arrived: dict[int, float] = field(default_factory=dict)  # seq -> when the watcher had it
    answered: dict[int, float] = field(default_factory=dict)  # seq -> when the player had it
    watched: list[int] = field(default_factory=list)  # seqs the watcher got, in order
    player: ClientConnection | None = None
    watcher: ClientConnection | None = None
    state: dict[str, Any] = field(default_factory=dict)

    async def open(self, mode: str = LIVE_MODE, watched: bool = True) -> None:
        self.player = await websockets.connect(self.url, max_size=2**24, open_timeout=20)
        await self.player.send(json.dumps({"type": "hello", "id": 1}))
        setup = {"type": "new_game", "mode": mode, "opponent": "local", "id": 2}
        await self.player.send(json.dumps(setup))
        while True:
            frame = json.loads(await self.player.recv())
            if frame["type"] == "welcome":
                self.device = frame["device"]
            elif frame["type"] == "state":
                self.state = frame["game"]
                break
        if not watched:
            return
        self.watcher = await websockets.connect(self.url, max_size=2**24, open_timeout=20)
        await self.watcher.send(json.dumps({"type": "hello", "device": self.device, "game": self.state["game"]}))
        while json.loads(await self.watcher.recv())["type"] != "state":
            pass

    async def move(self) -> bool:
        """Plays the next move and waits for its update; False once the game is over."""
        assert self.player is not None
        state = self.state
        if state["over"]:
            return False
        move: dict[str, Any] = (
            {"type": "roll"} if state["phase"] == "roll" else {"type": "draw", "edge": choose_edge(state)}
        )
        self.sent[state["seq"] + 1] = time.monotonic()
        await self.player.send(json.dumps({**move, "game": state["game"], "seq": state["seq"]}))
        await self.next_update()
        return True

    async def next_update(self) -> None:
        assert self.player is not None
        while True:
            frame = json.loads(await self.player.recv())
            if frame["type"] == "error":
                raise AssertionError(f"refused: {frame}")
            if frame["type"] == "update":
                assert frame["seq"] == self.state["seq"] + 1, (frame["seq"], self.state["seq"])
                self.answered[frame["seq"]] = time.monotonic()
                self.state = delta.apply(self.state, frame["changes"])
                return

    async def play(self, stop: asyncio.Event) -> None:
        while not stop.is_set() and await self.move():
            await asyncio.sleep(THINK_SECONDS)  # the player's thinking time, not a wait for anything

    async def watch(self) -> None:
        assert self.watcher is not None
        async for text in self.watcher:
            frame = json.loads(text)
            if frame["type"] == "update":
                self.arrived[frame["seq"]] = time.monotonic()
                self.watched.append(frame["seq"])

    async def close(self) -> None:
        for ws in (self.player, self.watcher):
            if ws is not None:
                await ws.close()


async def busy_game(url: str, port: int) -> tuple[socket.socket, LiveGame]:
    """The busy game (Expert's board: its states are large) and the stuck reader that follows it."""
    busy = LiveGame(url)
    await busy.open(mode="expert", watched=False)  # the stuck reader watches it
    return stuck_reader(port, busy.device, busy.state["game"]), busy


async def run_with_stuck_reader(url: str, port: int, stuck_within: float) -> dict[str, Any]:
    games = [LiveGame(url) for _ in range(LIVE_GAMES)]
    await asyncio.gather(*(game.open() for game in games))
    watching = [asyncio.create_task(game.watch()) for game in games]
    stop = asyncio.Event()
    playing = [asyncio.create_task(game.play(stop)) for game in games]
    sock, busy = await busy_game(url, port)
    started = time.monotonic()
    try:
        # The busy game goes on as fast as it can (to its end) until the gateway drops the stuck
        # reader, which asks for its state again after every move.
        while tcp_state(sock) == TCP_ESTABLISHED:
            assert time.monotonic() - started < stuck_within, "the stuck reader was not dropped"
            if not await busy.move():
                await asyncio.sleep(0.05)  # the game is over: its whole state is still asked for
            ask_again(sock, busy.device, busy.state["game"], 5)
        dropped = time.monotonic() - started
        busy_moves = busy.state["seq"]
        # Every live game makes a move after the drop too, and the live games make enough moves
        # in all to judge the p99 by (the busy game may fill the stuck reader's buffer quickly).
        at_drop = {id(game): game.state["seq"] for game in games}

        def measured() -> int:
            return sum(1 for game in games for sent in game.sent.values() if sent >= started)

        def live() -> bool:
            return not all(game.state["over"] for game in games)

        while any(game.state["seq"] == at_drop[id(game)] and not game.state["over"] for game in games) or (
            measured() < LIVE_GAMES * 10 and live()
        ):
            assert time.monotonic() - started < stuck_within + 30, "the live games stopped"
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await asyncio.gather(*playing, return_exceptions=True)
        sock.close()
        await busy.close()
    ended = time.monotonic()
    # Every update of every live game reaches its watcher.
    deadline = time.monotonic() + 10
    while any(len(game.watched) < game.state["seq"] for game in games) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    await asyncio.gather(*(game.close() for game in games))
    await asyncio.gather(*watching, return_exceptions=True)
    for game in games:
        assert game.watched == list(range(1, game.state["seq"] + 1)), "a watcher missed updates"
    # The moves made while the stuck reader was connected, and after: how long each took to reach
    # the game's other connection from the moment it was sent (the engine's work included), and
    # from the moment the player had it back (the update's way through Redis and the gateway).
    moves = [(game, seq) for game in games for seq, sent in game.sent.items() if started <= sent <= ended]
    return {
        "dropped_after": dropped,
        "busy_moves": busy_moves,
        "round_trip": sorted(game.arrived[seq] - game.sent[seq] for game, seq in moves),
        "delivery": sorted(game.arrived[seq] - game.answered[seq] for game, seq in moves),
    }


def p99(values: list[float]) -> float:
    return values[max(0, int(len(values) * 0.99) - 1)]


def test_a_client_that_stops_reading_holds_up_no_other_game(stack: Stack) -> None:
    port = stack.gateway_ports[0]
    url = stack.url().replace("http://", "ws://") + "/ws"
    result = asyncio.run(run_with_stuck_reader(url, port, stuck_within=60))
    round_trip, delivery = result["round_trip"], result["delivery"]
    print(
        f"\nthe stuck reader was dropped after {result['dropped_after']:.1f} s and {result['busy_moves']} updates "
        f"of its game; {len(delivery)} moves of {LIVE_GAMES} live games meanwhile; "
        f"from the player to the watcher: median {statistics.median(delivery) * 1000:.1f} ms, "
        f"p99 {p99(delivery) * 1000:.1f} ms, max {delivery[-1] * 1000:.1f} ms; "
        f"from the move sent to the watcher: median {statistics.median(round_trip) * 1000:.1f} ms, "
        f"p99 {p99(round_trip) * 1000:.1f} ms, max {round_trip[-1] * 1000:.1f} ms"
    )
    assert len(delivery) >= LIVE_GAMES * 10
    # The way from the engine's commit to the other connection: what a stuck client could hold
    # up. (From the move sent, the engine's work counts too, which on a loaded 2-core machine
    # takes as long with no stuck reader at all: printed, not held to the limit.)
    assert p99(delivery) < P99_LIMIT
    # The gateway dropped it because it did not read, and says so.
    assert stack.log_dir is not None
    ended = [
        json.loads(line)
        for line in (stack.log_dir / "gateway.log").read_text().splitlines()
        if '"connection ended by the gateway"' in line
    ]
    assert any(entry["reason"] in ("not_reading", "send_queue_full") for entry in ended), ended
