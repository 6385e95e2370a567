"""Running a gRPC service: the standard health service, an interceptor that logs and measures
every call, a Prometheus endpoint, and a graceful shutdown on SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from typing import TypeAlias, TypeVar, cast

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import start_http_server

from . import progress
from .cancelling import stop_task
from .gc_pauses import settle_gc
from .logs import RateLimitedLog
from .metrics import RPC_LATENCY
from .reasons import REFUSAL_STATUSES
from .service_auth import CallerCheck
from .settings import settings
from .stalls import StallWatch

log = logging.getLogger("boxedin.grpc")
# A call refused for what it asked is no failure of the service (boxedin.common.reasons).
_REFUSALS = frozenset(status.name for status in REFUSAL_STATUSES)
# A client can have its calls refused as fast as it sends them: at most 5 lines a second for each
# method and status code, the rest counted in a "log lines held back" line.
_failed = RateLimitedLog(log, per_window=5, window=1.0, key_field="rpc")

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")
# A unary method as a grpc.aio server runs it: a coroutine function of the request and the aio
# context. typeshed's RpcMethodHandler.unary_unary has the synchronous server's signature.
_AioUnary: TypeAlias = Callable[[_Request, grpc.aio.ServicerContext[_Request, _Response]], Awaitable[_Response]]


def observe_call(method: str, code: str, elapsed: float) -> None:
    """Counts one call (or one call of a stream, as Engine.ActBatches' actions are counted as
    Act) by method and status code, and logs it when it failed."""
    RPC_LATENCY.labels(method, code).observe(elapsed)
    if code != "OK" and code not in _REFUSALS:
        _failed.log(f"{method} {code}", "rpc failed", level=logging.WARNING, method=method, code=code, seconds=elapsed)


class ObservingInterceptor(grpc.aio.ServerInterceptor):
    """Times every unary call by method and status code, and logs the slow or failed ones."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[_Request, _Response] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_Request, _Response] | None:
        handler = await continuation(handler_call_details)
        if handler is None or handler.unary_unary is None:
            return handler
        method = handler_call_details.method.rsplit("/", 1)[-1]
        inner = cast("_AioUnary[_Request, _Response]", handler.unary_unary)

        async def observed(request: _Request, context: grpc.aio.ServicerContext[_Request, _Response]) -> _Response:
            start = time.perf_counter()
            code = "OK"
            try:
                return await inner(request, context)
            except BaseException:
                status = context.code()
                code = status.name if isinstance(status, grpc.StatusCode) else "UNKNOWN"
                raise
            finally:
                observe_call(method, code, time.perf_counter() - start)

        return grpc.unary_unary_rpc_method_handler(
            observed,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


# Connections end after a few minutes (calls in flight finish first), so that clients resolve the
# address again and spread over replicas added since. grpc sets SO_REUSEADDR on its listening
# sockets (a port whose last connections are in TIME_WAIT can be listened on at once), and by
# default SO_REUSEPORT too, which lets a second server listen on a port another process already
# serves and take half its connections without a word: off, so a taken port is an error.
SERVER_OPTIONS = [
    ("grpc.max_connection_age_ms", 300_000),
    ("grpc.max_connection_age_grace_ms", 30_000),
    ("grpc.so_reuseport", 0),
]


def listen(server: grpc.aio.Server, name: str, address: str) -> int:
    """Listens on ``address``; a port another process listens on is refused, saying so."""
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:  # grpc's own words only point at GRPC_VERBOSITY
        port = 0
    if port == 0:
        raise RuntimeError(f"{name}: cannot listen on {address}: the port is taken")
    return port


async def serve(
    name: str,
    service: str,
    secret: str,
    address: str,
    metrics_port: int,
    register: Callable[[grpc.aio.Server], None],
    grace: float,
    on_stop: Callable[[], Awaitable[None]] | None = None,
    metrics_host: str = "127.0.0.1",
    stop_too: Callable[[float], Awaitable[None]] | None = None,
) -> None:
    """Serves until SIGTERM or SIGINT, then stops taking calls and lets running ones finish.
    Calls are taken only from the services allowed to call ``service`` (service_auth.CALLERS).
    ``stop_too`` ends, with the same grace and at the same time, what serves calls beside the
    gRPC server (the engine's action port)."""
    settle_gc()
    interceptors = [ObservingInterceptor(), CallerCheck(service, secret)]
    server = grpc.aio.server(interceptors=interceptors, options=SERVER_OPTIONS)
    register(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    try:
        listen(server, name, address)
        if metrics_port:
            try:
                start_http_server(metrics_port, addr=metrics_host)
            except OSError as exc:
                where = f"{metrics_host}:{metrics_port}"
                raise RuntimeError(f"{name}: cannot serve metrics on {where}: {exc.strerror}") from None
        await server.start()
    except BaseException:
        # What the service started beside the server (its loops) is stopped here too, as after
        # SIGTERM: left to the end of asyncio.run, the AI service's loops kept it from exiting
        # on uvloop every time its port was taken.
        if on_stop is not None:
            await on_stop()
        raise
    # Readiness ("" and the service's name) and liveness follow the loops the service owns.
    progress.WATCH.configure(settings())
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(progress.LIVENESS, health_pb2.HealthCheckResponse.SERVING)
    following = asyncio.create_task(progress.follow(health_servicer, ["", name]))
    stalls = StallWatch(settings().stall_stacks)
    stalls.start()
    log.info("serving", extra={"address": address, "metrics_port": metrics_port})

    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    log.info("stopping", extra={"grace_seconds": grace})
    await stop_task(following)
    await stalls.stop()
    await health_servicer.enter_graceful_shutdown()
    if stop_too is not None:
        await asyncio.gather(server.stop(grace), stop_too(grace))
    else:
        await server.stop(grace)
    if on_stop is not None:
        await on_stop()
    log.info("stopped")
