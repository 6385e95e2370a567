"""The frames of the gateway on the wire (services/gateway/wire.py), read off a raw socket that
negotiated per-message deflate as browsers do: a small frame (the welcome, an update) goes out
uncompressed, framed once for every socket that sends it; a large one (a big board's state) is
compressed for its socket, as before. Both are read back by a real websockets client."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import zlib
from typing import Any

import pytest

from boxedin.gateway.wire import UNCOMPRESSED_MAX_BYTES, WireFrames
from boxedin.supervisor.launcher import Stack

from wsclient import Browser

pytestmark = pytest.mark.stack


class RawSocket:
    """A websocket client reading each frame's header itself (RSV1: compressed or not)."""

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=15)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                "GET /ws HTTP/1.1\r\n"
                f"Host: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
            ).encode()
        )
        self.buffer = b""
        head = self._until(b"\r\n\r\n").decode()
        assert head.startswith("HTTP/1.1 101") and "permessage-deflate" in head, head
        # The server's context carries over from one compressed message to the next.
        self.inflate = zlib.decompressobj(wbits=-15)

    def _until(self, mark: bytes) -> bytes:
        while mark not in self.buffer:
            self.buffer += self.sock.recv(65536)
        head, _, self.buffer = self.buffer.partition(mark)
        return head

    def _take(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self.buffer += self.sock.recv(65536)
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def send(self, **frame: Any) -> None:
        data = json.dumps(frame).encode()
        mask = os.urandom(4)
        assert len(data) < 126
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(bytes([0x81, 0x80 | len(data)]) + mask + masked)

    def receive(self) -> tuple[bool, dict[str, Any]]:
        """The next frame: whether it came compressed, and its JSON."""
        while True:
            first, second = self._take(2)
            size = second & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", self._take(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", self._take(8))
            data = self._take(size)
            if first != 0x89:  # the keepalive's ping (answered by nothing: the test is short)
                break
        assert first & 0x80 and first & 0x0F == 0x1, f"a whole text frame, not {first:#x}"
        compressed = bool(first & 0x40)
        if compressed:
            data = self.inflate.decompress(data + b"\x00\x00\xff\xff")
        return compressed, json.loads(data)

    def until(self, kind: str) -> tuple[bool, dict[str, Any]]:
        while True:
            compressed, frame = self.receive()
            if frame["type"] == kind:
                return compressed, frame

    def close(self) -> None:
        self.sock.close()


def test_small_frames_go_uncompressed_and_large_ones_compressed(live_stack: Stack) -> None:
    player = Browser(live_stack.url())
    raw = RawSocket(live_stack.url())
    try:
        player.hello()
        player.new_game(mode="marathon", opponent="local", seed="wire-frames")
        for _ in range(60):  # a board with a history: its whole state is a large frame
            player.play_turn()
        raw.send(type="hello", device=player.device, id=1)
        compressed, welcome = raw.until("welcome")
        assert not compressed and welcome["device"] == player.device
        raw.send(type="resume", id=2)
        compressed, state = raw.until("state")
        assert len(json.dumps(state)) > UNCOMPRESSED_MAX_BYTES and compressed
        assert state["game"]["edges"] == player.state["edges"]  # type: ignore[index]
        raw.send(type="ping", id=3)
        assert raw.until("pong") == (False, {"type": "pong", "reply_to": 3})
        player.wait_until(lambda game: game["seq"] == state["seq"])  # the resume's update
        player.play_turn()  # an update after a compressed frame: the window is as it was
        compressed, update = raw.until("update")
        assert not compressed and update == player.updates[-1]
    finally:
        player.close()
        raw.close()


def test_a_text_is_framed_once_however_many_sockets_send_it() -> None:
    wire = WireFrames()
    update = '{"type":"update","seq":1,"changes":[]}'
    frames = [wire.frame(update) for _ in range(1000)]
    assert wire.framed == 1 and all(frame is frames[0] for frame in frames)
    assert frames[0] == bytes([0x81, len(update)]) + update.encode()  # FIN, text, unmasked, RSV1 clear
    assert wire.frame("x" * (UNCOMPRESSED_MAX_BYTES + 1)) is None
    assert wire.frame("é" * (UNCOMPRESSED_MAX_BYTES // 2 + 1)) is None  # counted in bytes
