"""A connection that dies without a word (docs/protocol.md, Reconnecting): the page notices an
action left unanswered, shows it as pending, connects again and sends it again with the same id,
and the server answers it instead of applying it twice. The banner stays below the top bar."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import WebSocketRoute, expect

from webtools import PHONE, wait_for_state
import pytest

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


def test_a_roll_whose_update_was_lost_is_sent_again_and_applied_once(browser: Any, web_url: str, shot: Any) -> None:
    ctx = browser.new_context(viewport=PHONE, color_scheme="light", device_scale_factor=1)
    settings, menu = json.dumps({"aiSpeed": "fast"}), json.dumps({"mode": "mini", "level": "easy"})
    ctx.add_init_script(
        f"localStorage.setItem('boxedin.settings', {json.dumps(settings)});"
        f"localStorage.setItem('boxedin.menu', {json.dumps(menu)});"
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # The first connection stops passing the server's frames on when told to, as a network that
    # lost them would; the page's own frames still reach the server.
    connections: list[WebSocketRoute] = []
    silenced: list[bool] = [False]

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        first = not connections
        connections.append(ws)
        server.on_message(lambda message: None if first and silenced[0] else ws.send(message))

    try:
        page.route_web_socket(re.compile(r"/ws$"), route)
        page.goto(web_url + "/")
        page.wait_for_function("() => window.boxedin && window.boxedin.conn.isOpen", timeout=15000)
        page.get_by_role("button", name="Play", exact=True).click()
        g = wait_for_state(page, lambda s: s["to_move"] == 1 and s["phase"] == "roll" and not s["ai_thinking"])
        seq = g["seq"]
        silenced[0] = True
        page.get_by_role("button", name="Roll Dice").click()
        banner = page.locator(".conn-banner")
        expect(banner).to_contain_text("Sending your move", timeout=5000)
        bar = page.locator(".topbar").bounding_box()
        shown = banner.bounding_box()
        assert bar is not None and shown is not None and shown["y"] >= bar["y"] + bar["height"] - 1, (bar, shown)
        shot(page, "pending")
        # No answer in 5 s: the page connects again, its hello brings the roll's update, and the
        # roll sent again is answered with the seq it made, not applied a second time.
        g = wait_for_state(page, lambda s: s["seq"] > seq, timeout=20)
        assert len(connections) == 2
        assert g["seq"] == seq + 1 and g["phase"] == "draw"
        page.wait_for_function("() => window.boxedin.conn.unansweredCount === 0", timeout=10000)
        expect(banner).to_be_hidden()
        assert page.evaluate("() => window.boxedin.conn.game.seq") == seq + 1
        assert not errors
    finally:
        ctx.close()
