"""What new players found on screen (issue 30, points 5 to 9), each seen in the browser: Same
Wi-Fi is a tab of Play with Friends that says what it needs, a long toast wraps inside the phone's
width, Create Room stays in view on a desktop, and the previous turn pulses in orange. (The
running online game on the menu is in test_online_play.py, where a page is closed and reopened;
the Same Wi-Fi app's own menu is in tests/lan/test_lan_browsers.py.) Each screen is saved under
test-output/web/."""

from __future__ import annotations

import colorsys
import os
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from webtools import DESKTOP, PHONE, axe_violations, human_to_move, play_human_turn, wait_for_state

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

OUTPUT = Path(os.environ.get("BOXEDIN_TEST_OUTPUT", Path(__file__).resolve().parents[2] / "test-output")) / "web"
SIZES = {"phone": PHONE, "desktop": DESKTOP}


def save(page: Any, label: str) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"found-{label}.png"))


def online(page: Any) -> None:
    page.get_by_role("radio", name="Online").click()
    expect(page.locator(".online-screen")).to_be_visible()


def test_same_wifi_is_a_tab_of_play_with_friends_that_says_what_it_needs(open_page):
    size, theme = "phone", "light"
    page = open_page(SIZES[size], theme)
    page.evaluate("() => window.boxedin.setOnlineName('Ann')")
    online(page)
    friends = page.get_by_role("tablist", name="Play with Friends")
    expect(friends.get_by_role("tab")).to_have_text(["Room", "Same Wi-Fi"])
    expect(page.get_by_role("button", name="Create Room")).to_be_visible()  # the Room tab comes first
    friends.get_by_role("tab", name="Same Wi-Fi").click()
    panel = page.get_by_role("tabpanel", name="Same Wi-Fi")
    expect(panel).to_contain_text("it needs the Same Wi-Fi app on each player's own machine")
    expect(panel.locator("code")).to_have_text("boxedin lan")
    # This game server names no Same Wi-Fi app (a cluster's does not): no link to follow, and
    # nothing that pretends to host a game from here.
    expect(panel.get_by_role("link")).to_have_count(0)
    expect(panel.get_by_role("button")).to_have_count(0)
    page.mouse.move(0, 0)
    assert not axe_violations(page), axe_violations(page)
    save(page, f"same-wifi-tab-{size}-{theme}")
    # The arrow keys move between the tabs, as in every tab list.
    friends.get_by_role("tab", name="Same Wi-Fi").press("ArrowLeft")
    expect(friends.get_by_role("tab", name="Room")).to_be_focused()
    expect(page.get_by_role("button", name="Create Room")).to_be_visible()
    assert not page.errors


def test_a_long_toast_wraps_as_a_rounded_rectangle_inside_the_phone_screen(open_page):
    theme = "dark"  # (a light toast on a dark screen)
    page = open_page(PHONE, theme)
    # A real refusal of the server, shown as a toast: a seed of spaces says nothing.
    page.evaluate("() => window.boxedin.conn.send({ type: 'new_game', mode: 'classic', opponent: 'ai', seed: '   ' })")
    toast = page.locator("#toast.show")
    expect(toast).to_contain_text("a seed is 1 to 96 characters")
    page.wait_for_function("() => getComputedStyle(document.getElementById('toast')).transform.endsWith(', 0)')")
    box = toast.bounding_box()
    assert box is not None
    line = float(toast.evaluate("(el) => parseFloat(getComputedStyle(el).lineHeight)"))
    radius = float(toast.evaluate("(el) => parseFloat(getComputedStyle(el).borderTopLeftRadius)"))
    assert box["x"] >= 8 and box["x"] + box["width"] <= PHONE["width"] - 8, box  # inside the screen
    assert box["height"] >= 2 * line, box  # it wraps...
    assert box["width"] >= PHONE["width"] - 40, box  # ...over the screen's width, not into a column
    assert radius <= 16 < box["height"] / 2, radius  # a rounded rectangle, not a circle
    save(page, f"long-toast-phone-{theme}")
    assert all('"code":"bad_seed"' in error for error in page.errors), page.errors  # that refusal alone


def test_create_room_stays_in_view_on_a_desktop(open_page):
    theme = "light"
    page = open_page(DESKTOP, theme)
    page.evaluate("() => window.boxedin.setOnlineName('Ann')")
    online(page)
    page.get_by_role("button", name="Create Room").click()
    action = page.locator(".play-bar").get_by_role("button", name="Create Room")

    def in_view() -> None:
        box = action.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= DESKTOP["height"], box

    in_view()
    save(page, f"create-room-desktop-{theme}")
    # Picked from the last row of the list, scrolled into view: the action stays in view too.
    page.locator('.mode-card[data-mode="expert"]').scroll_into_view_if_needed()
    page.locator('.mode-card[data-mode="expert"]').click()
    expect(page.locator(".play-bar .play-summary")).to_contain_text("Expert")
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    in_view()
    save(page, f"create-room-desktop-{theme}-scrolled")
    assert not page.errors


def hue_of(css: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
    return colorsys.rgb_to_hls(r, g, b)[0] * 360


def test_the_previous_turn_pulses_in_orange(open_page):
    # The light theme's pulse was dark purple; web/test/state/contrast.test.ts checks every board.
    size, theme = "desktop", "light"
    page = open_page(SIZES[size], theme, menu={"mode": "standard", "level": "easy"})
    page.get_by_role("button", name="Play", exact=True).click()
    g = wait_for_state(page, lambda s: human_to_move(s) and not s["ai_thinking"])
    while not any(h["player"] == 2 for h in g["history"]):
        g = play_human_turn(page, g)
        g = wait_for_state(page, lambda s: s["over"] or (human_to_move(s) and not s["ai_thinking"]))
    pulse = page.locator(".edge-pulse").first
    expect(pulse).to_have_count(1)
    stroke = pulse.evaluate("(el) => getComputedStyle(el).stroke")
    assert abs(hue_of(stroke) - 30) <= 6, stroke  # orange, as the rule book says
    save(page, f"pulse-{size}-{theme}")
    assert not page.errors
