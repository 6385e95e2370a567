"""The operator's page /ops: the live presence and games figures behind a token, shown while
`boxedin load` plays games; refused without the token; and a gateway in production mode that
has no token refuses to start."""

from __future__ import annotations

import asyncio
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from boxedin.supervisor.launcher import Stack
from boxedin.tools.load.loadtest import run_load

from stacks import make_stack
from webtools import DESKTOP
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

TOKEN = "ops-token-for-the-tests-0123456789"


@pytest.fixture(scope="module")
def ops_stack() -> Iterator[Stack]:
    stack = make_stack("ops", worker=False, extra_env={"BOXEDIN_OPS_TOKEN": TOKEN})
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
    assert status_of(base + "/ops?token=wrong") == 401
    assert status_of(base + "/ops/figures", {"Authorization": "Bearer wrong"}) == 401
    assert status_of(base + f"/ops?token={TOKEN}") == 200
    assert status_of(base + "/ops/figures", {"Authorization": f"Bearer {TOKEN}"}) == 200


def test_the_ops_page_shows_players_and_games_during_load(ops_stack: Stack, browser, shot) -> None:
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
        ctx = browser.new_context(viewport=DESKTOP)
        page = ctx.new_page()
        page.goto(ops_stack.url() + f"/ops?token={TOKEN}")
        expect(page.locator("#players")).not_to_have_text("–")
        page.wait_for_function("() => Number(document.getElementById('players').textContent) >= 2", timeout=15000)
        # The engine works the games-now figures out every 5 s and the page reads them every
        # 2 s, so the two strategic games can take up to 7 s (more under load) to show.
        expect(page.locator("#now")).to_contain_text("strategic", timeout=15000)
        page.wait_for_function("() => document.querySelectorAll('#flow tbody tr').length >= 2", timeout=15000)
        expect(page.locator("#updated")).to_contain_text("Updated")
        shot(page, "during-load")
        ctx.close()
    finally:
        load.join(120)
        for player in players:
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
