"""What one client may ask of a gateway (docs/protocol.md, Limits), against real gateways: message
credits, connections per client address, the hello and idle timeouts and the Origin check. One
gateway keeps the defaults; the others take small limits, so that each is reached in moments."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import secrets
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus

from boxedin.common.settings import Settings
from boxedin.gateway.limits import Credits, OriginPolicy
from boxedin.supervisor.launcher import Stack, free_port

from stacks import make_stack

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

CREDITS, CREDITS_PER_SECOND = 10, 4.0
PER_ADDRESS = 3
HELLO_SECONDS, IDLE_SECONDS = 1.5, 2.5
PING_SECONDS = 0.3
ALLOWED = "https://boxedin.example, https://friends.example:8443"
STRICT = {
    "BOXEDIN_FRAME_CREDITS": str(CREDITS),
    "BOXEDIN_FRAME_CREDITS_PER_SECOND": str(CREDITS_PER_SECOND),
    "BOXEDIN_HELLO_TIMEOUT_SECONDS": str(HELLO_SECONDS),
    "BOXEDIN_IDLE_TIMEOUT_SECONDS": str(IDLE_SECONDS),
    "BOXEDIN_ALLOWED_ORIGINS": ALLOWED,
    # Its tests flood one after another from 127.0.0.1: the reconnects a 4429 costs an address
    # (test_budgets_over_the_wire.py) would refuse the next test's connections.
    "BOXEDIN_ADDRESS_TOO_FAST_COST": "0",
}
WEB_PROTOCOL = Path(__file__).parents[2] / "web" / "src" / "network" / "protocol.ts"


class Gateways:
    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.default = stack.gateway_ports[0]
        self.strict = self._start(STRICT)
        self.few = self._start({"BOXEDIN_CONNECTIONS_PER_ADDRESS": str(PER_ADDRESS)})
        ping = str(PING_SECONDS)
        self.pinging = self._start({"BOXEDIN_WS_PING_INTERVAL_SECONDS": ping, "BOXEDIN_WS_PING_TIMEOUT_SECONDS": ping})

    def counted(self, port: int, family_name: str, label: str, value: str) -> float:
        """The gateway's count in ``family_name`` (a labelled counter, exported at 0 for its known
        labels) for ``label`` = ``value``."""
        name = next(name for name, p in self.stack.gateways.items() if p == port)
        with urllib.request.urlopen(self.stack.metrics_url(name), timeout=5) as reply:
            text = reply.read().decode()
        for family in text_string_to_metric_families(text):
            if family.name == family_name:
                for sample in family.samples:
                    if sample.name.endswith("_total") and sample.labels[label] == value:
                        return sample.value
        raise AssertionError(f"no {family_name}_total{{{label}={value!r}}}: it is exported at 0")

    def closes(self, port: int, code: str) -> float:
        """The gateway's count of connections ended with ``code`` (boxedin_websocket_closes_total)."""
        return self.counted(port, "boxedin_websocket_closes", "code", code)

    def refusals(self, port: int, reason: str) -> float:
        """The gateway's count of refusals for ``reason`` (boxedin_gateway_refusals_total)."""
        return self.counted(port, "boxedin_gateway_refusals", "reason", reason)

    def wait_closes(self, port: int, code: str, at_least: float) -> None:
        """Waits for the count to reach ``at_least`` (the gateway counts as the session ends, just
        after the close frame went out)."""
        deadline = time.monotonic() + 10
        while self.closes(port, code) < at_least:
            assert time.monotonic() < deadline, f"closes with {code}: {self.closes(port, code)}, not {at_least}"
            time.sleep(0.05)

    def _start(self, env: dict[str, str]) -> int:
        """Another gateway of the stack, with settings of its own."""
        kept = dict(self.stack.extra_env)
        self.stack.extra_env.update(env)
        try:
            port = free_port()
            self.stack.start_gateway(port)
        finally:
            self.stack.extra_env = kept
        self.stack.wait_ready(port)
        return port


@pytest.fixture(scope="module")
def gateways() -> Iterator[Gateways]:
    own = make_stack("connection-limits", worker=False)
    try:
        own.start()
        yield Gateways(own)
    finally:
        own.stop()


def ws_url(port: int) -> str:
    return f"ws://127.0.0.1:{port}/ws"


async def connect(port: int, **options: Any) -> ClientConnection:
    return await websockets.connect(ws_url(port), open_timeout=10, ping_interval=None, **options)


async def hello(ws: ClientConnection) -> None:
    await ws.send(json.dumps({"type": "hello", "device": secrets.token_urlsafe(24), "id": "hello"}))
    assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "welcome"


async def until_closed(ws: ClientConnection, timeout: float) -> tuple[int, str, list[dict[str, Any]], float]:
    """Reads until the gateway closes the connection: its close code and reason, the frames that
    came before, and how long it took."""
    started = time.monotonic()
    frames: list[dict[str, Any]] = []
    try:
        while True:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), timeout - (time.monotonic() - started))))
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, "closed without a close frame"
        return closed.rcvd.code, closed.rcvd.reason, frames, time.monotonic() - started


# --- credits ---------------------------------------------------------------------------------------


async def flood(port: int) -> tuple[list[dict[str, Any]], int, str]:
    ws = await connect(port)
    await hello(ws)  # one credit
    # Far more than the credits at once: the answers say where they ran out.
    for number in range(4 * CREDITS):
        await ws.send(json.dumps({"type": "ping", "id": number}))
    code, reason, frames, _ = await until_closed(ws, 10)
    return frames, code, reason


def test_frames_beyond_the_credits_are_refused_and_a_client_that_keeps_on_is_closed(gateways: Gateways) -> None:
    before = gateways.closes(gateways.strict, "4429")
    exhausted_before = gateways.refusals(gateways.strict, "credits_exhausted")
    too_fast_before = gateways.refusals(gateways.strict, "too_fast")
    frames, code, reason = asyncio.run(flood(gateways.strict))
    kinds = [frame["type"] if frame["type"] != "error" else frame["code"] for frame in frames]
    # The credits left after the hello are answered, the next frames refused as too fast (each
    # with its id), and the connection closed when the client owes as many frames as its credits.
    assert kinds[: CREDITS - 1] == ["pong"] * (CREDITS - 1)
    refused = [frame for frame in frames if frame["type"] == "error"]
    assert len(refused) >= CREDITS - 2 and all(frame["code"] == "too_fast" for frame in refused)
    assert [frame["reply_to"] for frame in refused] == list(range(len(frames) - len(refused), len(frames)))
    assert set(kinds[CREDITS - 1 :]) <= {"pong", "too_fast"}  # a credit may come back meanwhile
    assert (code, reason) == (4429, "too many frames: slow down")
    assert len(frames) < 4 * CREDITS  # not every frame was answered
    # Counted by its close code, once.
    gateways.wait_closes(gateways.strict, "4429", before + 1)
    assert gateways.closes(gateways.strict, "4429") == before + 1
    # And each refusal by its reason: every too_fast answered, and the close for owing too much.
    assert gateways.refusals(gateways.strict, "too_fast") == too_fast_before + len(refused)
    assert gateways.refusals(gateways.strict, "credits_exhausted") == exhausted_before + 1


async def steady(port: int, frames: int, every: float) -> list[str]:
    ws = await connect(port)
    await hello(ws)
    kinds = []
    for number in range(frames):
        await ws.send(json.dumps({"type": "ping", "id": number}))
        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
        kinds.append(reply["type"] if reply["type"] != "error" else reply["code"])
        await asyncio.sleep(every)  # the client's own pace, the subject of the test
    await ws.close()
    return kinds


def test_a_client_within_the_refill_rate_is_never_refused(gateways: Gateways) -> None:
    # Twice the credits, at 3/4 of the refill rate: spent faster than a burst, never refused.
    kinds = asyncio.run(steady(gateways.strict, 2 * CREDITS, 1 / (0.75 * CREDITS_PER_SECOND)))
    assert kinds == ["pong"] * (2 * CREDITS)


def test_credits_refill_at_their_rate_and_run_into_debt() -> None:
    now = [0.0]
    credits = Credits(3, 2.0, clock=lambda: now[0])
    assert [credits.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5  # one credit back: the refused frame still counted
    assert not credits.take() and not credits.exhausted
    now[0] += 2.0  # four back, but never more than the burst
    assert [credits.take() for _ in range(4)] == [True, True, True, False]
    assert [credits.take() for _ in range(2)] == [False, False] and credits.exhausted


# --- connections per address ---------------------------------------------------------------------


async def crowd(port: int) -> None:
    held = [await connect(port) for _ in range(PER_ADDRESS)]
    for ws in held:
        await hello(ws)
    # One more from the same address is refused before its request is read: HTTP 503 with the
    # reason (no proxy is trusted, so 127.0.0.1 is the client; through a trusted proxy the
    # websocket is closed 1013 instead, test_behind_nginx.py).
    with pytest.raises(InvalidStatus) as refused:
        await connect(port)
    assert refused.value.response.status_code == 503
    assert refused.value.response.body == b"too many connections from your address"
    # Another address is counted apart (127.0.0.2 reaches the gateway's 127.0.0.1 on loopback).
    other = await connect(port, local_addr=("127.0.0.2", 0))
    await hello(other)
    await other.close()
    # Once one has gone, there is room again: as soon as the gateway has counted it out.
    await held.pop().close()
    deadline = time.monotonic() + 10
    while True:
        try:
            ws = await connect(port)
            break
        except InvalidStatus as again:
            assert again.response.status_code == 503
            assert time.monotonic() < deadline, "the closed connection was never counted out"
    await hello(ws)
    held.append(ws)
    for ws in held:
        await ws.close()


def test_connections_per_client_address_are_limited(gateways: Gateways) -> None:
    asyncio.run(crowd(gateways.few))


def test_the_default_allows_the_load_tests_many_connections_from_one_address() -> None:
    # `boxedin load` opens 500 at once, the online scale test 200 through each gateway.
    assert Settings().connections_per_address >= 500


# --- hello and idle timeouts ---------------------------------------------------------------------


async def silent(port: int, pings_before_hello: int) -> tuple[int, str, list[dict[str, Any]], float]:
    ws = await connect(port)
    for number in range(pings_before_hello):
        await ws.send(json.dumps({"type": "ping", "id": number}))
    return await until_closed(ws, 10 * HELLO_SECONDS)


@pytest.mark.parametrize("pings_before_hello", [0, 2])
def test_a_connection_that_does_not_say_hello_is_closed(gateways: Gateways, pings_before_hello: int) -> None:
    before = gateways.closes(gateways.strict, "4408")
    code, reason, frames, took = asyncio.run(silent(gateways.strict, pings_before_hello))
    assert (code, reason) == (4408, f"no hello within {HELLO_SECONDS:g} s")
    gateways.wait_closes(gateways.strict, "4408", before + 1)
    # Frames other than hello are answered hello_first and do not put the deadline off.
    assert [frame["code"] for frame in frames] == ["hello_first"] * pings_before_hello
    assert HELLO_SECONDS - 0.1 <= took < HELLO_SECONDS + 3


async def idle(port: int, ping_every: float | None, keep_for: float) -> tuple[int, str, float] | None:
    """A connection that says hello, then pings every ``ping_every`` seconds (None: never) for
    ``keep_for`` seconds: how it was closed, or None when it was still open."""
    ws = await connect(port)
    await hello(ws)
    started = time.monotonic()
    if ping_every is None:
        code, reason, _, took = await until_closed(ws, keep_for)
        return code, reason, took
    while time.monotonic() - started < keep_for:
        await asyncio.sleep(ping_every)  # the client's pace, as the web client pings on a timer
        await ws.send(json.dumps({"type": "ping"}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "pong"
    await ws.close()
    return None


def test_an_idle_connection_is_closed_and_pings_keep_one_open(gateways: Gateways) -> None:
    closed = asyncio.run(idle(gateways.strict, None, 10 * IDLE_SECONDS))
    assert closed is not None
    code, reason, took = closed
    assert (code, reason) == (4408, f"no frame for {IDLE_SECONDS:g} s")
    assert IDLE_SECONDS - 0.1 <= took < IDLE_SECONDS + 3
    # Pinging at a third of the idle timeout keeps it open (the web client pings more often still).
    assert asyncio.run(idle(gateways.strict, IDLE_SECONDS / 3, 2.5 * IDLE_SECONDS)) is None


def test_the_web_clients_ping_keeps_it_open_under_the_default_idle_timeout() -> None:
    found = re.search(r"pingMs: opts\.pingMs \?\? (\d+)", WEB_PROTOCOL.read_text())
    assert found is not None, "the web client's ping interval was not found in protocol.ts"
    ping_seconds = int(found.group(1)) / 1000
    # A background tab's timers may run only once a minute (Chrome's intensive throttling): its
    # next ping may come a minute late and the connection must still be open.
    assert Settings().idle_timeout_seconds > ping_seconds + 60


# --- origins ---------------------------------------------------------------------------------------


async def handshake(port: int, origin: str | None) -> int:
    """The handshake's HTTP status: 101 when the websocket opened."""
    try:
        ws = await websockets.connect(ws_url(port), open_timeout=10, origin=origin)  # type: ignore[arg-type]
    except InvalidStatus as refused:
        return refused.response.status_code
    await hello(ws)
    await ws.close()
    return 101


def statuses(port: int, origins: list[str | None]) -> list[int]:
    async def all_of() -> list[int]:
        return [await handshake(port, origin) for origin in origins]

    return asyncio.run(all_of())


def test_pages_of_other_sites_are_refused_by_default(gateways: Gateways) -> None:
    port = gateways.default
    own, other, no_origin = f"http://127.0.0.1:{port}", "https://evil.example", None
    before = gateways.refusals(port, "origin")
    assert statuses(port, [own, other, no_origin, "null", f"http://127.0.0.1:{port + 1}"]) == [101, 403, 101, 403, 403]
    assert gateways.refusals(port, "origin") == before + 3  # each refused page counted


def test_allowed_origins_are_let_in(gateways: Gateways) -> None:
    port = gateways.strict
    origins: list[str | None] = [
        "https://boxedin.example",
        "https://BOXEDIN.example:443",  # the same origin, spelt otherwise
        "https://friends.example:8443",
        "http://boxedin.example",  # another scheme: another origin
        "https://friends.example",  # another port
        f"http://127.0.0.1:{port}",  # its own host is always allowed
        "https://evil.example",
    ]
    assert statuses(port, origins) == [101, 101, 101, 403, 403, 101, 403]


def test_origin_policy() -> None:
    default, listed, anyone = OriginPolicy(""), OriginPolicy(ALLOWED), OriginPolicy("*")
    # The web client the gateway serves, reached by its address: its own host, with no setting.
    assert default.allows("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert default.allows("http://192.168.1.5", "192.168.1.5:80")
    assert default.allows("http://[::1]:8000", "[::1]:8000") and default.allows(
        "http://localhost:8000", "localhost:8000"
    )
    assert not default.allows("http://127.0.0.1:8001", "127.0.0.1:8000")
    assert not default.allows("https://127.0.0.1:8000", None)
    assert not default.allows("file://", "127.0.0.1") and not default.allows("garbage", "127.0.0.1")
    assert default.allows(None, "play.example")
    # Behind a TLS proxy the page is https on 443 and the Host header has no port: allowed as a
    # configured public origin, however it is spelt.
    assert listed.allows("https://boxedin.example", "boxedin.example")
    assert listed.allows("https://BOXEDIN.example:443", "boxedin.example")
    assert listed.allows("https://friends.example:8443", "boxedin.example")
    assert not listed.allows("https://friends.example", "boxedin.example")
    assert anyone.allows("https://anywhere.example", "play.example")


def test_a_dns_rebinding_page_is_refused() -> None:
    """A page of evil.example whose name was made to resolve to the gateway sends an Origin and a
    Host that agree: only a configured origin, or an address, is the gateway's own."""
    default, listed = OriginPolicy(""), OriginPolicy(ALLOWED)
    assert not default.allows("http://evil.example:8000", "evil.example:8000")
    assert not default.allows("https://evil.example", "evil.example")
    assert not listed.allows("https://evil.example", "evil.example")


async def _handshake_status(port: int, host: str, origin: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET /ws HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        return (await asyncio.wait_for(reader.readuntil(b"\r\n"), 10)).strip()
    finally:
        writer.close()


def test_a_dns_rebinding_page_gets_no_websocket_from_the_gateway(gateways: Gateways) -> None:
    port = gateways.default
    rebound = f"evil.example:{port}"
    assert asyncio.run(_handshake_status(port, rebound, f"http://{rebound}")).startswith(b"HTTP/1.1 403")
    own = f"127.0.0.1:{port}"
    assert asyncio.run(_handshake_status(port, own, f"http://{own}")).startswith(b"HTTP/1.1 101")


# --- a client that stopped answering ----------------------------------------------------------------
# A bare websocket over a socket of the test's own, so that it answers the gateway's websocket
# pings only when the test says (a client library answers them by itself).

PING, PONG, TEXT, CLOSE = 0x9, 0xA, 0x1, 0x8


async def bare_socket(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    status = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert status.startswith(b"HTTP/1.1 101"), status
    return reader, writer


def client_frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame: final, masked, payloads under 126 bytes."""
    assert len(payload) < 126
    mask = os.urandom(4)
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def server_frame(reader: asyncio.StreamReader, timeout: float) -> tuple[int, bytes] | None:
    """The gateway's next frame, or None when it closed the socket."""
    try:
        head = await asyncio.wait_for(reader.readexactly(2), timeout)
        length = head[1] & 0x7F
        if length >= 126:
            length = int.from_bytes(await reader.readexactly(2 if length == 126 else 8), "big")
        return head[0] & 0x0F, await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        return None


async def answering(port: int, answer: bool, pings: int) -> tuple[int, str]:
    """Says hello, then reads, answering the gateway's pings or not: (pings seen, "closed CODE
    REASON") once the gateway ends the connection, or (..., "alive") when a frame of its own is
    still answered after ``pings`` pings."""
    reader, writer = await bare_socket(port)
    try:
        writer.write(client_frame(TEXT, json.dumps({"type": "hello", "id": 1}).encode()))
        seen = 0
        while True:
            frame = await server_frame(reader, 10)
            if frame is None:
                return seen, "closed"
            if frame[0] == CLOSE:
                return seen, f"closed {int.from_bytes(frame[1][:2], 'big')} {frame[1][2:].decode()}"
            opcode, payload = frame
            if opcode == PING:
                seen += 1
                if answer:
                    writer.write(client_frame(PONG, payload))
                if seen == pings:
                    writer.write(client_frame(TEXT, json.dumps({"type": "ping", "id": "alive"}).encode()))
            elif opcode == TEXT and json.loads(payload).get("reply_to") == "alive":
                return seen, "alive"
    finally:
        writer.close()


async def talking_then_silent(port: int, frames: int) -> tuple[int, int, float]:
    """Says hello, then sends ``frames`` ping frames, one every sixth of the ping interval, and
    falls silent: (websocket pings seen while sending, pongs it answered, seconds from its last
    frame to the next websocket ping)."""
    reader, writer = await bare_socket(port)
    try:
        writer.write(client_frame(TEXT, json.dumps({"type": "hello", "id": 0}).encode()))
        loop = asyncio.get_running_loop()
        pinged, answered, last = 0, 0, loop.time()
        for number in range(1, frames + 1):
            writer.write(client_frame(TEXT, json.dumps({"type": "ping", "id": number}).encode()))
            last = loop.time()
            while True:  # every frame up to this one's pong
                frame = await server_frame(reader, 10)
                assert frame is not None and frame[0] != CLOSE, frame
                if frame[0] == PING:
                    pinged += 1
                    writer.write(client_frame(PONG, frame[1]))
                elif json.loads(frame[1]).get("reply_to") == number:
                    answered += 1
                    break
            await asyncio.sleep(PING_SECONDS / 6)
        while True:
            frame = await server_frame(reader, 10)
            assert frame is not None and frame[0] != CLOSE, frame
            if frame[0] == PING:
                return pinged, answered, loop.time() - last
    finally:
        writer.close()


def test_a_client_that_keeps_sending_is_not_pinged_and_one_that_falls_silent_is(gateways: Gateways) -> None:
    # Whatever a client sends is a sign of life: a ping is due only after the ping interval
    # without a frame (issue 32: a ping and its pong cost the gateway as much as a small frame).
    frames = 60  # about ten ping intervals
    pinged, answered, silent_for = asyncio.run(talking_then_silent(gateways.pinging, frames))
    assert answered == frames and pinged == 0
    assert PING_SECONDS * 0.9 <= silent_for < 10


def test_a_client_that_stops_answering_pings_is_closed_and_one_that_answers_stays(gateways: Gateways) -> None:
    # The gateway pings every PING_SECONDS and closes a connection whose ping went unanswered
    # for PING_SECONDS more (by default 10 s and 10 s).
    seen, outcome = asyncio.run(answering(gateways.pinging, answer=False, pings=10))
    # The close code of the protocol's timeouts (docs/protocol.md, Limits), not 1011, which would
    # say the server failed.
    assert outcome == "closed 4408 no answer to the ping" and seen >= 1
    seen, outcome = asyncio.run(answering(gateways.pinging, answer=True, pings=6))
    assert (seen, outcome) == (6, "alive")
