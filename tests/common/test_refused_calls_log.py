"""The engine, stats and matchmaker log refused calls at a bounded rate (docs/protocol.md, Refusals
in the log): a client whose frames are refused as fast as it sends them writes a few lines a
second, and a count of the rest. A real gRPC server on loopback, with the services' interceptor."""

from __future__ import annotations

import asyncio
import logging
import time

import grpc

from boxedin.common.grpc_server import ObservingInterceptor

CALLS = 200


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def refuse(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many tries")


async def calls_refused() -> float:
    """Makes the refused calls; the seconds they took."""
    server = grpc.aio.server(interceptors=[ObservingInterceptor()])
    handler = grpc.unary_unary_rpc_method_handler(refuse)
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("test.Refuser", {"Refuse": handler})])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    started = time.monotonic()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary("/test.Refuser/Refuse")
            for _ in range(CALLS):
                try:
                    await call(b"")
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        await server.stop(None)
    return time.monotonic() - started


def test_refused_calls_write_a_few_lines_a_second_and_a_count_of_the_rest() -> None:
    logger = logging.getLogger("boxedin.grpc")
    kept = Kept()
    logger.addHandler(kept)
    try:
        seconds = asyncio.run(calls_refused())
    finally:
        logger.removeHandler(kept)
    failed = [r for r in kept.records if r.getMessage() == "rpc failed"]
    assert 1 <= len(failed) <= 5 * (seconds + 1)
    assert all(r.code == "RESOURCE_EXHAUSTED" for r in failed)  # type: ignore[attr-defined]
