"""The engine's action port (Engine.GetActPort, boxedin.common.act_socket, issue 32): the actions
of Engine.ActBatches as frames on plain TCP connections, each applied as Act applies it.

A connection's first frame proves its caller as a gRPC call's metadata does, checked as a call
of ActBatches (service_auth): a caller not proven, or not one that may act, is answered with an
ActGreeting that says why, and the connection is closed. Every call read is applied by a task
of its own, in the caller's name, and its answer goes with the others ready in the same turn of
the event loop in one ActAnswers frame. Bad input (a frame too long, bytes that are no message,
a call before the hello) closes that connection, saying why in the log, and changes no game:
calls already read still finish, as a unary call's would whose caller left.

When the caller half-closes, the engine answers every call it read and closes. When the engine
stops, it stops reading (a call not yet read fails at the caller as unreachable, and is made
again at the next replica), answers those under way within the grace, and closes."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import cast

import grpc
from google.protobuf.message import DecodeError

from boxedin.common.act_socket import FrameError, FrameReader, frame
from boxedin.common.reasons import REASONS
from boxedin.common.service_auth import CallerCheck, act_as
from boxedin.v1 import engine_pb2

from .server import EngineService

log = logging.getLogger("boxedin.engine.act_port")

_ACCEPTED = frame(engine_pb2.ActGreeting().SerializeToString())
_WILDCARDS = ("", "0.0.0.0", "::", "[::]")


def bind_host(address: str) -> str | None:
    """The host of the engine's gRPC address to bind the action port on; None for every
    interface (both families, as gRPC binds ``[::]``)."""
    host = address.rsplit(":", 1)[0]
    if host in _WILDCARDS:
        return None
    return host[1:-1] if host.startswith("[") else host


class _Connection(asyncio.Protocol):
    def __init__(self, port: ActPort) -> None:
        self._port = port
        self._service = port.service
        self._loop = asyncio.get_running_loop()
        self._reader = FrameReader()
        self._transport: asyncio.Transport | None = None
        self._context: contextvars.Context | None = None  # the caller's, once proven
        self._working: set[asyncio.Task[None]] = set()
        self._ready: list[engine_pb2.ActAnswer] = []
        self._flushing = False
        self._reading = True  # False once the caller half-closed, or the engine stops
        self.peer = "?"

    # --- the connection ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport = cast(asyncio.Transport, transport)  # uvloop's are not asyncio.Transport's subclasses
        self._transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if peer else "?"
        self._port.connections.add(self)

    def data_received(self, data: bytes) -> None:
        if not self._reading:
            return
        try:
            for message in self._reader.feed(data):
                if self._context is None:
                    self._hello(engine_pb2.ActHello.FromString(message))
                    if self._context is None:
                        return
                    continue
                self._port.frames_of_calls += 1
                for call in engine_pb2.ActCalls.FromString(message).calls:
                    self._start(call)
        except (FrameError, DecodeError) as exc:
            log.warning("action port: not a frame", extra={"peer": self.peer, "error": str(exc)})
            self._refuse("malformed", f"not a frame of the action port: {exc}")

    def eof_received(self) -> bool:
        # The caller sends no more: answer what was read, then close (keeping the write side).
        self._reading = False
        self._close_when_answered()
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        self._reading = False
        self._port.connections.discard(self)

    # --- the caller ----------------------------------------------------------------------------

    def _hello(self, hello: engine_pb2.ActHello) -> None:
        verdict = self._port.check.check("ActBatches", hello.caller, hello.proof)
        if isinstance(verdict, tuple):
            status, message = verdict
            reason = "unauthenticated" if status is grpc.StatusCode.UNAUTHENTICATED else "not_allowed"
            log.warning("action port: caller refused", extra={"peer": self.peer, "reason": reason})
            self._refuse(reason, message)
            return
        context = contextvars.copy_context()
        context.run(act_as, verdict)
        self._context = context
        assert self._transport is not None
        self._transport.write(_ACCEPTED)

    def _refuse(self, reason: str, message: str) -> None:
        """Says why (as the first frame, if the caller was not yet greeted) and closes; the
        calls under way still finish, their answers dropped."""
        self._reading = False
        transport = self._transport
        if transport is None:
            return
        if self._context is None:
            assert reason in REASONS, reason
            transport.write(frame(engine_pb2.ActGreeting(reason=reason, message=message).SerializeToString()))
        transport.close()

    # --- the calls -----------------------------------------------------------------------------

    def _start(self, call: engine_pb2.ActCall) -> None:
        task = self._loop.create_task(self._answer(call), context=self._context)
        self._working.add(task)
        task.add_done_callback(self._done)

    async def _answer(self, call: engine_pb2.ActCall) -> None:
        answer = await self._service.answer(call)
        self._ready.append(answer)  # the list of now: a flush while it was applied made a new one
        if not self._flushing:
            self._flushing = True
            self._loop.call_soon(self._flush)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._working.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("action port: a call failed", exc_info=task.exception())
        if not self._reading and not self._working:
            self._loop.call_soon(self._close_when_answered)

    def _flush(self) -> None:
        self._flushing = False
        if self._ready and self._transport is not None and not self._transport.is_closing():
            answers, self._ready = self._ready, []
            self._transport.write(frame(engine_pb2.ActAnswers(answers=answers).SerializeToString()))

    def _close_when_answered(self) -> None:
        if self._working or self._transport is None:
            return
        self._flush()
        self._transport.close()

    def stop_reading(self) -> None:
        """The engine stops: no call read from now on; those under way are answered."""
        self._reading = False
        if self._transport is not None:
            self._transport.pause_reading()
        self._close_when_answered()

    async def answered(self) -> None:
        while self._working:
            await asyncio.wait(set(self._working))

    def abort(self) -> None:
        if self._transport is not None:
            self._transport.abort()


class ActPort:
    """The action port's server: ``start`` listens, ``stop`` ends it within a grace."""

    def __init__(self, service: EngineService, secret: str) -> None:
        self.service = service
        self.check = CallerCheck("engine", secret)
        self.connections: set[_Connection] = set()
        self.frames_of_calls = 0  # ActCalls frames read (each carries the calls of a caller's turn)
        self._server: asyncio.Server | None = None

    async def start(self, host: str | None, port: int) -> int:
        """Listens on ``port`` (0: one the system picks); the port, which GetActPort tells."""
        loop = asyncio.get_running_loop()
        try:
            self._server = await loop.create_server(lambda: _Connection(self), host, port)
        except OSError as exc:
            raise RuntimeError(f"engine: cannot listen for actions on {host or '*'}:{port}: {exc.strerror}") from None
        bound = int(self._server.sockets[0].getsockname()[1])
        self.service.act_port = bound
        log.info("action port", extra={"port": bound})
        return bound

    async def stop(self, grace: float) -> None:
        self.service.act_port = 0
        if self._server is not None:
            self._server.close()
        connections = list(self.connections)
        for connection in connections:
            connection.stop_reading()
        if connections:
            waits = [asyncio.ensure_future(connection.answered()) for connection in connections]
            _, late = await asyncio.wait(waits, timeout=grace)
            for wait in late:
                wait.cancel()
        for connection in list(self.connections):
            connection.abort()
        if self._server is not None:
            await self._server.wait_closed()
