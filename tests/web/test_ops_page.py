"""The operator's page /ops: the live presence and games figures behind a token, shown while
`boxedin load` plays games to an operator who signed in through the form; a wrong token refused
in the form; the token never taken in the URL (nor written to the gateway's log); and a gateway
in production mode that has no token refuses to start. The HTTP details (cookie flags, forged
cookies, the header, the limit on wrong tokens) are in tests/gateway/test_ops_auth.py."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from boxedin.supervisor.launcher import Stack
from boxedin.tools.load.loadtest import run_load

from stacks import OUTPUT, ROOMY_BUDGETS, make_stack
from webtools import DESKTOP, PHONE
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

TOKEN = "ops-token-for-the-tests-0123456789"
LOGS = OUTPUT / "logs"


@pytest.fixture(scope="module")
def ops_stack() -> Iterator[Stack]:
    # Roomy budgets: `boxedin load` plays its games from loopback, one connection each, and the
    # new connections it opens would leave the page's own requests refused 429 (the address's).
    stack = make_stack("ops", worker=False, extra_env={"BOXEDIN_OPS_TOKEN": TOKEN, **ROOMY_BUDGETS})
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()


def status_of(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_the_ops_page_is_refused_without_its_token(ops_stack: Stack) -> None:
    base = ops_stack.url()
    assert status_of(base + "/ops") == 401
    assert status_of(base + "/ops/figures", {"Authorization": "Bearer wrong"}) == 401
    assert status_of(base + "/ops/figures", {"Authorization": f"Bearer {TOKEN}"}) == 200
    assert status_of(base + "/ops", {"Authorization": f"Bearer {TOKEN}"}) == 200
    # Never in the URL, not even the right one: refused, and kept out of the gateway's log.
    assert status_of(base + "/ops?token=wrong") == 400
    assert status_of(base + f"/ops?token={TOKEN}") == 400
    assert status_of(base + f"/ops/figures?token={TOKEN}") == 400
    log = (LOGS / "ops" / "gateway.log").read_text()
    assert "/ops?token=[removed]" in log  # the access log has the line, without the value
    assert TOKEN not in log


def open_ops(browser: Any, base: str, size: dict[str, int]) -> Any:
    ctx = browser.new_context(viewport=size, device_scale_factor=1)
    page = ctx.new_page()
    page.goto(base + "/ops")
    return page


def sign_in(page: Any, token: str) -> None:
    page.get_by_label("Ops token").fill(token)
    page.get_by_role("button", name="Sign in").click()


def test_a_wrong_token_in_the_form_is_refused(ops_stack: Stack, browser: Any, shot: Any) -> None:
    for size, label in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = open_ops(browser, ops_stack.url(), size)
        expect(page.get_by_label("Ops token")).to_be_visible()
        assert page.get_by_label("Ops token").get_attribute("type") == "password"
        shot(page, f"form-{label}")
        with page.expect_response(lambda r: r.url.endswith("/ops/login")) as answer:
            sign_in(page, "not-the-token")
        assert answer.value.status == 401
        expect(page.get_by_role("alert")).to_contain_text("not the ops token")
        expect(page.get_by_label("Ops token")).to_be_visible()
        assert page.context.cookies() == []
        assert "token" not in page.url
        shot(page, f"refused-{label}")
        page.context.close()


def test_the_ops_page_shows_players_and_games_during_load(ops_stack: Stack, browser: Any, shot: Any) -> None:
    # Two players stay connected with a game each, while the load plays games alongside.
    players = [Browser(ops_stack.url()) for _ in range(2)]
    load = threading.Thread(
        target=lambda: asyncio.run(run_load(ops_stack.url().replace("http", "ws") + "/ws", 24, 12, "classic"))
    )
    try:
        for player in players:
            player.hello()
            player.new_game(mode="strategic", opponent="local")
        load.start()
        page = open_ops(browser, ops_stack.url(), DESKTOP)
        sign_in(page, TOKEN)
        page.wait_for_url("**/ops")
        assert "token" not in page.url
        (cookie,) = page.context.cookies()
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/ops"
        assert TOKEN not in cookie["value"]
        expect(page.locator("#players")).not_to_have_text("–")
        page.wait_for_function("() => Number(document.getElementById('players').textContent) >= 2", timeout=15000)
        # The page reads the figures every 2 s; the engine works "Games now" out for each read.
        # The modes are named as the rule book names them, never by their ids.
        expect(page.locator("#now")).to_contain_text("Strategic", timeout=15000)
        page.wait_for_function("() => document.querySelectorAll('#flow tbody tr').length >= 2", timeout=15000)
        expect(page.locator("#flow")).to_contain_text("Classic", timeout=15000)
        for shown in (page.locator("#now"), page.locator("#flow")):
            assert "strategic" not in shown.inner_text() and "classic" not in shown.inner_text()
        expect(page.locator("#updated")).to_contain_text("Updated")
        shot(page, "during-load")
        page.set_viewport_size(PHONE)
        shot(page, "during-load-phone")
        # Signing out brings the form back, and the figures are refused again.
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_label("Ops token")).to_be_visible()
        assert page.context.cookies() == []
        assert page.request.get(ops_stack.url() + "/ops/figures").status == 401
        page.context.close()
    finally:
        load.join(120)
        for player in players:
            player.close()


def ops_figures(stack: Stack) -> dict[str, Any]:
    request = urllib.request.Request(stack.url() + "/ops/figures", headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=5) as reply:
        return dict(json.loads(reply.read()))


def test_a_game_that_ends_leaves_games_now_at_once_and_the_modes_have_their_names(ops_stack: Stack) -> None:
    """Issue 30: "Games now" once showed a Quick game for 4 s after it ended."""
    player = Browser(ops_stack.url())
    try:
        player.hello()
        player.new_game(mode="quick", opponent="local")
        deadline = time.monotonic() + 10
        # Counted once the gateway's presence report names it (it goes at once on a change).
        while ops_figures(ops_stack)["games_now"].get("quick") != 1:
            assert time.monotonic() < deadline, ops_figures(ops_stack)
            time.sleep(0.05)
        names = ops_figures(ops_stack)["mode_names"]
        assert names["quick"] == "Quick" and names["chain_reaction"] == "Chain Reaction"
        player.act(type="resign")
        assert player.state is not None and player.state["over"]
        # The first read after the game ended: it is no longer played, though its page still
        # follows it (the result window).
        assert "quick" not in ops_figures(ops_stack)["games_now"]
    finally:
        player.close()


def test_a_production_gateway_without_an_ops_token_refuses_to_start() -> None:
    stack = make_stack("ops-production", worker=False, extra_env={"BOXEDIN_PRODUCTION": "true"})
    try:
        with pytest.raises(RuntimeError) as stopped:
            stack.start()
    finally:
        stack.stop()
    assert "gateway stopped while starting" in str(stopped.value)
    assert "needs BOXEDIN_OPS_TOKEN" in str(stopped.value)
