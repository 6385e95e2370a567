"""Same Wi-Fi in two browsers, each on its own `boxedin lan` (as on two phones): the host hosts a
Mini game, the other sees it in the list and joins, both screens show the same six-digit code,
the host lets them in, and they play it to the end with the online game screen; a rematch
starts, and when the host quits in the middle of it the joiner's screen says the game is over."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from lanplay import LanProcess, free_port, lan_processes
from webtools import DESKTOP, PHONE, axe_violations, best_edge, click_edge, game_state, wait_for_state

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

CHROMIUM = "/usr/bin/chromium"
OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "lan"


def shot(page: Page, label: str) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{label}.png"))


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: apt-get install -y chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True)
        yield browser
        browser.close()


@contextlib.contextmanager
def device(chromium: Any, url: str, name: str | None, size: dict[str, int], theme: str = "light") -> Iterator[Page]:
    """A browser on a device of its own; ``name`` is the online name it already knows (None: the
    page learns one itself)."""
    ctx = chromium.new_context(viewport=size, color_scheme=theme, device_scale_factor=1)
    if name is not None:
        seed = f"localStorage.setItem('boxedin.online.name', {json.dumps(name)});"
        ctx.add_init_script(f"if (!localStorage.getItem('boxedin.online.name')) {{ {seed} }}")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url if "#" in url else url + "/")
    page.wait_for_function("() => window.boxedin && window.boxedin.conn.isOpen", timeout=15000)
    try:
        yield page
    finally:
        ctx.close()


def same_wifi(page: Page) -> None:
    """The Same Wi-Fi app's menu → Same Wi-Fi."""
    page.locator(".lan-menu").get_by_role("button", name="Same Wi-Fi").click()
    expect(page.locator(".lan-screen")).to_be_visible()


def play_to_end(pages: dict[int, Page], *, stop_after: int | None = None) -> dict[str, Any]:
    """Each move on the page of the player to move, by a click on the board or Roll Dice."""
    g = game_state(pages[1])
    assert g is not None
    steps = 0
    while not g["over"] and (stop_after is None or steps < stop_after):
        mover = pages[g["to_move"]]
        g = wait_for_state(mover, lambda s, seq=g["seq"]: s["seq"] >= seq)
        if g["phase"] == "roll":
            mover.get_by_role("button", name="Roll Dice").click()
        else:
            click_edge(mover, best_edge(g, g["to_move"]))
        g = wait_for_state(mover, lambda s, seq=g["seq"]: s["seq"] > seq)
        for page in pages.values():
            wait_for_state(page, lambda s, seq=g["seq"]: s["seq"] >= seq)
        steps += 1
    return g


def test_host_join_compare_codes_play_and_the_host_quits(chromium: Any, tmp_path: Path) -> None:
    host_process = LanProcess(tmp_path / "host.log", port=free_port(), discovery=True)
    joiner_process = LanProcess(tmp_path / "joiner.log", port=free_port(), discovery=True)
    with (
        lan_processes(host_process, joiner_process),
        device(chromium, f"http://127.0.0.1:{host_process.port}", "Ann", DESKTOP) as ann,
        # Bob's page opens as the Same Wi-Fi tab of a game server opens it: its link carries the
        # name Bob chose there, which this other origin cannot read.
        device(chromium, f"http://127.0.0.1:{joiner_process.port}/#same-wifi?name=Bob", None, PHONE, "dark") as bob,
    ):
        # The Same Wi-Fi app's menu shows only what works with no game server (issue 30, point 5):
        # Same Wi-Fi, and local games, which its process plays.
        for gone in ("vs AI", "Local", "Online"):
            expect(ann.get_by_role("radio", name=gone)).to_have_count(0)
        for gone in ("Play", "Find Match", "Practice", "No clock"):
            expect(ann.get_by_role("button", name=gone, exact=True)).to_have_count(0)
        ann.locator('.lan-menu .mode-card[data-mode="mini"]').click()
        ann.get_by_role("button", name="Start", exact=True).click()
        expect(ann.locator(".game-screen")).to_be_visible()
        local = wait_for_state(ann, lambda s: s["opponent"] == "local" and s["mode"] == "mini")
        ann.get_by_role("button", name="Roll Dice").click()
        wait_for_state(ann, lambda s: s["game"] == local["game"] and s["seq"] == 1 and s["roll"] is not None)
        shot(ann, "lan-local-game")
        ann.get_by_role("button", name="Back to menu (the game ends)").click()
        expect(ann.locator(".lan-menu")).to_be_visible()
        ann.get_by_role("button", name="More options").click()
        expect(ann.get_by_role("menuitem")).to_have_text(["Settings", "Help & Rules"])
        ann.keyboard.press("Escape")
        ann.mouse.move(0, 0)
        assert not axe_violations(ann), axe_violations(ann)
        shot(ann, "lan-menu")
        same_wifi(ann)
        ann.get_by_role("button", name="Back to menu").click()  # the Same Wi-Fi screen's back arrow
        expect(ann.locator(".lan-menu")).to_be_visible()
        same_wifi(ann)
        assert bob.evaluate("() => [window.boxedin.onlineName, location.hash]") == ["Bob", ""]
        ann.get_by_role("button", name="Host a Game").click()
        ann.locator('.mode-card[data-mode="mini"]').click()
        ann.locator(".lan-host-btn").click()
        expect(ann.get_by_text("Waiting for another player to join…")).to_be_visible()

        expect(bob.locator(".lan-screen")).to_be_visible()
        expect(bob.locator('.lan-game[data-name="Ann"]')).to_contain_text("Mini")
        shot(ann, "host-waiting")
        shot(bob, "joiner-list")
        for page, what in ((ann, "the waiting screen"), (bob, "the list of games")):
            page.mouse.move(0, 0)
            assert not axe_violations(page), f"{what}: {axe_violations(page)}"
        bob.locator('.lan-game[data-name="Ann"]').get_by_role("button", name="Join").click()
        codes = [page.locator(".lan-code") for page in (ann, bob)]
        for code in codes:
            expect(code).to_have_attribute("data-code", re.compile(r"^\d{6}$"))
        assert codes[0].get_attribute("data-code") == codes[1].get_attribute("data-code")
        expect(ann.get_by_text("Bob wants to join.", exact=False)).to_be_visible()
        expect(bob.get_by_text("Waiting for Ann to let you in…")).to_be_visible()
        shot(ann, "host-code")
        shot(bob, "joiner-code")
        for page, what in ((ann, "the host's code"), (bob, "the joiner's code")):
            page.mouse.move(0, 0)
            assert not axe_violations(page), f"{what}: {axe_violations(page)}"
        ann.get_by_role("button", name="Let In").click()

        for page in (ann, bob):
            expect(page.locator(".game-screen.is-online")).to_be_visible(timeout=15000)
        first = wait_for_state(bob, lambda s: s["opponent"] == "online")
        assert [p["name"] for p in first["players"]] == ["Ann", "Bob"]
        final = play_to_end({1: ann, 2: bob})
        assert final["over"]
        for page in (ann, bob):
            expect(page.locator("dialog.result-dialog")).to_be_visible()

        # A rematch, and the host closes the app in the middle of it.
        ann.locator("dialog.result-dialog").get_by_role("button", name="Rematch").click()
        bob.locator("dialog.result-dialog").get_by_role("button", name="Accept rematch").click()
        second = wait_for_state(bob, lambda s: s["game"] != final["game"] and not s["over"])
        wait_for_state(ann, lambda s: s["game"] == second["game"])
        play_to_end({1: ann, 2: bob}, stop_after=3)
        host_process.kill()
        expect(bob.locator(".lan-screen .lan-notice")).to_have_text("Ann closed the game: the game is over.")
        shot(bob, "joiner-host-quit")
        assert not bob.errors and not ann.errors  # type: ignore[attr-defined]
