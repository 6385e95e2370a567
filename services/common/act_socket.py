"""A caller's actions to one engine replica over its action port (Engine.GetActPort, issue 32):
the ActCalls and ActAnswers of Engine.ActBatches, each a frame of its own on a plain TCP
connection, instead of messages on a gRPC stream.

At the load players make (2,000 games, an action every few milliseconds) a gRPC stream's
messages mostly carry one action each, and each still costs its side about 0.22 ms of CPU: the
call's machinery, gRPC's poller thread, and the hand-over from that thread to the event loop
(`boxedin bench grpc`). A frame here is one write and one read on the event loop's own socket.

A frame is a 4-byte big-endian length and that many bytes of a message. The caller's first frame
is an ActHello (its service name and proof, as a gRPC call's metadata carries them); the engine's
first is an ActGreeting, then ActAnswers. Every call made in one turn of the event loop goes in
one ActCalls frame, so under load several share it, and nothing waits to fill one.

``SocketLine`` has act_line.Line's face, so engine_router and act_line.LineCall use either: an
action's answer is what its unary Act would have been, a refusal is raised as the same
``grpc.aio.AioRpcError``, and the actions a line leaves unanswered when its connection breaks
fail as unreachable (UNAVAILABLE without a reason), which engine_router makes once more at the
next replica, safe as for a unary call (an action names its seq, the gateway's its repeat key).
A caller the engine does not take fails its actions with the engine's reason, which the router
does not try elsewhere."""

from __future__ import annotations

import asyncio
import itertools
import struct
from collections.abc import Iterator
from typing import cast

import grpc
from google.protobuf.message import DecodeError

from boxedin.v1 import engine_pb2

from . import act_line
from .act_line import error_of
from .reasons import REASONS

_LENGTH = struct.Struct(">I")
# The largest frame either side takes: gRPC's own limit on a message received. An answer with the
# whole state is a few KB; a call well under one.
MAX_FRAME = 4 * 1024 * 1024


class FrameError(ValueError):
    """What came on the connection is not a frame this side takes."""


def frame(message: bytes) -> bytes:
    """The frame of one serialised message."""
    return _LENGTH.pack(len(message)) + message


class FrameReader:
    """Cuts the bytes read off a connection into the messages of its frames."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The messages whose frames are complete once ``data`` is added, in order."""
        buffer = self._buffer
        buffer += data
        start = 0
        while len(buffer) - start >= _LENGTH.size:
            (length,) = _LENGTH.unpack_from(buffer, start)
            if length > MAX_FRAME:
                raise FrameError(f"a frame of {length} bytes is over the {MAX_FRAME} allowed")
            end = start + _LENGTH.size + length
            if end > len(buffer):
                break
            yield bytes(buffer[start + _LENGTH.size : end])
            start = end
        del buffer[:start]

    @property
    def pending(self) -> int:
        """Bytes read that are not yet a whole frame."""
        return len(self._buffer)


def split_address(address: str) -> str:
    """The host of an endpoint's ``host:port`` (``[v6]:port`` too)."""
    host = address.rsplit(":", 1)[0]
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


class SocketLine(asyncio.Protocol):
    """One connection to a replica's action port: calls numbered, sent a frame a loop turn, and
    answered by number."""

    def __init__(self, host: str, port: int, caller: str, proof: str) -> None:
        self._loop = asyncio.get_running_loop()
        self.opened = self._loop.time()
        self.address = f"{host}:{port}"
        self._hello = frame(engine_pb2.ActHello(caller=caller, proof=proof).SerializeToString())
        self._numbers = itertools.count(1)
        self._unanswered: dict[int, asyncio.Future[engine_pb2.ActAnswer]] = {}
        self._ready: list[engine_pb2.ActCall] = []
        self._flushing = False
        self._transport: asyncio.Transport | None = None
        self._reader = FrameReader()
        self._greeted = False
        self.ended: grpc.aio.AioRpcError | None = None
        self.retired = False
        self._half_closed = False
        self.never_connected = False  # its connection could not be made
        self._connecting = self._loop.create_task(self._connect(host, port))

    async def _connect(self, host: str, port: int) -> None:
        try:
            await self._loop.create_connection(lambda: self, host, port)
        except OSError as exc:
            self.never_connected = True
            self._end(error_of(grpc.StatusCode.UNAVAILABLE, f"the engine's action port {self.address}: {exc}"))

    @property
    def usable(self) -> bool:
        return self.ended is None and not self.retired and self._loop.time() - self.opened < act_line.LINE_SECONDS

    # --- the calls -----------------------------------------------------------------------------

    def send(self, request: engine_pb2.ActRequest) -> tuple[int, asyncio.Future[engine_pb2.ActAnswer]]:
        """Queues an action for this loop turn's frame; its number and the future of its answer."""
        number = next(self._numbers)
        answer: asyncio.Future[engine_pb2.ActAnswer] = self._loop.create_future()
        if self.ended is not None:
            answer.set_exception(self.ended)
            return number, answer
        self._unanswered[number] = answer
        self._ready.append(engine_pb2.ActCall(number=number, request=request))
        if not self._flushing and self._transport is not None:
            self._flushing = True
            self._loop.call_soon(self._flush)
        return number, answer

    def forget(self, number: int) -> None:
        """A call given up on (its deadline passed, or it was cancelled): its answer, if it comes,
        is dropped."""
        self._unanswered.pop(number, None)

    def retire(self) -> None:
        """No more actions: once what is queued is sent, the connection is half-closed, and the
        engine closes it when it has answered every call it read."""
        if not self.retired:
            self.retired = True
            if self._transport is not None and not self._flushing:
                self._flush()

    def close(self) -> None:
        """Ends the line now (the router closes): its unanswered actions fail as unreachable."""
        self.retired = True
        self._connecting.cancel()
        if self._transport is not None:
            self._transport.abort()
        self._end(error_of(grpc.StatusCode.UNAVAILABLE, "the action line was closed"))

    def _flush(self) -> None:
        self._flushing = False
        transport = self._transport
        if transport is None or self.ended is not None or self._half_closed:
            return
        if self._ready:
            calls, self._ready = self._ready, []
            transport.write(frame(engine_pb2.ActCalls(calls=calls).SerializeToString()))
        if self.retired:
            self._half_closed = True
            transport.write_eof()

    # --- the connection ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport = cast(asyncio.Transport, transport)  # uvloop's are not asyncio.Transport's subclasses
        if self.ended is not None:  # closed while connecting
            transport.abort()
            return
        self._transport = transport
        transport.write(self._hello)
        self._flush()

    def data_received(self, data: bytes) -> None:
        try:
            for message in self._reader.feed(data):
                if not self._greeted:
                    self._greet(engine_pb2.ActGreeting.FromString(message))
                    continue
                for answer in engine_pb2.ActAnswers.FromString(message).answers:
                    waiting = self._unanswered.pop(answer.number, None)
                    if waiting is not None and not waiting.done():
                        waiting.set_result(answer)
        except (FrameError, DecodeError) as exc:
            self._end(
                error_of(grpc.StatusCode.UNAVAILABLE, f"the engine's action port sent what is not a frame: {exc}")
            )
            if self._transport is not None:
                self._transport.abort()

    def _greet(self, greeting: engine_pb2.ActGreeting) -> None:
        if greeting.reason:
            # The engine's own refusal of the caller: it carries its reason, so the router does not
            # make the actions again elsewhere (each replica would say the same).
            known = REASONS.get(greeting.reason)
            status = known.status if known is not None else grpc.StatusCode.INTERNAL
            self._end(error_of(status, greeting.message, greeting.reason))
        self._greeted = True

    def eof_received(self) -> bool:
        return False  # the engine has answered all it will: close

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        why = f": {exc}" if exc is not None else ""
        self._end(error_of(grpc.StatusCode.UNAVAILABLE, f"the engine's action port closed the line{why}"))

    def _end(self, error: grpc.aio.AioRpcError) -> None:
        if self.ended is None:
            self.ended = error
        self.retired = True
        self._ready = []
        for waiting in self._unanswered.values():
            if not waiting.done():
                waiting.set_exception(self.ended)
        self._unanswered.clear()
