"""Bad input (docs/protocol.md, Frames): numbers are bounded, an unforeseen failure is answered
`internal` with the connection kept, and each size class of message gets what the page says. The
fuzzer that sends frames drawn from the frame grammar is tested in tests/tools/test_fuzzing.py."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from boxedin.common.reasons import Refusal
from boxedin.common.settings import Settings
from boxedin.gateway import client_frames
from boxedin.gateway.server_frames import server_frame
from boxedin.gateway.session import Backends, Session
from boxedin.supervisor.launcher import Stack

from stacks import make_stack

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

KIB, MIB = 1024, 1024 * 1024
FRAME, READ = client_frames.MAX_FRAME_BYTES, client_frames.MAX_READ_BYTES


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    """A stack of its own: the oversize messages are sent to a gateway nobody else loads."""
    started = make_stack("bad-input", worker=False)
    try:
        started.start()
        yield started
    finally:
        started.stop()


# --- numbers are bounded ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "ok"),
    [
        ({"type": "roll", "game": "g_x", "seq": 2**63 - 1}, True),
        ({"type": "roll", "game": "g_x", "seq": 2**63}, False),
        ({"type": "hello", "device": "d" * 22, "seq": 2**63 - 1}, True),
        ({"type": "hello", "device": "d" * 22, "seq": 2**63}, False),
        ({"type": "draw", "game": "g_x", "edge": ["h", 1024, -1024]}, True),
        ({"type": "draw", "game": "g_x", "edge": ["h", 1025, 0]}, False),
        ({"type": "draw", "game": "g_x", "edge": ["v", 0, -1025]}, False),
        ({"type": "new_game", "mode": "mini", "clock": 3600, "first": 3600}, True),
        ({"type": "new_game", "mode": "mini", "clock": 3601}, False),
        ({"type": "new_game", "mode": "mini", "first": 3601}, False),
        ({"type": "new_game", "mode": "mini", "clock": -1}, False),
        ({"type": "ping", "id": 2**80}, True),  # an id is only passed back
    ],
)
def test_every_number_is_bounded_where_it_is_parsed(frame: dict[str, Any], ok: bool) -> None:
    if ok:
        assert client_frames.parse_frame(json.dumps(frame)).type == frame["type"]
    else:
        with pytest.raises(Refusal) as refused:
            client_frames.parse_frame(json.dumps(frame))
        assert refused.value.reason == "bad_message"


def test_a_frame_is_measured_in_utf8_bytes() -> None:
    fits = '"' + "é" * 4000 + '"'  # 8,002 bytes: read, and refused as no frame
    with pytest.raises(Refusal) as refused:
        client_frames.parse_frame(fits)
    assert refused.value.reason == "bad_message"
    for too_big in ("é" * (FRAME // 2 + 1), " " * (FRAME + 1)):
        with pytest.raises(Refusal) as refused:
            client_frames.parse_frame(too_big)
        assert refused.value.reason == "too_large"


# --- an unforeseen failure ---------------------------------------------------------------------


class _Socket:
    """The websocket a session sends on: keeps what was sent."""

    client = None
    scope: dict[str, Any] = {}  # noqa: RUF012 - read only

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.changed = asyncio.Event()

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))
        self.changed.set()

    async def sent_at_least(self, count: int) -> list[dict[str, Any]]:
        async with asyncio.timeout(10):
            while len(self.sent) < count:
                self.changed.clear()
                await self.changed.wait()
        return self.sent


class _Nothing:
    """A backend that accepts every call and does nothing."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


class _Failing:
    """An engine whose every call fails in a way nobody foresaw."""

    def __getattr__(self, name: str) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            raise ValueError("Value out of range: 4294967296")

        return call


class _KnownTokens:
    """Device tokens as if this gateway had issued every one it is shown."""

    async def vouch(self, token: str | None) -> tuple[str, bool]:
        assert token is not None
        return token, False


class _FirstSendings:
    """Every action is sent for the first time, and its answer is not kept."""

    def key(self, device: str, frame: Any) -> str:
        return "unkept"

    async def first(self, key: str) -> bool:
        return True

    async def applied(self, key: str, seq: int) -> None:
        pass

    async def refused(self, key: str, refusal: Any) -> None:
        pass


def _backends(engine: Any) -> Backends:
    values: dict[str, Any] = {backend.name: _Nothing() for backend in dataclasses.fields(Backends)}
    values["engine"] = engine
    values["tokens"] = _KnownTokens()
    values["answers"] = _FirstSendings()
    if "limits" in values:  # the limits on one client (docs/protocol.md, Limits), as configured
        from boxedin.gateway.limits import GatewayLimits

        values["limits"] = GatewayLimits.of(Settings())
    return Backends(**values)


def test_an_unforeseen_failure_is_answered_internal_and_the_connection_stays() -> None:
    async def talk() -> list[dict[str, Any]]:
        socket = _Socket()
        session = Session(socket, _backends(_Failing()))  # type: ignore[arg-type]
        await session.handle(json.dumps({"type": "hello", "device": "d" * 30, "id": 1}))
        await session.handle(json.dumps({"type": "roll", "game": "g_x", "id": 2}))
        await session.handle(json.dumps({"type": "ping", "id": 3}))
        return await socket.sent_at_least(3)

    message = "something went wrong on the server; the game is unchanged"
    assert asyncio.run(talk()) == [
        {"type": "error", "code": "internal", "message": message, "reply_to": 1},
        {"type": "error", "code": "internal", "message": message, "reply_to": 2},
        {"type": "pong", "reply_to": 3},
    ]


# --- sizes --------------------------------------------------------------------------------------


def _open(stack: Stack, compression: str | None) -> ClientConnection:
    return connect(stack.url().replace("http://", "ws://") + "/ws", max_size=2**24, compression=compression)


def _answers(ws: ClientConnection, message: str | bytes | list[str], text: bool = True) -> list[dict[str, Any]]:
    """What the gateway answers to the message, up to the pong of a ping sent after it."""
    ws.send(message, text=text) if not isinstance(message, list) else ws.send(message)
    ws.send(json.dumps({"type": "ping", "id": "after"}))
    answers = []
    while (frame := json.loads(ws.recv(timeout=15))).get("reply_to") != "after":
        server_frame(frame)
        answers.append({key: frame[key] for key in ("type", "code", "reply_to") if key in frame})
    return answers


def _close_code(ws: ClientConnection, message: str | bytes | list[str], text: bool = True) -> int | None:
    """The code the gateway closes the connection with after the message (None: reset)."""
    with pytest.raises(ConnectionClosed) as closed:
        ws.send(message, text=text) if not isinstance(message, list) else ws.send(message)
        ws.recv(timeout=15)
    return closed.value.rcvd.code if closed.value.rcvd is not None else None


def _ping_of(size: int) -> str:
    """A ping with an id, padded with spaces to ``size`` bytes."""
    text = '{"type":"ping","id":7}'
    return text + " " * (size - len(text))


@pytest.mark.parametrize("compression", [None, "deflate"])
def test_each_size_class_gets_what_the_protocol_says(stack: Stack, compression: str | None) -> None:
    too_large = [{"type": "error", "code": "too_large", "reply_to": 7}]
    with _open(stack, compression) as ws:
        ws.send(json.dumps({"type": "hello", "device": "s" * 30}))
        assert json.loads(ws.recv(timeout=15))["type"] == "welcome"
        assert _answers(ws, _ping_of(FRAME)) == [{"type": "pong", "reply_to": 7}]
        for size in (FRAME + 1, 2 * FRAME, READ - 1, READ):
            assert _answers(ws, _ping_of(size)) == too_large, size
        # In fragments a message counts whole (compressed, its last fragment needs room: the 1).
        whole = _ping_of(READ - 1)
        assert _answers(ws, [whole[i : i + 16 * KIB] for i in range(0, READ, 16 * KIB)]) == too_large
        assert _answers(ws, "é" * (FRAME // 2 + 1)) == [{"type": "error", "code": "too_large"}]
        assert _answers(ws, b"\x00" * READ, text=False) == [{"type": "error", "code": "bad_message"}]
        assert _answers(ws, b'{"type":"ping","id":7}', text=False) == [{"type": "error", "code": "bad_message"}]
    # Over 64 KiB the connection is closed: 1009. Sent uncompressed, the gateway may close while the
    # client still sends, which the client can see as a reset (docs/protocol.md, Sizes).
    closes_over = {1009} if compression else {1009, None}
    for message, text in [
        (_ping_of(READ + 1), True),
        (_ping_of(MIB), True),
        (b"\x00" * (READ + 1), False),
        ([_ping_of(READ + 1)[i : i + 16 * KIB] for i in range(0, READ + 1, 16 * KIB)], True),
    ]:
        with _open(stack, compression) as ws:
            assert _close_code(ws, message, text) in closes_over
    with _open(stack, compression) as ws:
        assert _close_code(ws, b'{"type":"ping","id":"\xff"}') == 1007
    with _open(stack, compression) as ws:  # the gateway serves on
        assert _answers(ws, json.dumps({"type": "hello", "device": "s" * 30, "id": 1}))[0]["type"] == "welcome"
