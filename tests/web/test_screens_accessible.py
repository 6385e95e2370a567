"""Every screen as a player meets it (issue 15): the menu, a game, settings, help and practice at
phone and desktop size, light and dark, each screenshotted and checked with axe-core (no serious
or critical findings); the mode grid holds still, the AI's name fits, the clock is drawn, and
Help's bar stays on top after a jump from its contents."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from webtools import DESKTOP, PHONE, axe_violations, human_to_move, wait_for_state

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

SERIOUS = ("(serious)", "(critical)")
FOCUS_RING = "() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]; }"
OUTPUT = Path(os.environ.get("BOXEDIN_TEST_OUTPUT", Path(__file__).resolve().parents[2] / "test-output")) / "web"
# Where each mode card sits on the page (scrolling aside).
CARD_PLACES = """() => [...document.querySelectorAll('.mode-card')].map((el) => {
  const r = el.getBoundingClientRect();
  return [r.left + scrollX, r.top + scrollY, r.width, r.height];
})"""


def serious(page: Any) -> list[str]:
    return [v for v in axe_violations(page) if v.endswith(SERIOUS) or any(s in v for s in SERIOUS)]


def not_cut(page: Any, selector: str) -> bool:
    return bool(
        page.locator(selector).evaluate(
            "(el) => el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1"
        )
    )


def more(page: Any, item: str) -> None:
    page.get_by_role("button", name="More options").click()
    page.get_by_role("menuitem", name=item).click()


@pytest.mark.parametrize(("size", "theme"), [(DESKTOP, "light"), (PHONE, "dark")])
def test_every_screen_reads_and_passes_axe(open_page, shot, request, size, theme):
    """axe-core runs in the first theme; every screen is also shot in the other theme."""
    page = open_page(size, theme, menu={"mode": "classic", "level": "normal", "clock": 30})
    found: dict[str, list[str]] = {}

    def check(screen: str) -> None:
        page.mouse.move(0, 0)
        if not screen.startswith("help"):
            page.evaluate("() => window.scrollTo(0, 0)")
        if "game" in screen:
            shot(page, screen)  # (waits for the board's animations)
        else:
            OUTPUT.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(OUTPUT / f"{request.node.name}-{screen}.png"))
        found[screen] = serious(page)
        other = "dark" if theme == "light" else "light"
        page.emulate_media(color_scheme=other)
        page.screenshot(path=str(OUTPUT / f"{request.node.name}-{screen}-{other}.png"))
        page.emulate_media(color_scheme=theme)

    # The menu; on a desktop picking another game moves no card.
    expect(page.locator(".mode-card")).to_have_count(9)
    if size == DESKTOP:
        before = page.evaluate(CARD_PLACES)
        page.locator('.mode-card[data-mode="expert"]').click()
        expect(page.locator('.mode-card[data-mode="expert"]')).to_have_attribute("aria-checked", "true")
        after = page.evaluate(CARD_PLACES)
        assert after == before
        page.locator('.mode-card[data-mode="classic"]').click()
    check("menu")
    # Focus moved by the keyboard is drawn.
    page.keyboard.press("Tab")
    ring = page.evaluate(FOCUS_RING)
    assert ring[0] != "none" and float(ring[1].rstrip("px")) >= 2, ring

    # A game against the AI (Normal) with a move clock.
    page.get_by_role("button", name="Play", exact=True).click()
    wait_for_state(page, lambda s: human_to_move(s) and not s["ai_thinking"])
    expect(page.locator(".score-card.p2 .score-name")).to_have_text("AI (Normal)")
    assert not_cut(page, ".score-card.p2 .score-name"), "the AI's name is cut"
    assert not_cut(page, ".game-title")
    clock = page.locator(".clock")
    expect(clock).to_be_visible()
    expect(clock.locator("svg.clock-icon")).to_be_visible()
    assert "⏱" not in (clock.text_content() or "")
    expect(page.locator(".status")).to_have_attribute("aria-live", "polite")
    check("game")
    page.get_by_role("button", name="Back to menu (the game is saved)").click()
    # The menu is drawn again once the server's summary of the saved game comes, closing a
    # menu of more options opened before it (seen in CI): the Continue card says it came.
    expect(page.get_by_text("Continue game")).to_be_visible()

    more(page, "Settings")
    expect(page.get_by_role("checkbox", name="Where the dots are close together")).to_be_checked()
    check("settings")
    page.get_by_role("button", name="Back to menu").click()

    # Help: a jump from the contents keeps the bar on top.
    more(page, "Help & Rules")
    page.get_by_role("link", name="Strategy").click()
    expect(page.locator("#help-strategy")).to_be_in_viewport()
    bar = page.locator(".help-screen .topbar")
    page.wait_for_function("() => window.scrollY > 0")
    assert bar.bounding_box()["y"] == 0
    expect(page.locator(".rule-example")).to_have_count(13)
    check("help")
    page.get_by_role("link", name="Overlap").click()
    page.locator("#help-overlap-majority").scroll_into_view_if_needed()
    check("help-overlap")
    page.get_by_role("button", name="Back to menu").click()

    more(page, "Practice")
    expect(page.locator(".practice-setup")).to_be_visible()
    check("practice-setup")
    page.get_by_role("button", name="Start match").click()
    wait_for_state(page, lambda s: s["opponent"] == "practice")
    check("practice-game")

    assert found == {k: [] for k in found}, found
    assert not page.errors
