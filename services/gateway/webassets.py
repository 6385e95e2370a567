"""The built web client (web/dist) as the gateway serves it at /.

Vite names the built scripts and styles after a hash of their content (assets/index-3fa9c1.js),
so a browser may keep them for a year without asking again; index.html, which names the
current ones, is checked every time. Text is sent gzip'd to browsers that take it.
"""

from __future__ import annotations

from pathlib import Path

from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Scope

# Built files whose names carry a content hash (vite's build.assetsDir).
HASHED_DIR = "assets/"
HASHED_CACHE = "public, max-age=31536000, immutable"
# Everything else (index.html, favicon.svg) keeps its name across builds: revalidate each time.
UNHASHED_CACHE = "no-cache"
# Below this size gzip saves less than its own header costs.
GZIP_MIN_BYTES = 512


class WebClient(StaticFiles):
    """Static files with cache lifetimes by kind: long for hashed names, none for the rest."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            hashed = path.replace("\\", "/").startswith(HASHED_DIR)
            response.headers["Cache-Control"] = HASHED_CACHE if hashed else UNHASHED_CACHE
        return response


def web_client(dist: Path) -> ASGIApp:
    """The ASGI app serving the built client from ``dist``."""
    return GZipMiddleware(WebClient(directory=dist, html=True), minimum_size=GZIP_MIN_BYTES)
