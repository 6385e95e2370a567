"""The gateway's FastAPI application: /ws for play, /healthz and /readyz, /ops, and the
built web client at /."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import redis.asyncio as redis
from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from grpc_health.v1 import health_pb2, health_pb2_grpc

from boxedin.common import grpc_client
from boxedin.common.metrics import WEBSOCKETS
from boxedin.common.progress import LIVENESS, WATCH
from boxedin.common.redis_client import connect
from boxedin.common.service_auth import check_secret
from boxedin.common.settings import Settings, settings
from boxedin.v1 import engine_pb2_grpc, matchmaker_pb2_grpc, stats_pb2_grpc

from . import ops
from .connection import KeepTransport
from .hub import UpdateHub
from .identity import DeviceTokens
from .limits import CLOSE_TOO_MANY_CONNECTIONS, GatewayLimits
from .online import PresenceFeed, WaitingKeeper
from .presence import Presence
from .repeats import ActionAnswers
from .session import Backends, Session
from .watchers import Watchers
from .webassets import web_client

_NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>Boxed In</title>
<p>The web client has not been built: run <code>./scripts/run</code>, which builds it.</p>"""


def create_app(config: Settings | None = None) -> FastAPI:
    config = config or settings()
    check_secret(config.service_secret)
    if config.production and not config.ops_token:
        raise RuntimeError("in production the gateway needs BOXEDIN_OPS_TOKEN (the operator's page token)")
    limits = GatewayLimits.of(config)
    WATCH.configure(config)  # the update listener's stall and the Redis blip (/readyz)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        client = connect(config)
        hub = UpdateHub(client, config.keys())
        await hub.start()
        presence = Presence(client, config.keys(), uuid.uuid4().hex)
        presence.start()
        app.state.presence = presence
        watchers = Watchers(client, config.keys(), presence.gateway)
        watchers.start()
        hub.count_watchers = watchers.total
        engine_channel = grpc_client.channel(config.engine_address, "gateway", config.service_secret)
        app.state.redis = client
        app.state.engine_channel = engine_channel
        stats_channel = grpc_client.channel(config.stats_address, "gateway", config.service_secret)
        matchmaker_channel = grpc_client.channel(config.matchmaker_address, "gateway", config.service_secret)
        matchmaker = matchmaker_pb2_grpc.MatchmakerStub(matchmaker_channel)
        presence_feed = PresenceFeed(matchmaker_pb2_grpc.PresenceStub(matchmaker_channel))
        presence_feed.start()
        keeper = WaitingKeeper(matchmaker, engine_pb2_grpc.EngineStub(engine_channel), config.online_keep_seconds)
        keeper.start()
        app.state.backends = Backends(
            engine_pb2_grpc.EngineStub(engine_channel),
            hub,
            stats_pb2_grpc.StatsStub(stats_channel),
            presence,
            matchmaker,
            presence_feed,
            keeper,
            limits,
            DeviceTokens(client, config.keys()),
            ActionAnswers(client, config.keys()),
            watchers,
        )
        try:
            yield
        finally:
            await presence_feed.stop()
            await keeper.stop()
            await matchmaker_channel.close()
            await presence.stop()
            await watchers.stop()
            await hub.stop()
            await engine_channel.close()
            await stats_channel.close()
            await client.aclose()

    app = FastAPI(title="Boxed In gateway", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.config = config
    app.include_router(ops.router)
    # /ops?token=... is refused, and its value blanked out of the access log.
    app.add_middleware(ops.TokenNotInUrl)
    app.add_middleware(KeepTransport)

    @app.websocket("/ws")
    async def play(ws: WebSocket) -> None:
        """A browser's connection, under the limits of docs/protocol.md, Limits."""
        address = ws.client.host if ws.client is not None else ""
        origin = ws.headers.get("origin")
        if not limits.origins.allows(origin, ws.headers.get("host")):
            limits.log.log("origin", "websocket refused", reason="origin", origin=origin, client=address)
            await ws.close()  # before accepting: the handshake is answered 403
            return
        if not limits.addresses.admit(address):
            limits.log.log("too_many_connections", "websocket refused", reason="too_many_connections", client=address)
            await ws.accept()
            await ws.close(CLOSE_TOO_MANY_CONNECTIONS, "too many connections from your address")
            return
        try:
            await ws.accept()
            WEBSOCKETS.inc()
            try:
                await Session(ws, ws.app.state.backends).run()
            finally:
                WEBSOCKETS.dec()
        finally:
            limits.addresses.leave(address)

    @app.get("/same-wifi")
    async def same_wifi() -> dict[str, str | None]:
        """Where this machine's Same Wi-Fi app (`boxedin lan`) is, if there is one."""
        return {"url": config.lan_url or None}

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        """Liveness: the gateway's event loop answers, and its update listener is not stuck
        (stalled far longer than readiness allows: boxedin.common.progress). Redis never
        fails it."""
        _, stuck = WATCH.stalls()
        if stuck:
            return JSONResponse({"status": "stuck", "stuck": stuck}, status_code=503)
        return JSONResponse({"status": "ok"})

    @app.get("/readyz")
    async def readyz(request: Request) -> JSONResponse:
        """Readiness: the update listener goes round, Redis answers (an outage no longer than
        redis_blip_seconds is a blip: "reconnecting", still ready), and an engine answers (its
        liveness: an engine replica that is not ready itself is out of the engines' Service, and
        must not take every gateway out of theirs)."""
        checks: dict[str, Any] = {}
        error = ""
        try:
            await asyncio.wait_for(request.app.state.redis.ping(), 2)
        except (redis.RedisError, TimeoutError) as exc:
            error = str(exc) or type(exc).__name__
        health = WATCH.health(redis_ok=not error)
        checks["redis"] = health.redis if health.redis != "down" else f"down: {error}"
        try:
            # typeshed's HealthStub declares no methods: grpc's generated __init__ sets them.
            check: grpc.aio.UnaryUnaryMultiCallable[health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse] = (
                health_pb2_grpc.HealthStub(request.app.state.engine_channel).Check  # type: ignore[attr-defined]
            )
            reply = await check(health_pb2.HealthCheckRequest(service=LIVENESS), timeout=2)
            checks["engine"] = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status).lower()
        except grpc.RpcError as exc:
            checks["engine"] = f"down: {exc.code().name}"
        checks["updates"] = "ok" if not health.stalled else "stalled"
        ready = health.ready and checks["engine"] == "serving"
        return JSONResponse({"status": "ready" if ready else "not ready", **checks}, status_code=200 if ready else 503)

    dist = Path(config.web_dist)
    if (dist / "index.html").is_file():

        @app.get("/watch/{watch_id}", response_class=FileResponse)
        async def watch_page(watch_id: str) -> FileResponse:
            """A watch link opens the web client, which reads the watch id from its address."""
            return FileResponse(dist / "index.html", headers={"Cache-Control": "no-cache"})

        app.mount("/", web_client(dist), name="web")
    else:

        @app.get("/", response_class=HTMLResponse)
        async def not_built() -> str:
            return _NOT_BUILT

    return app
