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
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse
from grpc_health.v1 import health_pb2, health_pb2_grpc

from boxedin.common import grpc_client
from boxedin.common.engine_router import engine_router
from boxedin.common.metrics import WEBSOCKET_CLOSES, WEBSOCKETS
from boxedin.common.progress import LIVENESS, WATCH
from boxedin.common.redis_client import connect
from boxedin.common.service_auth import check_secret
from boxedin.common.settings import Settings, settings
from boxedin.common.stalls import StallWatch
from boxedin.v1 import ai_pb2_grpc, matchmaker_pb2_grpc, stats_pb2_grpc

from . import ops
from .admission import Admission
from .budgets import client_address
from .connection import TRANSPORT, KeepTransport
from .drain import Drain
from .forwarded import RealClientAddress, TrustedProxies
from .hub import UpdateHub
from .identity import DeviceTokens
from .limits import CLOSE_TRY_LATER, GatewayLimits, count_refusal
from .online import PresenceFeed, WaitingKeeper
from .presence import Presence
from .repeats import ActionAnswers
from .session import Backends, Session
from .watchers import Watchers
from .webassets import web_client

# A websocket through a trusted proxy over its address's budget: its close reason (http_guard.py
# answers the others before their request is read).
REFUSED_WEBSOCKET = {
    "connect_rate": "too many new connections from your address",
    "too_many_connections": "too many connections from your address",
    "descriptors": "the server is full; try again shortly",
}

_NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>Boxed In</title>
<p>The web client has not been built: run <code>./scripts/run</code>, which builds it.</p>"""


def create_app(config: Settings | None = None) -> FastAPI:
    config = config or settings()
    check_secret(config.service_secret)
    if config.production and not config.ops_token:
        raise RuntimeError("in production the gateway needs BOXEDIN_OPS_TOKEN (the operator's page token)")
    limits = GatewayLimits.of(config)
    drain = Drain(config.drain_spread_seconds)
    admission = Admission()
    WATCH.configure(config)  # the update listener's stall and the Redis blip (/readyz)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stalls = StallWatch(config.stall_stacks)
        stalls.start()
        client = connect(config)
        hub = UpdateHub(client, config.keys())
        await hub.start()
        presence = Presence(client, config.keys(), uuid.uuid4().hex, hub.listeners.keys)
        hub.on_following_changed = presence.changed
        presence.start()
        app.state.presence = presence
        watchers = Watchers(client, config.keys(), presence.gateway)
        watchers.start()
        hub.count_watchers = watchers.total
        engine = await engine_router(config, "gateway")
        app.state.redis = client
        app.state.engine = engine
        stats_channel = grpc_client.channel(config.stats_address, "gateway", config.service_secret)
        matchmaker_channel = grpc_client.channel(config.matchmaker_address, "gateway", config.service_secret)
        ai_channel = grpc_client.channel(config.ai_address, "gateway", config.service_secret)
        matchmaker = matchmaker_pb2_grpc.MatchmakerStub(matchmaker_channel)
        presence_feed = PresenceFeed(matchmaker_pb2_grpc.PresenceStub(matchmaker_channel))
        presence_feed.start()
        keeper = WaitingKeeper(matchmaker, engine, config.online_keep_seconds)
        keeper.start()
        app.state.backends = Backends(
            engine,
            hub,
            stats_pb2_grpc.StatsStub(stats_channel),
            presence,
            matchmaker,
            presence_feed,
            keeper,
            limits,
            DeviceTokens(client, config.keys()),
            ActionAnswers(client, config.keys()),
            ai_pb2_grpc.AiStub(ai_channel),
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
            await engine.close()
            await ai_channel.close()
            await stats_channel.close()
            await client.aclose()
            await stalls.stop()

    app = FastAPI(title="Boxed In gateway", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.config = config
    app.state.drain = drain
    app.state.limits = limits  # the server's protocols count connections with its budgets
    app.include_router(ops.router)
    # /ops?token=... is refused, and its value blanked out of the access log.
    app.add_middleware(ops.TokenNotInUrl)
    app.add_middleware(KeepTransport)
    # Outermost: every part of the app, and uvicorn's access log, sees the real client.
    proxies = TrustedProxies.of(config.trusted_proxies, config.client_address_header)
    app.add_middleware(RealClientAddress, proxies=proxies)

    @app.websocket("/ws")
    async def play(ws: WebSocket) -> None:
        """A browser's connection, under the limits of docs/protocol.md, Limits."""
        # The real client (forwarded.py rewrote the scope's client for a trusted proxy's connection).
        address = client_address(ws.client)
        if drain.draining:
            # Answered before anything else, and not with a websocket: a proxy takes an HTTP 503
            # to a handshake as this replica's failure and tries another.
            count_refusal("draining")
            limits.log.log("draining", "websocket refused", reason="draining", client=address)
            await ws.send_denial_response(PlainTextResponse("this gateway is stopping: try another", 503))
            return
        origin = ws.headers.get("origin")
        if not limits.origins.allows(origin, ws.headers.get("host")):
            count_refusal("origin")
            limits.log.log("origin", "websocket refused", reason="origin", origin=origin, client=address)
            await ws.close()  # before accepting: the handshake is answered 403
            return
        # Counted against its address from its TCP accept (http_guard.py), unless it came through
        # a trusted proxy: then against the address the proxy names, from here.
        transport = ws.scope.get(TRANSPORT)
        peer = client_address(transport.get_extra_info("peername")) if transport is not None else ""
        counted_here = transport is None or peer in limits.addresses.proxies
        if counted_here and (refused := limits.addresses.connect(address)) is not None:
            count_refusal(refused)
            limits.log.log(refused, "websocket refused", reason=refused, client=address)
            await ws.accept()
            await ws.close(CLOSE_TRY_LATER, REFUSED_WEBSOCKET[refused])
            WEBSOCKET_CLOSES.labels(str(CLOSE_TRY_LATER)).inc()
            return
        try:
            await admission.enter()
            await ws.accept()
            WEBSOCKETS.inc()
            session = Session(ws, ws.app.state.backends)
            drain.join(session)
            try:
                await session.run()
            finally:
                drain.leave(session)
                WEBSOCKETS.dec()
        finally:
            if counted_here:
                limits.addresses.disconnect(address)

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
        """Readiness: not draining (drain.py), the update listener goes round, Redis answers (an outage no longer than
        redis_blip_seconds is a blip: "reconnecting", still ready), and an engine answers (its
        liveness: an engine replica that is not ready itself is out of the engines' Service, and
        must not take every gateway out of theirs)."""
        if drain.draining:
            return JSONResponse({"status": "draining"}, status_code=503)
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
                health_pb2_grpc.HealthStub(request.app.state.engine.any_channel()).Check  # type: ignore[attr-defined]
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
