"""A caller's actions to one engine replica over one long-lived stream (Engine.ActBatches), each
answered by its number (issue 32): a unary gRPC call costs the caller and the engine each about
twice the CPU of a message on a stream (`boxedin bench grpc`). engine_router sends a game's
actions over the line of its replica.

A message is about as dear as the unary call's half however little it carries, so each carries
every action queued while the one before was being written, and the engine's answers come the
same way: the busier the line, the more actions share a message. Nothing waits to fill one.

An action's answer is what its unary Act would have been: the snapshot, or the refusal raised
as the same ``grpc.aio.AioRpcError`` (its status, and its reason in the trailing metadata), so the
callers' handling is the same. When a line ends with actions unanswered (the replica died, or
its connection broke), each of them fails as a unary call to a replica that cannot be reached
does, UNAVAILABLE without a reason, and engine_router makes it once more to the next replica.
That is safe as it is for a unary call: an action names its seq, and the gateway's its repeat
key, so one that was applied after all is refused as stale or answered as its repeat.

A line is used for ``LINE_SECONDS`` and then retired: new actions go to a new line, and the old
one is half-closed, so that the engine ends it once it has answered what it read. The servers end
their connections after a few minutes and cut the streams still open on one after a grace of
30 s (grpc_server.SERVER_OPTIONS): a line never lives that long."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Generator
from typing import Any, Protocol

import grpc

from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

from .reasons import REASON_KEY, REASONS

LINE_SECONDS = 20.0
# The most calls (or answers) one message carries. An answer with the whole state is a few KB:
# 64 of them stay far below gRPC's 4 MB limit on a message received.
CALLS_A_MESSAGE = 64


def error_of(code: grpc.StatusCode, details: str, reason: str | None = None) -> grpc.aio.AioRpcError:
    """The error a unary call fails with: its status, details and (an engine refusal's) reason."""
    trailing = grpc.aio.Metadata((REASON_KEY, reason)) if reason is not None else grpc.aio.Metadata()
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), trailing, details=details)


def refused(answer: engine_pb2.ActAnswer) -> grpc.aio.AioRpcError:
    """The error a unary Act raises for the refusal an answer carries."""
    known = REASONS.get(answer.reason)
    return error_of(known.status if known is not None else grpc.StatusCode.INTERNAL, answer.message, answer.reason)


class Line:
    """One ActBatches stream: calls are numbered and queued for its writer, answers matched by number."""

    def __init__(self, stub: engine_pb2_grpc.EngineAsyncStub, metadata: tuple[tuple[str, str], ...]) -> None:
        self._loop = asyncio.get_running_loop()
        self.opened = self._loop.time()
        # Not waiting for the connection: a replica that cannot be reached fails the line at once,
        # and its actions go to the next replica (engine_router).
        self._stream = stub.ActBatches(metadata=metadata, wait_for_ready=False)
        self._numbers = itertools.count(1)
        self._unanswered: dict[int, asyncio.Future[engine_pb2.ActAnswer]] = {}
        # gRPC takes one write at a time on a stream: the writer sends them in turn, and the
        # caller never waits for it.
        self._outgoing: asyncio.Queue[engine_pb2.ActCall | None] = asyncio.Queue()
        self.ended: grpc.aio.AioRpcError | None = None
        self.retired = False
        self.never_connected = False  # gRPC's channel says that of a replica: the router's watch
        self._reader = self._loop.create_task(self._read())
        self._writer = self._loop.create_task(self._write())

    @property
    def usable(self) -> bool:
        return self.ended is None and not self.retired and self._loop.time() - self.opened < LINE_SECONDS

    def send(self, request: engine_pb2.ActRequest) -> tuple[int, asyncio.Future[engine_pb2.ActAnswer]]:
        """Queues an action; its number and the future of its answer."""
        number = next(self._numbers)
        answer: asyncio.Future[engine_pb2.ActAnswer] = self._loop.create_future()
        if self.ended is not None:
            answer.set_exception(self.ended)
            return number, answer
        self._unanswered[number] = answer
        self._outgoing.put_nowait(engine_pb2.ActCall(number=number, request=request))
        return number, answer

    def forget(self, number: int) -> None:
        """A call given up on (its deadline passed, or it was cancelled): its answer, if it comes,
        is dropped."""
        self._unanswered.pop(number, None)

    def retire(self) -> None:
        """No more actions: the engine ends the stream once it has answered those it read."""
        if not self.retired:
            self.retired = True
            self._outgoing.put_nowait(None)

    def close(self) -> None:
        """Ends the line now (the router closes): its unanswered actions fail as unreachable."""
        self.retired = True
        self._stream.cancel()

    async def _write(self) -> None:
        try:
            while True:
                call = await self._outgoing.get()
                ready: list[engine_pb2.ActCall] = []
                while call is not None:
                    ready.append(call)
                    if self._outgoing.empty() or len(ready) == CALLS_A_MESSAGE:
                        break
                    call = self._outgoing.get_nowait()
                if ready:
                    await self._stream.write(engine_pb2.ActCalls(calls=ready))
                if call is None:  # retired: nothing comes after
                    break
            await self._stream.done_writing()
        except (grpc.RpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
            # The stream failed under the writer: the reader ends the line with its status.
            self._stream.cancel()

    async def _read(self) -> None:
        ended = error_of(grpc.StatusCode.UNAVAILABLE, "the engine ended the action stream with actions unanswered")
        try:
            async for batch in self._stream:
                for answer in batch.answers:
                    waiting = self._unanswered.pop(answer.number, None)
                    if waiting is not None and not waiting.done():
                        waiting.set_result(answer)
        except grpc.aio.AioRpcError as error:
            if any(key == REASON_KEY for key, _ in error.trailing_metadata() or ()):
                ended = error  # the engine's own refusal of the stream (its caller is not allowed)
            elif error.code() is grpc.StatusCode.UNIMPLEMENTED:
                ended = error  # an engine of before ActBatches: the router goes back to Act
            else:
                ended = error_of(grpc.StatusCode.UNAVAILABLE, f"the action stream broke: {error.details()}")
        except asyncio.CancelledError:
            ended = error_of(grpc.StatusCode.UNAVAILABLE, "the action stream was closed")
        finally:
            self.ended = ended
            self.retired = True
            for waiting in self._unanswered.values():
                if not waiting.done():
                    waiting.set_exception(ended)
            self._unanswered.clear()
            self._writer.cancel()


class Carrier(Protocol):
    """What carries a caller's actions to a replica: a Line, or act_socket's SocketLine."""

    ended: grpc.aio.AioRpcError | None
    retired: bool
    never_connected: bool  # its connection could not be made at all

    @property
    def usable(self) -> bool: ...

    def send(self, request: engine_pb2.ActRequest) -> tuple[int, asyncio.Future[engine_pb2.ActAnswer]]: ...

    def forget(self, number: int) -> None: ...

    def retire(self) -> None: ...

    def close(self) -> None: ...


class LineCall(grpc.aio.UnaryUnaryCall[engine_pb2.ActRequest, common_pb2.GameSnapshot]):
    """One action on a line, with a unary call's face: awaited, its snapshot (or its refusal)."""

    def __init__(self, line: Carrier, request: engine_pb2.ActRequest, timeout: float | None) -> None:
        self._line = line
        self._loop = asyncio.get_running_loop()
        self._deadline = None if timeout is None else self._loop.time() + timeout
        self._number, self._answer = line.send(request)
        self._timer = None if timeout is None else self._loop.call_later(timeout, self._time_up)
        self._answer.add_done_callback(self._stop_timer)

    @property
    def never_reached(self) -> bool:
        """The call failed because its line's connection was never made (an action port that
        cannot be reached), not because the replica went."""
        return self._line.never_connected

    def _time_up(self) -> None:
        if not self._answer.done():
            self._line.forget(self._number)
            self._answer.set_exception(error_of(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"))

    def _stop_timer(self, _: object) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _snapshot(self) -> common_pb2.GameSnapshot:
        answer = self._answer.result()
        if answer.reason:
            raise refused(answer)
        return answer.snapshot

    def __await__(self) -> Generator[Any, None, common_pb2.GameSnapshot]:
        yield from self._answer.__await__()
        return self._snapshot()

    def cancelled(self) -> bool:
        return self._answer.cancelled()

    def done(self) -> bool:
        return self._answer.done()

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - self._loop.time())

    def cancel(self) -> bool:
        self._line.forget(self._number)
        return self._answer.cancel()

    def add_done_callback(self, callback: Callable[[Any], None]) -> None:
        self._answer.add_done_callback(lambda _: callback(self))

    async def initial_metadata(self) -> grpc.aio.Metadata:
        return grpc.aio.Metadata()

    async def _outcome(self) -> grpc.aio.AioRpcError | None:
        try:
            await self
        except grpc.aio.AioRpcError as error:
            return error
        return None

    async def trailing_metadata(self) -> grpc.aio.Metadata:
        error = await self._outcome()
        return error.trailing_metadata() if error is not None else grpc.aio.Metadata()

    async def code(self) -> grpc.StatusCode:
        error = await self._outcome()
        return error.code() if error is not None else grpc.StatusCode.OK

    async def details(self) -> str:
        error = await self._outcome()
        return (error.details() or "") if error is not None else ""

    async def wait_for_connection(self) -> None:
        """The action is queued on a line that is open."""
