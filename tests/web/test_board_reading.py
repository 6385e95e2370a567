"""Reading the board and playing it on a phone (issue 15): held large squares outlined in their
owner's colour, what covers a box, the pulse and the keyboard's edge unlike any drawn edge,
tap-to-select on a small board, a zoom that leaves the top bar alone, keyboard play with dice."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from edge_policy import open_edges
from webtools import (
    DESKTOP,
    MARGIN,
    PHONE,
    UNIT,
    edge_screen_point,
    game_state,
    human_to_move,
    play_human_turn,
    wait_for_state,
)
import pytest

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


def my_turn(g: dict[str, Any]) -> bool:
    return g["over"] or (human_to_move(g) and not g["ai_thinking"])


def drawn_by(g: dict[str, Any], player: int) -> int:
    """How many edges ``player`` (1 or 2) has drawn."""
    return sum(1 for edge in g["edges"] if edge[3] == player)


def screen_point(page: Any, x: float, y: float) -> tuple[float, float]:
    """Where the SVG point (x, y) of the board is on screen."""
    svg = page.locator(".board-svg")
    box = svg.bounding_box()
    x0, y0, w, _ = (float(v) for v in (svg.get_attribute("viewBox") or "0 0 1 1").split())
    scale = min(box["width"], box["height"]) / w
    left = box["x"] + (box["width"] - w * scale) / 2
    top = box["y"] + (box["height"] - w * scale) / 2
    return left + (x - x0) * scale, top + (y - y0) * scale


def box_middle(page: Any, row: int, col: int) -> tuple[float, float]:
    return screen_point(page, MARGIN + (col + 0.5) * UNIT, MARGIN + (row + 0.5) * UNIT)


def css_var(page: Any, name: str) -> str:
    return page.evaluate(f"() => getComputedStyle(document.documentElement).getPropertyValue('{name}').trim()")


def rgb(page: Any, colour: str) -> str:
    """A CSS colour as the browser computes it (rgb(...))."""
    return page.evaluate(
        "(c) => { const d = document.createElement('div'); d.style.color = c; document.body.append(d);"
        " const v = getComputedStyle(d).color; d.remove(); return v; }",
        colour,
    )


STROKE = "(el) => { const s = getComputedStyle(el); return [s.stroke, s.strokeWidth, s.opacity]; }"
SPACING = "() => document.querySelector('.board-svg').getScreenCTM().a * 100"


def test_held_large_squares_are_outlined_in_their_owners_colour_and_a_box_lists_its_squares(open_page, shot):
    page = open_page(DESKTOP, "dark", menu={"mode": "big_squares", "level": "easy"})
    page.get_by_role("button", name="Play", exact=True).click()
    g = wait_for_state(page, my_turn)
    owners = lambda s: {(q["size"], q["owner"]) for q in s["squares"] if q["size"] > 1}  # noqa: E731
    while not g["over"] and not {(2, 1), (2, 2)} <= owners(g):
        play_human_turn(page, g)
        g = wait_for_state(page, my_turn, timeout=30)
    g = wait_for_state(page, my_turn)
    if g["over"]:
        page.locator("dialog.result-dialog").get_by_role("button", name="View board").click()
    held = [q for q in g["squares"] if q["size"] > 1]
    assert {1, 2} <= {q["owner"] for q in held}
    colours = {p: rgb(page, css_var(page, f"--p{p}")) for p in (1, 2)}
    outlines = page.locator("rect.outline")
    expect(outlines).to_have_count(len(held))
    for q in held:
        line = page.locator(f'rect.outline[data-size="{q["size"]}"][data-row="{q["row"]}"][data-col="{q["col"]}"]')
        expect(line).to_have_count(1)
        style = line.evaluate(STROKE)
        assert style[0] == colours[q["owner"]], (q, style, colours)
        assert float(style[2]) == 1.0
        assert float(style[1].rstrip("px")) >= 5  # at least 5 units thick, more on larger boards
    # Hovering the middle of a covered box lists what covers it, with owners and points.
    q = held[0]
    page.mouse.move(*box_middle(page, q["row"], q["col"]))
    info = page.locator(".box-info")
    name = g["players"][q["owner"] - 1]["name"]
    expect(info).to_contain_text(f"Box row {q['row'] + 1}, column {q['col'] + 1}:")
    expect(info).to_contain_text(f"{q['size']}×{q['size']} square of {name}, {q['points']} points")
    expect(page.locator(".inspect-box")).to_have_count(1)
    shot(page, "desktop-dark")
    page.emulate_media(color_scheme="light")
    shot(page, "desktop-light")
    page.set_viewport_size(PHONE)
    shot(page, "phone-light")
    page.emulate_media(color_scheme="dark")
    shot(page, "phone-dark")
    assert not page.errors


def test_taps_select_first_on_a_phones_12x12_board(open_page, shot):
    page = open_page(PHONE, "light", menu={"mode": "marathon", "level": "easy"}, touch=True)
    page.get_by_role("button", name="Play", exact=True).click()
    g = wait_for_state(page, my_turn)
    spacing = page.evaluate(SPACING)
    assert spacing < 40  # the dots are close: taps select
    topbar = page.locator(".game-topbar").bounding_box()["height"]
    g = play_human_turn(page, g)  # the roll
    assert g["phase"] == "draw"
    mine = drawn_by(g, 1)
    # A tap in the middle of a box draws nothing: it names the box.
    page.touchscreen.tap(*box_middle(page, 5, 5))
    expect(page.locator(".box-info")).to_contain_text("Box row 6, column 6")
    draw = page.get_by_role("button", name="Draw", exact=True)
    expect(draw).to_be_hidden()
    # A tap 9 px off an edge selects the nearest edge and shows it; a second tap draws it.
    target = next(e for e in open_edges(g) if e[0] == "h" and 2 < e[1] < 9 and 2 < e[2] < 9)
    x, y = edge_screen_point(page, target)
    page.touchscreen.tap(x, y + 9)
    expect(page.locator(".edge-selected.tap")).to_have_count(1)
    expect(draw).to_be_visible()
    assert game_state(page)["seq"] == g["seq"]
    page.touchscreen.tap(x, y + 9)
    g = wait_for_state(page, lambda s, q=g["seq"]: s["seq"] > q)
    # The box's middle drew nothing. (Counted by owner: on a roll of 1 the tap ends the turn, and
    # the computer's fast turn may be on the board by the time the page is read.)
    assert drawn_by(g, 1) == mine + 1
    assert [*target, 1] in g["edges"]
    expect(draw).to_be_hidden()
    # Draw draws the selected edge as well.
    if not g["over"] and g["phase"] == "draw" and g["to_move"] == 1:
        other = next(e for e in open_edges(g) if e[0] == "v" and 2 < e[1] < 9 and 2 < e[2] < 9)
        page.touchscreen.tap(*edge_screen_point(page, other))
        draw.tap()
        g = wait_for_state(page, lambda s, q=g["seq"]: s["seq"] > q)
        assert [*other, 1] in g["edges"]
    shot(page, "tap-selected")

    # Zooming keeps the top bar as it was and shows where the view is.
    page.locator(".board").focus()
    for _ in range(3):
        page.keyboard.press("+")
    expect(page.get_by_role("button", name="Show the whole board")).to_be_visible()
    expect(page.locator(".board-overview")).to_be_visible()
    assert page.locator(".game-topbar").bounding_box()["height"] == topbar
    title = page.locator(".game-title")
    assert title.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1")
    view = page.locator(".overview-view")
    assert float(view.get_attribute("width")) < float(page.locator(".overview-board").get_attribute("width"))
    shot(page, "zoomed")
    assert not page.errors


def test_tap_select_can_be_turned_off(open_page):
    page = open_page(PHONE, "light", settings={"tapSelect": False}, menu={"mode": "marathon", "level": "easy"},
                     touch=True)  # fmt: skip
    page.get_by_role("button", name="Play", exact=True).click()
    g = play_human_turn(page, wait_for_state(page, my_turn))
    target = next(e for e in open_edges(g) if e[0] == "h" and 2 < e[1] < 9 and 2 < e[2] < 9)
    page.touchscreen.tap(*edge_screen_point(page, target))
    g = wait_for_state(page, lambda s, q=g["seq"]: s["seq"] > q)
    assert [*target, 1] in g["edges"]
    assert not page.errors


def test_a_dice_game_by_keyboard_with_the_pulse_and_selection_unlike_any_edge(open_page, shot):
    page = open_page(DESKTOP, "light", settings={"palette": "sunset", "p1Colour": "gold", "p2Colour": "blue"},
                     menu={"mode": "classic", "level": "easy"})  # fmt: skip
    page.get_by_role("button", name="Play", exact=True).click()
    g = wait_for_state(page, my_turn)
    board = page.locator(".board")
    expect(board).to_be_focused()
    for turn in range(2):
        # (turn 0 rolls and draws; turn 1 also finds the other player's last turn pulsing)
        page.keyboard.press("r")
        g = wait_for_state(page, lambda s, q=g["seq"]: s["seq"] > q)
        assert g["phase"] == "draw"
        ours = g["turn"]
        if turn == 1:
            # The other player's last turn pulses in the palette's pulse colour, set apart from the edge.
            pulse = page.locator(".edge-pulse").first
            expect(pulse).to_have_count(1)  # (a line has no area: Playwright never calls it visible)
            assert pulse.evaluate("(el) => getComputedStyle(el).stroke") == rgb(page, css_var(page, "--pulse"))
            assert page.locator(".edge-pulse-gap").count() == page.locator(".edge-pulse").count()
        page.keyboard.press("ArrowRight")
        selected = page.locator(".edge-selected.keyboard")
        expect(selected).to_have_count(1)
        stroke = selected.evaluate("(el) => getComputedStyle(el).stroke")
        assert stroke == rgb(page, css_var(page, "--text"))
        assert stroke not in {rgb(page, css_var(page, "--p1")), rgb(page, css_var(page, "--p2"))}
        page.keyboard.press("Enter")
        g = wait_for_state(page, lambda s, q=g["seq"]: s["seq"] > q)
        if g["to_move"] == 1 and g["phase"] == "draw" and not g["over"]:
            page.keyboard.press("e")
        # Our next turn, by its number: on a roll of 1 the Enter ended the turn, and the computer's
        # fast turn may already be over when the page is first read after it.
        g = wait_for_state(page, lambda s: s["over"] or (my_turn(s) and s["phase"] == "roll" and s["turn"] > ours))  # noqa: B023
        if g["over"]:
            break
    assert g["over"] or g["turn"] >= 4  # two of our turns went by, played from the keyboard alone
    shot(page)
    assert not page.errors
