"""Browser tests of the web client: Debian's chromium, headless, driven by Playwright against the
running services (the session fixture ``live_gateway`` of tests/conftest.py)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from webtools import DESKTOP

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist" / "index.html"
OUTPUT = Path(os.environ.get("BOXEDIN_TEST_OUTPUT", ROOT / "test-output")) / "web"
CHROMIUM = os.environ.get("BOXEDIN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def web_url(live_gateway: str) -> str:
    if not DIST.exists():
        pytest.fail("the web client is not built: run `cd web && npm ci && npm run build`")
    return live_gateway.rstrip("/")


# A module's own: Playwright's sync API holds an event loop in this thread while it runs, and a
# test after it that calls asyncio.run (any file, as two test processes deal them out) would find
# that loop running. Chromium starts in about a second, once a file.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: apt-get install -y chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def open_page(browser: Any, web_url: str) -> Iterator[Callable[..., Any]]:
    """Opens the client in a fresh browser profile: ``open_page(size, theme, settings=..., menu=...)``.

    ``settings`` and ``menu`` are written to localStorage before the page's scripts run, only on
    the first load (a reload keeps what the page stored)."""
    contexts: list[Any] = []

    def make(size: dict[str, int] = DESKTOP, theme: str = "light", *, settings: dict[str, Any] | None = None,
             menu: dict[str, Any] | None = None, touch: bool = False) -> Any:  # fmt: skip
        ctx = browser.new_context(viewport=size, color_scheme=theme, has_touch=touch, is_mobile=touch,
                                  device_scale_factor=1)  # fmt: skip
        contexts.append(ctx)
        seed: dict[str, Any] = {"aiSpeed": "fast"} | (settings or {})
        script = (
            "if (!sessionStorage.getItem('boxedin.test.seeded')) {"
            f"  localStorage.setItem('boxedin.settings', {repr_js(seed)});"
            + (f"  localStorage.setItem('boxedin.menu', {repr_js(menu)});" if menu else "")
            + "  sessionStorage.setItem('boxedin.test.seeded', '1');"
            "}"
        )
        ctx.add_init_script(script)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors  # type: ignore[attr-defined]
        # Every error frame the server sends, with what the page sent just before it.
        sent: list[str] = []

        def watch(ws: Any) -> None:
            ws.on("framesent", lambda payload: sent.append(str(payload)[:200]))
            ws.on("framereceived", lambda payload: errors.append(f"server error {payload} after {sent[-3:]}")
                  if '"type":"error"' in str(payload) else None)  # fmt: skip

        page.on("websocket", watch)
        page.goto(web_url + "/")
        page.wait_for_function("() => window.boxedin && window.boxedin.conn.isOpen", timeout=15000)
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def repr_js(value: Any) -> str:
    import json

    return json.dumps(json.dumps(value))


@pytest.fixture
def shot(request: pytest.FixtureRequest) -> Callable[[Any, str], Path]:
    """Saves a screenshot of the page under test-output/web/."""
    OUTPUT.mkdir(parents=True, exist_ok=True)

    def save(page: Any, label: str = "final") -> Path:
        page.wait_for_timeout(1500)  # let captures grow and scores float away
        path = OUTPUT / f"{request.node.name}-{label}.png"
        page.screenshot(path=str(path))
        return path

    return save
