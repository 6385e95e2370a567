"""The budgets per address and what strange bytes get (docs/protocol.md, Limits and Sizes),
against a real gateway with small budgets: each abusive client comes from a loopback address of
its own (127.0.0.x reaches the gateway on 127.0.0.1), while a player on 127.0.0.1 keeps on being
answered."""

from __future__ import annotations

import asyncio
import json
import secrets
import selectors
import socket
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus

from boxedin.supervisor.launcher import Stack
from boxedin.tools.abuse.command import run_abuse

from stacks import make_stack

pytestmark = pytest.mark.stack

CONNECTS_BURST, CONNECTS_PER_SECOND, TOO_FAST_COST = 250, 10, 100
ADDRESS_FRAMES = 60
ACTIONS_BURST = 20
IDLE_SHARE, IDLE_AFTER = 2, 0.5
HEADER_SECONDS = 1.0
PER_ADDRESS = 150
SMALL = {
    "BOXEDIN_FRAME_CREDITS": "50",
    "BOXEDIN_ADDRESS_CONNECTS_BURST": str(CONNECTS_BURST),
    # Enough for the live players on 127.0.0.1, who open a connection for each game.
    "BOXEDIN_ADDRESS_CONNECTS_PER_SECOND": str(CONNECTS_PER_SECOND),
    "BOXEDIN_ADDRESS_TOO_FAST_COST": str(TOO_FAST_COST),
    "BOXEDIN_ADDRESS_FRAMES_BURST": str(ADDRESS_FRAMES),
    "BOXEDIN_ADDRESS_FRAMES_PER_SECOND": "5",
    "BOXEDIN_ADDRESS_ACTIONS_BURST": str(ACTIONS_BURST),
    "BOXEDIN_ADDRESS_ACTIONS_PER_SECOND": "2",
    "BOXEDIN_IDLE_CONNECTIONS_PER_ADDRESS": str(IDLE_SHARE),
    "BOXEDIN_IDLE_AFTER_SECONDS": str(IDLE_AFTER),
    "BOXEDIN_HEADER_TIMEOUT_SECONDS": str(HEADER_SECONDS),
    "BOXEDIN_CONNECTIONS_PER_ADDRESS": str(PER_ADDRESS),
}


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    own = make_stack("budgets", worker=False, extra_env=SMALL)
    try:
        own.start()
        yield own
    finally:
        own.stop()


async def connect(stack: Stack, address: str = "127.0.0.1") -> ClientConnection:
    url = stack.url().replace("http://", "ws://") + "/ws"
    return await websockets.connect(url, open_timeout=10, ping_interval=None, local_addr=(address, 0))


async def request(ws: ClientConnection, frame: dict[str, Any]) -> dict[str, Any]:
    """Sends the frame and returns the answer to it."""
    await ws.send(json.dumps(frame))
    while True:
        answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if answer.get("reply_to") == frame.get("id"):
            return answer


async def player(stack: Stack, address: str = "127.0.0.1") -> ClientConnection:
    ws = await connect(stack, address)
    hello = {"type": "hello", "device": secrets.token_urlsafe(24), "id": "hello"}
    assert (await request(ws, hello))["type"] == "welcome"
    return ws


async def answered(ws: ClientConnection) -> bool:
    """Whether the connection still answers: a ping gets its pong."""
    number = secrets.randbelow(10**9)
    return await request(ws, {"type": "ping", "id": number}) == {"type": "pong", "reply_to": number}


async def closed_with(ws: ClientConnection) -> tuple[int, str]:
    try:
        while True:
            await asyncio.wait_for(ws.recv(), 10)
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, "closed without a close frame"
        return closed.rcvd.code, closed.rcvd.reason


def test_a_client_that_reconnects_after_each_4429_is_refused_before_any_work(stack: Stack) -> None:
    async def run() -> None:
        live = await player(stack)
        cycles = 0
        while True:
            try:
                ws = await connect(stack, "127.0.0.2")
            except InvalidStatus as refused:
                assert refused.response.status_code == 429
                assert refused.response.body == b"too many new connections from your address"
                break
            cycles += 1
            # Far beyond its 50 credits (and its address's frames): closed for it.
            for number in range(200):
                await ws.send(json.dumps({"type": "ping", "id": number}))
            assert (await closed_with(ws))[0] == 4429
        # Each 4429 cost its address TOO_FAST_COST connections of its burst (and a cycle's time
        # gives a few back: on a loaded machine, perhaps one cycle's worth).
        least = -(-CONNECTS_BURST // (TOO_FAST_COST + 1))
        assert least <= cycles <= least + 1, cycles
        assert await answered(live)
        await live.close()

    asyncio.run(run())


async def pinged(ws: ClientConnection, pings: int) -> tuple[int, str] | None:
    """Sends the pings and reads what comes back: None when every one got its pong, else the
    code and reason the connection was closed with."""
    for number in range(pings):
        await ws.send(json.dumps({"type": "ping", "id": number}))
    pongs = 0
    try:
        while pongs < pings:
            answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
            pongs += answer["type"] == "pong"
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, "closed without a close frame"
        return closed.rcvd.code, closed.rcvd.reason
    return None


def test_frames_of_many_sockets_from_one_address_share_its_budget(stack: Stack) -> None:
    async def run() -> None:
        live = await player(stack)
        sockets = [await player(stack, "127.0.0.3") for _ in range(6)]
        # Twenty each, well inside each connection's credits; together beyond the address's. The
        # first socket's twenty are answered before the others send (sent at once, they would
        # interleave and every socket could reach the end of the budget part-way).
        assert await pinged(sockets[0], 20) is None, "the first frames were within the budget"
        ends = await asyncio.gather(*(pinged(ws, 20) for ws in sockets[1:]))
        assert (4429, "too many frames from your address: slow down") in ends
        assert await answered(live)
        await live.close()
        for ws in sockets:
            await ws.close()

    asyncio.run(run())


def test_actions_beyond_the_address_budget_are_refused_without_asking_the_engine(stack: Stack) -> None:
    async def run() -> None:
        ws = await player(stack, "127.0.0.5")
        answers = []
        for number in range(3 * ACTIONS_BURST):
            action = {"type": "draw", "game": "g_nowhere", "edge": ["h", 0, 0], "id": number}
            try:
                answers.append(await request(ws, action))
            except ConnectionClosed as closed:
                assert closed.rcvd is not None
                assert (closed.rcvd.code, closed.rcvd.reason) == (4429, "too many actions from your address: slow down")
                break
        else:
            raise AssertionError("never closed")
        codes = [answer["code"] for answer in answers]
        # The engine says the game is not there; beyond the budget the gateway refuses alone.
        assert codes[:ACTIONS_BURST] == ["no_game"] * ACTIONS_BURST
        assert set(codes[ACTIONS_BURST:]) == {"too_fast"}

    asyncio.run(run())


def test_beyond_its_idle_share_an_address_loses_its_socket_idle_longest(stack: Stack) -> None:
    async def run() -> None:
        idle = [await player(stack, "127.0.0.6") for _ in range(IDLE_SHARE + 1)]
        await asyncio.sleep(IDLE_AFTER)  # what makes them idle is the time they say nothing
        busy = await player(stack, "127.0.0.6")
        assert await closed_with(idle[0]) == (4408, "idle: too many idle connections from your address")
        for ws in [*idle[1:], busy]:
            assert await answered(ws)
            await ws.close()

    asyncio.run(run())


def _healthz(stack: Stack) -> int:
    with urllib.request.urlopen(stack.url() + "/healthz", timeout=5) as reply:
        status: int = reply.status
        return status


def test_half_open_connections_count_and_are_reset_after_the_header_timeout(stack: Stack) -> None:
    port = int(stack.url().rsplit(":", 1)[1])
    half_open: list[tuple[socket.socket, float]] = []
    for _ in range(200):
        connecting = time.monotonic()
        sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.4", 0))
        sock.sendall(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n")  # never finished
        half_open.append((sock, connecting))

    async def meanwhile() -> None:
        live = await player(stack)
        assert await answered(live)
        await live.close()

    asyncio.run(meanwhile())
    assert _healthz(stack) == 200
    # Each socket's end as it comes (all watched at once), with how long after its own connect.
    ends: list[tuple[bytes, float]] = []
    with selectors.DefaultSelector() as waiting:
        for sock, connecting in half_open:
            waiting.register(sock, selectors.EVENT_READ, connecting)
        deadline = time.monotonic() + HEADER_SECONDS + 10
        while waiting.get_map() and time.monotonic() < deadline:
            for key, _ in waiting.select(timeout=1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    end = sock.recv(4096)[:12]
                except ConnectionResetError:
                    end = b"reset"
                ends.append((end, time.monotonic() - key.data))
                waiting.unregister(sock)
    for sock, _ in half_open:
        sock.close()
    # Beyond the address's share the answer came at once; the rest were reset at the timeout.
    answers = [end for end, _ in ends]
    assert answers.count(b"HTTP/1.1 503") == 200 - PER_ADDRESS
    assert answers.count(b"reset") == PER_ADDRESS
    reset_after = [after for end, after in ends if end == b"reset"]
    # Less 10 ms: the gateway's loop (uvloop) keeps timers in whole milliseconds of a clock it
    # reads once a round, so one can fire a millisecond before the client's clock says.
    assert min(reset_after) >= HEADER_SECONDS - 0.01 and max(reset_after) < HEADER_SECONDS + 8


SURROGATES = [
    {"type": "ping", "id": "\ud800"},
    {"type": "hello", "device": "\udfff" * 30, "id": 1},
    {"type": "draw", "game": "g_\ud800", "edge": ["h", 0, 0], "id": 2},
    {"type": "find_match", "mode": "quick", "name": "a\udbffb", "id": 3},
    {"type\ud800": "ping", "id": 4},
]


def test_a_frame_with_half_a_surrogate_pair_is_refused_and_the_socket_stays(stack: Stack) -> None:
    async def run() -> None:
        ws = await player(stack, "127.0.0.7")
        for frame in SURROGATES:
            await ws.send(json.dumps(frame))  # ensure_ascii: the surrogate travels as a \u escape
            answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert answer["type"] == "error" and answer["code"] == "bad_message", frame
            assert answer.get("reply_to") == (frame["id"] if isinstance(frame["id"], int) else None)
            assert await answered(ws)
        await ws.close()

    asyncio.run(run())


def test_bad_bytes_write_a_bounded_number_of_log_lines(stack: Stack) -> None:
    assert stack.log_dir is not None
    log = stack.log_dir / "gateway.log"
    before = log.stat().st_size

    async def run() -> float:
        started = time.monotonic()
        for _ in range(30):  # each closes its connection: 1007
            ws = await connect(stack, "127.0.0.8")
            await ws.send(b'{"type":"ping","id":"\xff"}', text=True)
            assert (await closed_with(ws))[0] == 1007
        ws = await player(stack, "127.0.0.9")
        for _ in range(4):
            for frame in SURROGATES:
                await ws.send(json.dumps(frame))
                await asyncio.wait_for(ws.recv(), 10)
        await ws.close()
        live = await player(stack)  # and a round trip after it all: every line is written
        assert await answered(live)
        await live.close()
        return time.monotonic() - started

    seconds = asyncio.run(run())
    with open(log, "rb") as file:
        file.seek(before)
        lines = [json.loads(line) for line in file.read().splitlines() if line.startswith(b"{")]
    utf8 = [line for line in lines if line["message"] == "Invalid UTF-8 sequence received from client."]
    assert 1 <= len(utf8) <= 2 * (seconds + 1)
    assert all(line["level"] == "info" and "error" not in line for line in utf8)
    assert not [line for line in lines if "error" in line or line["level"] == "error"]


def test_the_abuse_command_measures_live_players_while_an_abuse_is_held_back(stack: Stack) -> None:
    """`boxedin abuse`, small: its figures (the p99s) are for a quiet machine; here, that the
    players were measured both times, that the abuse met the budgets, and /healthz and new players
    kept answering. (Each abuse's effect on the gateway is a test above.)"""
    pid = stack.processes["gateway"].pid
    (reconnect,) = asyncio.run(
        run_abuse(stack.url(), ["reconnect"], [2], players=1, seconds=0.5, think=0.2, gateway_pid=pid)
    )
    assert reconnect.before_cpu_ms is not None and reconnect.during_cpu_ms is not None
    assert reconnect.before_actions and reconnect.during_actions
    assert reconnect.healthz.asked and not reconnect.healthz.failed
    assert reconnect.new_player.asked and not reconnect.new_player.failed
    assert reconnect.clients == 2 and reconnect.abuse["closes"][4429] >= 2
    assert reconnect.abuse["refused"]["429"] >= 1
