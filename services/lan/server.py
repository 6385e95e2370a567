"""The local web server of a ``boxedin lan`` process: the built web client at /, the game
websocket at /ws (the gateway's frames) and the Same Wi-Fi websocket at /lan. It listens on
loopback by default: the browser talks to its own process only, never to the other player's."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from boxedin.gateway.webassets import web_client

from .player import LocalPlayer, Send

Handler = Callable[[str, Send], Awaitable[None]]

_NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>Boxed In</title>
<p>The web client has not been built: run <code>cd web &amp;&amp; npm run build</code>.</p>"""


LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})


def page_may_connect(origin: str | None, host: str | None, names: frozenset[str]) -> bool:
    """Only pages of this server (or no browser at all) may open its sockets: a page of another
    site must not play the player's game from their own browser, not even through a name of its
    own that it points at this machine (DNS rebinding): the Host must be one of ``names``."""
    if host is None or host.rsplit(":", 1)[0] not in names:
        return False
    return origin is None or origin.split("://", 1)[-1] == host


def create_app(
    player: LocalPlayer, web_dist: Path, allowed_origins: tuple[str, ...] = (), host_names: tuple[str, ...] = ()
) -> Starlette:
    names = LOOPBACK_NAMES | frozenset(host_names)

    async def serve(ws: WebSocket, handle: Handler, sockets: set[Send]) -> None:
        origin = ws.headers.get("origin")
        if not (page_may_connect(origin, ws.headers.get("host"), names) or origin in allowed_origins):
            await ws.close()
            return
        await ws.accept()

        async def send(frame: dict[str, Any]) -> None:
            await ws.send_text(json.dumps(frame, separators=(",", ":")))

        sockets.add(send)
        try:
            while True:
                text = await ws.receive_text()
                await handle(text, send)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            sockets.discard(send)

    async def game_socket(ws: WebSocket) -> None:
        await serve(ws, player.game_frame, player.games)

    async def lan_socket(ws: WebSocket) -> None:
        await serve(ws, player.lobby_frame, player.lobbies)

    async def healthz(_request: Any) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def same_wifi(_request: Any) -> JSONResponse:
        """The page asks where the Same Wi-Fi app is (as it asks a gateway): here."""
        return JSONResponse({"here": True, "url": None})

    async def not_built(_request: Any) -> HTMLResponse:
        return HTMLResponse(_NOT_BUILT)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await player.start()
        try:
            yield
        finally:
            await player.stop()

    routes: list[Any] = [
        WebSocketRoute("/ws", game_socket),
        WebSocketRoute("/lan", lan_socket),
        Route("/healthz", healthz),
        Route("/same-wifi", same_wifi),
    ]
    if (web_dist / "index.html").is_file():
        routes.append(Mount("/", web_client(web_dist)))
    else:
        routes.append(Route("/", not_built))
    return Starlette(routes=routes, lifespan=lifespan)
