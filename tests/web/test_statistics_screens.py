"""The statistics as a player finds them: a won game against Easy shows its leaderboard line and
an achievement in the result window; Statistics, Achievements and the Leaderboard show them
after a reload; Reset, after its confirmation, empties them. Screenshots of each screen, desktop
light and phone dark."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from webtools import DESKTOP, PHONE, play_to_end, wait_for_state
import pytest

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


def win_against_easy(page: Page) -> dict[str, Any]:
    """Plays Mini against Easy until a game is won (Easy rarely wins one)."""
    page.get_by_role("button", name="Play", exact=True).click()
    for _ in range(4):
        g = play_to_end(page)
        dialog = page.locator("dialog.result-dialog")
        expect(dialog).to_be_visible()
        if g["winner"] == 1:
            return g
        dialog.get_by_role("button", name="Play Again").click()
        wait_for_state(page, lambda s, old=g["game"]: s["game"] != old)
    raise AssertionError("four games against Easy and no win")


def open_from_menu(page: Page, item: str) -> None:
    page.get_by_role("button", name="More options").first.click()
    page.get_by_role("menuitem", name=item).click()


def screens(page: Page, shot: Any, label: str, game_id: str) -> None:
    """Visits Statistics (both tabs), Achievements and the Leaderboard, checking what the won
    game put there, with a screenshot of each."""
    open_from_menu(page, "Statistics")
    page.get_by_role("tab", name="Overview").click()  # the screen keeps the tab last shown
    expect(page.locator(".stat-group").first).to_be_visible()
    expect(page.locator(".stats-empty")).to_have_count(0)
    shot(page, f"{label}-statistics-overview")
    page.get_by_role("tab", name="Details").click()
    expect(page.locator(".wg-row[data-key='mini']").first).to_be_visible()
    shot(page, f"{label}-statistics-details")
    page.get_by_role("button", name="Back to menu").click()

    open_from_menu(page, "Achievements")
    expect(page.locator(".ach-card.unlocked[data-id='first_win']")).to_be_visible()
    expect(page.locator(".ach-card.unlocked[data-id='beat_easy']")).to_be_visible()
    expect(page.locator(".ach-card")).to_have_count(36)
    shot(page, f"{label}-achievements")
    page.get_by_role("button", name="Back to menu").click()

    open_from_menu(page, "Leaderboard")
    expect(page.get_by_role("tab", name="All games")).to_be_visible()
    expect(page.locator(f".lb-entry[data-game='{game_id}']")).to_be_visible()
    shot(page, f"{label}-leaderboard")
    page.get_by_role("button", name="Back to menu").click()


def test_a_won_game_reaches_the_statistics_and_reset_empties_them(open_page, shot):
    page = open_page(DESKTOP, "light", menu={"mode": "mini", "level": "easy"})
    g = win_against_easy(page)
    dialog = page.locator("dialog.result-dialog")
    mine, theirs = g["scores"]
    points = int(100 * mine / (mine + theirs) + 0.5)
    expect(dialog.locator(".result-leaderboard")).to_have_text(
        re.compile(rf"^{points} points: place \d+ on your Mini leaderboard\.$")
    )
    expect(dialog.locator(".result-achievements li").first).to_be_visible()
    expect(dialog.locator(".result-achievements")).to_contain_text("First Victory")
    shot(page, "result-window")
    dialog.get_by_role("button", name="Exit").click()
    expect(page.locator(".menu-screen")).to_be_visible()

    # After a reload everything comes from the server again.
    page.reload()
    page.wait_for_function("() => window.boxedin && window.boxedin.conn.isOpen", timeout=15000)
    screens(page, shot, "desktop-light", g["game"])
    page.set_viewport_size(PHONE)
    page.emulate_media(color_scheme="dark")
    screens(page, shot, "phone-dark", g["game"])

    open_from_menu(page, "Statistics")
    page.get_by_role("tab", name="Overview").click()
    page.get_by_role("button", name="More options").first.click()
    page.get_by_role("menuitem", name="Reset statistics").click()
    confirm = page.locator(".reset-dialog")
    expect(confirm).to_contain_text("This cannot be undone")
    shot(page, "reset-confirmation")
    confirm.get_by_role("button", name="Reset").click()
    expect(page.locator(".stats-empty")).to_be_visible()
    shot(page, "statistics-after-reset")
    page.get_by_role("button", name="Back to menu").click()
    open_from_menu(page, "Achievements")
    expect(page.locator(".ach-card.unlocked")).to_have_count(0)
    page.get_by_role("button", name="Back to menu").click()
    open_from_menu(page, "Leaderboard")
    expect(page.locator(".lb-empty")).to_be_visible()
    assert not page.errors
