"""Watching an online game in the web client (docs/protocol.md, Watching): two players and two
watchers, one watcher on a phone. The watchers open the link a player shared and see a move
live, the players see how many watch, and at the end the watchers see the result and open the
game's review. Screenshots of the watch screen and the watcher's review on phone and desktop,
light and dark, go under test-output/web/; axe checks them."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from test_online_play import accessible, device, no_errors, play_step, room_game, seat_of

from webtools import DESKTOP, PHONE, axe_violations, game_state, wait_for_state

pytestmark = pytest.mark.stack
__all__ = ["device"]  # the players' devices: a fixture of the online tests


@pytest.fixture
def watcher(browser: Any) -> Iterator[Callable[..., Page]]:
    """Opens a watch link on a device of its own: ``watcher(link, size=..., theme=...)``."""
    contexts: list[Any] = []

    def make(link: str, size: dict[str, int] = DESKTOP, theme: str = "light", touch: bool = False) -> Page:
        ctx = browser.new_context(viewport=size, color_scheme=theme, has_touch=touch, is_mobile=touch,
                                  device_scale_factor=1)  # fmt: skip
        contexts.append(ctx)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors  # type: ignore[attr-defined]
        page.goto(link)
        expect(page.locator(".watch-screen")).to_be_visible(timeout=15000)
        wait_for_state(page, lambda s: s["opponent"] == "online")
        return page

    yield make
    for ctx in contexts:
        with contextlib.suppress(Exception):
            ctx.close()


def test_two_watchers_follow_a_game_live_and_see_its_result(device, watcher, web_url, shot):
    ada, bo, game = room_game(device, web_url)
    ada.get_by_role("button", name="Share watch link").click()
    link = ada.locator(".watch-link a")
    expect(link).to_be_visible()
    href = link.get_attribute("href")
    assert href is not None and "/watch/" in href and game not in href
    cat = watcher(href, DESKTOP, "dark")
    dan = watcher(href, PHONE, "light", touch=True)
    for page in (cat, dan):
        assert game_state(page)["game"] == game  # type: ignore[index]
        expect(page.locator(".watch-screen .score-name").first).to_have_text("Ada")
    # The players see how many watch.
    for player in (ada, bo):
        expect(player.locator(".watchers-line")).to_have_text("2 watching")
    # A turn's first edge (after its roll), seen live by both watchers, at the players' seq.
    pages = {seat_of(ada): ada, seat_of(bo): bo}
    g = game_state(ada)
    assert g is not None
    mover = pages[g["to_move"]]
    moved = wait_for_state(mover, lambda s: s["seq"] >= g["seq"])
    while len(moved["edges"]) == len(g["edges"]):
        moved = play_step(mover, moved)
    for page in (cat, dan):
        seen = wait_for_state(page, lambda s: s["seq"] >= moved["seq"])
        assert seen["seq"] == moved["seq"] and seen["edges"] == moved["edges"]
    # Nothing on the watch screen acts: its board is shown disabled, and there is no button to act.
    assert dan.evaluate("() => document.querySelector('.watch-screen .board-wrap > *').classList.contains('disabled')")
    expect(dan.get_by_role("button", name="Roll Dice")).to_have_count(0)
    shot(cat, "watcher-desktop-dark")
    shot(dan, "watcher-phone-light")
    shot(ada, "player-desktop-light-count")
    accessible(dan, "the watch screen")
    # The mover ends the turn (the review has a turn to show), then Ada leaves: Bo wins, and the
    # watchers see the result.
    for _ in range(30):
        if moved["over"] or moved["to_move"] != g["to_move"]:
            break
        moved = play_step(mover, moved)
    for page in (cat, dan):
        wait_for_state(page, lambda s: s["seq"] >= moved["seq"])
    ada.get_by_role("button", name="Leave the game").click()
    ada.get_by_role("button", name="Leave game").click()
    for page in (cat, dan):
        wait_for_state(page, lambda s: s["over"])
        result = page.locator(".watch-result")
        expect(result).to_be_visible()
        expect(result.locator(".watch-result-title")).to_have_text("Bo wins")
        expect(page.locator(".watch-screen .status")).to_have_text("Game over — Bo wins. Ada left the game.")
        expect(result.get_by_role("button", name="Back to the menu")).to_be_visible()
    cat.emulate_media(color_scheme="light")
    dan.emulate_media(color_scheme="dark")
    shot(cat, "watcher-desktop-light-result")
    shot(dan, "watcher-phone-dark-result")
    accessible(cat, "the watch screen's result")
    # The watchers open the game's review: the players' review screen, every turn analysed.
    for page, name in ((cat, "watcher-review-desktop-light"), (dan, "watcher-review-phone-dark")):
        page.locator(".watch-result").get_by_role("button", name="Review", exact=True).click()
        review = page.locator("dialog.review-dialog")
        expect(review).to_be_visible()
        expect(review.locator(".review-progress")).to_contain_text(re.compile(r"turns? analysed\.$"), timeout=60000)
        total = int(review.locator(".review-slider").get_attribute("max") or 0)
        assert total >= 1
        # axe at every turn: a turn that lost points is shown otherwise than one that did not.
        page.mouse.move(0, 0)
        for step in range(1, total + 1):
            review.get_by_role("button", name="Next turn").click()
            expect(review.locator(".review-step-label")).to_have_text(f"Turn {step} of {total}")
            found = axe_violations(page, "dialog.review-dialog")
            assert not found, f"the watcher's review at turn {step}: {found}"
        expect(review.locator(".review-scores")).to_contain_text("Ada")
        shot(page, name)
        review.get_by_role("button", name="Close").click()
        expect(review).to_have_count(0)
        expect(page.locator(".watch-result").get_by_role("button", name="Review", exact=True)).to_be_focused()
    no_errors(ada, bo, expected=frozenset({"stale"}))
    assert not cat.errors and not dan.errors  # type: ignore[attr-defined]
