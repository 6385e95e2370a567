"""The web client in a real browser against the running services: whole games, captures and
Undo, an overlap rule, a local game, practice by keyboard, settings, resuming, zoom and a dropped
connection. Each test leaves a screenshot of its board under test-output/web/."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from edge_policy import boxes_completed, open_edges
from wsclient import Browser
from webtools import (
    DESKTOP,
    PHONE,
    best_edge,
    click_edge,
    edge_key,
    game_state,
    human_to_move,
    play_human_turn,
    play_to_end,
    tap_edge,
    wait_for_state,
)
import pytest

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

RECORD_STATUS = """() => {
  window.__statuses = [];
  const seen = () => { const s = document.querySelector('.status'); if (s) window.__statuses.push(s.textContent); };
  new MutationObserver(seen).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def edges_word(n: int) -> str:
    return "edge" if n == 1 else "edges"


def my_turn(g: dict[str, Any]) -> bool:
    return g["over"] or (human_to_move(g) and not g["ai_thinking"])


def no_overlap(page: Any, selectors: list[str]) -> None:
    """The visible boxes of these elements do not overlap each other."""
    boxes = []
    for sel in selectors:
        loc = page.locator(sel)
        for i in range(loc.count()):
            if loc.nth(i).is_visible():
                b = loc.nth(i).bounding_box()
                if b and b["width"] > 0 and b["height"] > 0:
                    boxes.append((sel, b))
    for i, (s1, a) in enumerate(boxes):
        for s2, b in boxes[i + 1 :]:
            overlap_x = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
            overlap_y = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
            assert overlap_x <= 1 or overlap_y <= 1, f"{s1} overlaps {s2}: {a} / {b}"


GAME_PARTS = [".game-topbar", ".scores", ".board", ".status", ".turn-controls", ".after-bar"]


def test_classic_against_easy_whole_game(open_page, shot):
    page = open_page(DESKTOP, "light")
    expect(page.locator(".play-summary")).to_contain_text("Classic")
    expect(page.locator(".mode-card.selected")).to_contain_text("Recommended")
    page.get_by_role("button", name="AI: Normal").click()
    page.get_by_role("radio", name=re.compile("^Easy")).click()
    expect(page.locator(".play-summary")).to_contain_text("vs AI (Easy)")
    page.evaluate(RECORD_STATUS)
    page.get_by_role("button", name="Play", exact=True).click()

    g = wait_for_state(page, my_turn)
    assert (g["mode"], g["level"], g["players"][1]["name"]) == ("classic", "easy", "AI (Easy)")
    expect(page.locator(".status")).to_have_text("Your turn — roll the dice")
    expect(page.locator(".die-label")).to_have_text("Rolls 1–6")
    expect(page.get_by_role("button", name="End Turn")).to_be_disabled()
    g = play_human_turn(page, g)  # the roll
    expect(page.locator(".die-label")).to_have_text(f"{g['roll']} of {g['roll']} {edges_word(g['roll'])} left")
    expect(page.locator(".status")).to_contain_text("Your turn — draw")
    assert page.locator(".edge-faint").count() == g["open_edges"]
    drawing = g["turn"]
    g = play_human_turn(page, g)  # one edge
    # Still our turn, unless the roll was 1: then the edge ended it, and a fast AI may have
    # played its whole turn before we look again (so "to move" alone could be our next turn).
    if not g["over"] and g["turn"] == drawing:
        expect(page.locator(".die-label")).to_have_text(
            f"{g['edges_left']} of {g['roll']} {edges_word(g['roll'])} left"
        )
        expect(page.get_by_role("button", name="End Turn")).to_be_enabled()
        page.get_by_role("button", name="End Turn").click()
        # The turn has passed. (Not "the AI is to move": a fast AI can finish its turn between
        # two looks at the page.)
        ended = g["turn"]
        g = wait_for_state(page, lambda s: s["turn"] > ended or s["over"])
    # The AI's edges pulse once it is our turn again, until we draw.
    g = wait_for_state(page, my_turn)
    if not g["over"]:
        assert page.locator(".edge-pulse").count() == sum(1 for h in g["history"] if h["turn"] == g["turn"] - 1)
        expect(page.locator(".score-card.p1")).to_have_class(re.compile("turn"))
        expect(page.locator(".score-card.p1 .turn-label")).to_have_text("TURN")
        assert page.evaluate("() => document.querySelector('.game-topbar .round').textContent") == f"Round {g['round']}"

    g = play_to_end(page)
    assert g["winner"] in (1, 2)  # 49 boxes cannot tie
    dialog = page.locator("dialog.result-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text("You won!" if g["winner"] == 1 else "AI wins")
    expect(dialog.locator(".final-scores")).to_contain_text(str(g["scores"][0]))
    expect(dialog.locator(".final-scores")).to_contain_text(str(g["scores"][1]))
    assert sum(g["scores"]) == 49
    assert "AI (Easy) is thinking…" in page.evaluate("() => window.__statuses")
    dialog.get_by_role("button", name="View board").click()
    for name in ("Results", "Play Again", "Exit"):
        expect(page.get_by_role("button", name=name, exact=True)).to_be_visible()
    assert page.locator(".board .mark.diamond").count() == g["scores"][0]
    assert page.locator(".board .mark.ring").count() == g["scores"][1]
    no_overlap(page, GAME_PARTS)
    shot(page)
    page.get_by_role("button", name="Results").click()
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Exit").click()
    expect(page.locator(".menu-screen")).to_be_visible()
    expect(page.locator(".continue-card")).to_have_count(0)  # a finished game is not kept
    assert not page.errors


def test_standard_capture_and_undo(open_page, shot):
    page = open_page(PHONE, "dark", menu={"mode": "standard", "level": "easy"}, touch=True)
    page.get_by_role("button", name="Play", exact=True).click()
    g = wait_for_state(page, my_turn)
    assert g["die"] is None
    expect(page.locator(".dice-panel")).to_be_hidden()
    expect(page.get_by_role("button", name="End Turn")).to_be_hidden()
    expect(page.locator(".standard-note")).to_have_text("Complete a square to go again!")
    expect(page.locator(".status")).to_have_text("Your turn — draw a line")
    expect(page.get_by_role("button", name="Undo")).to_be_disabled()

    undone = False
    for _ in range(200):
        g = wait_for_state(page, my_turn)
        if g["over"]:
            break
        edge = best_edge(g, 1)
        gain = boxes_completed(g, edge)  # Standard: every square a box, a point each
        if gain > 0 and not undone:
            before = g
            tap_edge(page, edge)
            g = wait_for_state(page, lambda s, b=before: s["seq"] > b["seq"])
            assert g["scores"][0] == before["scores"][0] + gain
            if not g["over"]:
                assert g["can_undo"] and g["to_move"] == 1
                expect(page.locator(".status")).to_have_text("Your turn — you closed a box, draw another line")
                expect(page.get_by_role("button", name="Undo")).to_be_enabled()
                page.get_by_role("button", name="Undo").click()
                g = wait_for_state(page, lambda s, b=before: s["seq"] > b["seq"] + 1)
                assert g["scores"] == before["scores"]
                assert g["edges"] == before["edges"]
                assert not g["can_undo"]
                expect(page.get_by_role("button", name="Undo")).to_be_disabled()
                undone = True
            continue
        g = play_human_turn(page, g, use_touch=True)
        if not g["over"] and g["to_move"] == 1 and g["can_undo"] is False and g["drawn_this_turn"] == 0:
            expect(page.get_by_role("button", name="Undo")).to_be_disabled()
    assert undone, "no capture came up to undo"
    g = wait_for_state(page, lambda s: s["over"], timeout=30)
    assert sum(g["scores"]) == 25
    dialog = page.locator("dialog.result-dialog")
    expect(dialog.locator("h2")).to_have_text("You won!" if g["winner"] == 1 else "AI wins")
    dialog.get_by_role("button", name="View board").click()
    no_overlap(page, GAME_PARTS)
    shot(page)
    assert not page.errors


def test_strategic_with_overlap_rule(open_page, shot):
    page = open_page(DESKTOP, "dark", menu={"level": "easy"})
    page.locator('.mode-card[data-mode="strategic"]').click()
    overlap = page.locator(".overlap-btn")
    expect(overlap).to_contain_text("Independent")
    overlap.click()
    choices = page.locator("dialog .choice")
    expect(choices).to_have_count(13)
    page.get_by_role("radio", name=re.compile("^Exclusive")).click()
    expect(page.locator(".play-summary")).to_contain_text("Strategic · Exclusive")
    # Another game resets the rule; coming back starts from Strategic's own.
    page.locator('.mode-card[data-mode="big_squares"]').click()
    expect(page.locator(".overlap-btn")).to_contain_text("Independent")
    page.locator('.mode-card[data-mode="strategic"]').click()
    page.locator(".overlap-btn").click()
    page.get_by_role("radio", name=re.compile("^Exclusive")).click()
    page.get_by_role("button", name="Play", exact=True).click()

    g = wait_for_state(page, my_turn)
    assert (g["mode"], g["overlap"], g["sizes"]) == ("strategic", "exclusive", [1, 2])
    expect(page.locator(".game-title")).to_have_text("Strategic · Exclusive")
    saw_dead = False
    while True:
        g = wait_for_state(page, my_turn, timeout=30)
        if g["dead_edges"] and not g["over"]:
            saw_dead = True
            expect(page.locator(".dead-note")).to_have_text("Dashed lines can no longer score")
            assert page.locator(".edge-dead").count() == len(g["dead_edges"])
        if g["over"]:
            break
        play_human_turn(page, g)
    dialog = page.locator("dialog.result-dialog")
    expect(dialog).to_be_visible()
    assert sum(g["scores"]) <= 81
    if g["ended_with_open_edges"]:
        expect(dialog).to_contain_text("No scoring moves were left, so the game ended with edges still open.")
        # The edges may have died during the AI's last turn: then the final board shows them.
        assert saw_dead or 0 < page.locator(".edge-dead").count() == len(g["dead_edges"])
    dialog.get_by_role("button", name="View board").click()
    big = [s for s in g["squares"] if s["size"] == 2]
    assert page.locator("rect.outline").count() >= len(big)
    no_overlap(page, GAME_PARTS)
    shot(page)
    assert not page.errors


def tiled_exclusive_plan() -> list[list[Any]]:
    """Strategic under Exclusive with its top-left 8 x 8 boxes tiled by sixteen 2x2s: every edge
    but the 64 inside them, in edge order (h before v, row, column). Each 2x2 is captured when its
    outline closes, which leaves the boxes inside it no way to be captured: the last edge of the
    list ends the game with those 64 edges open, however the rolls fall."""
    inside = {
        (o, r, c)
        for top in range(0, 8, 2)
        for left in range(0, 8, 2)
        for o, r, c in (("h", top + 1, left), ("h", top + 1, left + 1), ("v", top, left + 1), ("v", top + 1, left + 1))
    }
    every = [("h", r, c) for r in range(10) for c in range(9)] + [("v", r, c) for r in range(9) for c in range(10)]
    return [list(e) for e in every if e not in inside]


def test_a_game_with_no_scoring_move_left_says_so_in_the_rule_books_words(open_page, web_url, shot):
    page = open_page(DESKTOP, "light")
    device = page.evaluate("() => localStorage.getItem('boxedin.device')")
    plan = tiled_exclusive_plan()
    # The same device plays all but the last edge of a local game over its own socket; the page
    # resumes the saved game and draws the last one.
    other_tab = Browser(web_url, device=device)
    try:
        other_tab.hello()
        other_tab.new_game(mode="strategic", overlap="exclusive", opponent="local")
        for edge in plan[:-1]:
            if other_tab.state is not None and other_tab.state["phase"] == "roll":
                other_tab.act(type="roll")
            other_tab.act(type="draw", edge=edge)
    finally:
        other_tab.close()
    page.reload()
    page.wait_for_function("() => window.boxedin && window.boxedin.conn.isOpen")
    page.locator(".continue-card").get_by_role("button", name="Resume").click()
    g = wait_for_state(page, lambda s: s["opponent"] == "local" and len(s["edges"]) == len(plan) - 1)
    if g["phase"] == "roll":
        page.get_by_role("button", name="Roll Dice").click()
        g = wait_for_state(page, lambda s, seq=g["seq"]: s["seq"] > seq)
    click_edge(page, plan[-1])
    g = wait_for_state(page, lambda s: s["over"])
    assert (g["open_edges"], g["ended_with_open_edges"], g["resigned"]) == (64, True, None)
    dialog = page.locator("dialog.result-dialog")
    expect(dialog.locator(".note")).to_have_text("No scoring moves were left, so the game ended with edges still open.")
    shot(page, "desktop")
    page.set_viewport_size(PHONE)
    expect(dialog.locator(".note")).to_be_in_viewport()
    shot(page, "phone")
    assert not page.errors


def test_local_game_on_a_phone(open_page, shot):
    page = open_page(PHONE, "light", menu={"mode": "mini"}, touch=True)
    page.get_by_role("radio", name="Local").click()
    expect(page.get_by_role("button", name=re.compile("^AI:"))).to_have_count(0)
    start = page.get_by_role("button", name="Start", exact=True)
    expect(start).to_be_visible()
    expect(page.locator(".play-summary")).to_contain_text("Local: 2 players")
    start.click()
    g = wait_for_state(page, lambda s: True)
    assert g["opponent"] == "local"
    assert [p["name"] for p in g["players"]] == ["Player 1", "Player 2"]
    expect(page.locator(".status")).to_have_text("Player 1's turn — roll the dice")
    seen_two = False
    while not g["over"]:
        if g["to_move"] == 2 and g["phase"] == "roll":
            seen_two = True
            expect(page.locator(".status")).to_have_text("Player 2's turn — roll the dice")
            expect(page.locator(".score-card.p2")).to_have_class(re.compile("turn"))
        if g["phase"] == "roll":
            page.get_by_role("button", name="Roll Dice").tap()
            g = wait_for_state(page, lambda s, q=g["seq"]: s["seq"] > q)
        else:
            g = play_human_turn(page, g, use_touch=True)
    assert seen_two
    dialog = page.locator("dialog.result-dialog")
    expect(dialog.locator("h2")).to_have_text(f"Player {g['winner']} wins")
    dialog.get_by_role("button", name="View board").tap()
    no_overlap(page, GAME_PARTS)
    shot(page)
    assert not page.errors


def selected_edge(page: Any) -> list[Any] | None:
    text = page.locator(".preview-edge").text_content() if page.locator(".preview-edge").count() else ""
    m = re.match(r"(Horizontal|Vertical) edge, row (\d+), column (\d+)", text or "")
    return [m.group(1)[0].lower(), int(m.group(2)), int(m.group(3))] if m else None


def tab_to(page: Any, predicate: str, limit: int = 40) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => {{ const el = document.activeElement; return !!el && ({predicate}); }}"):
            return
    raise AssertionError(f"Tab never reached {predicate}")


def test_practice_by_keyboard_alone(open_page, shot):
    page = open_page(DESKTOP, "light")
    tab_to(page, "el.classList.contains('practice-entry')")
    page.keyboard.press("Enter")
    expect(page.locator(".practice-setup")).to_be_visible()
    expect(page.locator('[data-boxes="3"]')).to_have_attribute("aria-checked", "true")
    seed = page.locator("#seed-input")
    assert 1 <= len(seed.input_value().strip()) <= 96
    tab_to(page, "el.dataset.boxes === '4'")
    page.keyboard.press("Enter")
    expect(page.locator('[data-boxes="4"]')).to_have_attribute("aria-checked", "true")
    tab_to(page, "el.id === 'seed-input'")
    page.keyboard.press("Control+a")
    page.keyboard.type("   ")
    expect(page.get_by_role("button", name="Start match")).to_be_disabled()
    page.keyboard.press("Control+a")
    page.keyboard.type("  keyboard seed  ")
    expect(page.get_by_role("button", name="Start match")).to_be_enabled()
    tab_to(page, "el.textContent === 'Start match'")
    page.keyboard.press("Enter")

    g = wait_for_state(page, lambda s: s["mode"] == "practice_4x4")
    assert g["seed"] == "keyboard seed" and g["opponent"] == "practice"
    board = page.locator(".board")
    expect(board).to_be_focused()
    total = 40
    saw_capture_preview = False
    while True:
        g = wait_for_state(page, my_turn)
        if g["over"]:
            break
        expect(page.locator(".edge-counter")).to_have_text(f"Edges drawn: {total - g['open_edges']} of {total}")
        assert page.locator(".history-list li").count() == len(g["history"])
        target = best_edge(g, 1)
        for _ in range(total + 1):
            if selected_edge(page) == target:
                break
            page.keyboard.press("ArrowRight")
        assert selected_edge(page) == target
        preview = g["previews"][edge_key(target)]
        if preview["score_change"][0] > 0:
            saw_capture_preview = True
            expect(page.locator(".preview")).to_contain_text("(highlighted)")
            assert page.locator(".preview-box").count() >= 1
        expect(page.locator(".preview")).to_contain_text(f"{preview['continuation']} more")
        if len(g["history"]) == 2:
            # P pauses and resumes from the board.
            page.keyboard.press("p")
            expect(page.locator(".board-overlay")).to_contain_text("Paused")
            expect(page.get_by_role("button", name="Resume")).to_be_visible()
            page.keyboard.press("Enter")  # nothing is drawn while paused
            page.wait_for_timeout(200)
            assert game_state(page)["seq"] == g["seq"]
            page.keyboard.press("p")
            expect(page.locator(".board-overlay")).to_be_hidden()
        page.keyboard.press("Enter" if len(g["history"]) % 2 else " ")
        wait_for_state(page, lambda s, q=g["seq"]: s["seq"] > q)
    assert saw_capture_preview
    assert sum(g["scores"]) == 16
    dialog = page.locator("dialog.result-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Replay same seed")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(dialog.get_by_role("button", name="View board")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".history-list li")).to_have_count(len(g["history"]))
    expect(page.locator(".edge-counter")).to_have_text(f"Edges drawn: {total} of {total}")
    shot(page)
    assert not page.errors


def test_settings_persist_across_reload(open_page, shot):
    page = open_page(PHONE, "light", menu={"mode": "mini", "level": "easy"})
    page.get_by_role("button", name="More options").click()
    page.get_by_role("menuitem", name="Settings").click()
    page.get_by_label("Dark", exact=True).check()
    page.get_by_label("Forest").check()
    page.locator('input[name="colour1"][value="blue"]').check()
    # Picking the AI's colour for yourself swaps the two.
    expect(page.locator('input[name="colour2"][value="green"]')).to_be_checked()
    page.get_by_label("AI / Player 2").check()
    page.get_by_label("Right side").check()
    page.locator('input[name="vibration"]').uncheck()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"

    page.reload()
    page.wait_for_function("() => window.boxedin && window.boxedin.conn.isOpen")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    stored = page.evaluate("JSON.parse(localStorage.getItem('boxedin.settings'))")
    assert stored | {} == stored and stored["palette"] == "forest" and stored["p1Colour"] == "blue"
    assert stored["p2Colour"] == "green" and stored["first"] == "2" and stored["controls"] == "right"
    assert stored["vibration"] is False
    p1 = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--p1').trim()")
    assert p1 == "#6a9ef5"
    assert page.evaluate("document.body.classList.contains('controls-right')")
    page.get_by_role("button", name="More options").click()
    page.get_by_role("menuitem", name="Settings").click()
    expect(page.get_by_label("Forest")).to_be_checked()
    expect(page.get_by_label("Dark", exact=True)).to_be_checked()
    page.get_by_role("button", name="Back to menu").click()

    page.get_by_role("button", name="Play", exact=True).click()
    g = wait_for_state(page, lambda s: s["turn"] >= 1 and my_turn(s))
    assert g["first"] == 2
    assert g["history"][0]["player"] == 2
    stroke = page.evaluate("getComputedStyle(document.querySelector('.edge-drawn.p1, .edge-drawn.p2')).stroke")
    assert stroke in ("rgb(106, 158, 245)", "rgb(76, 201, 129)")
    no_overlap(page, GAME_PARTS)
    shot(page)
    assert not page.errors


def test_resume_after_reload(open_page, shot):
    page = open_page(DESKTOP, "dark", menu={"mode": "quick", "level": "easy"})
    page.get_by_role("button", name="Play", exact=True).click()
    g = wait_for_state(page, my_turn)
    for _ in range(3):
        g = wait_for_state(page, my_turn)
        g = play_human_turn(page, g)
    g = wait_for_state(page, my_turn)
    assert not g["over"]
    page.reload()
    page.wait_for_function("() => window.boxedin && window.boxedin.conn.isOpen")
    card = page.locator(".continue-card")
    expect(card).to_be_visible()
    expect(card).to_contain_text("Quick")
    expect(card).to_contain_text("vs AI (Easy)")
    expect(card).to_contain_text(f"You {g['scores'][0]} : {g['scores'][1]} AI")
    expect(card).to_contain_text(f"Round {g['round']}")

    # A new game asks before replacing the saved one.
    page.get_by_role("button", name="Play", exact=True).click()
    confirm = page.locator("dialog")
    expect(confirm.locator("h2")).to_have_text("Start a new game?")
    confirm.get_by_role("button", name="Keep").click()
    expect(card).to_be_visible()

    card.get_by_role("button", name="Resume").click()
    r = wait_for_state(page, lambda s: s["game"] == g["game"])
    assert r["edges"] == g["edges"] and r["scores"] == g["scores"] and r["phase"] == g["phase"]
    assert not r["can_undo"]
    assert page.locator(".edge-drawn").count() == len(g["edges"])
    r = play_human_turn(page, r)
    assert r["seq"] > g["seq"]
    no_overlap(page, GAME_PARTS)
    shot(page)

    # The back arrow keeps the game; Discard asks first.
    page.get_by_role("button", name=re.compile("^Back to menu")).click()
    expect(card).to_be_visible()
    card.get_by_role("button", name="Discard").click()
    expect(page.locator("dialog h2")).to_have_text("Discard saved game?")
    page.locator("dialog").get_by_role("button", name="Keep").click()
    expect(card).to_be_visible()
    card.get_by_role("button", name="Discard").click()
    page.locator("dialog").get_by_role("button", name="Discard").click()
    expect(card).to_have_count(0)
    page.reload()
    page.wait_for_function("() => window.boxedin && window.boxedin.conn.isOpen")
    expect(page.locator(".continue-card")).to_have_count(0)
    assert not page.errors


def view_box(page: Any) -> list[float]:
    return [float(v) for v in page.locator(".board-svg").get_attribute("viewBox").split()]


def test_zoom_pan_and_whole_board(open_page, shot):
    page = open_page(PHONE, "light", menu={"mode": "marathon", "level": "easy"}, touch=True)
    page.get_by_role("button", name="Play", exact=True).click()
    g = wait_for_state(page, my_turn)
    full = view_box(page)
    assert full[0] == 0 and full[1] == 0
    whole = page.get_by_role("button", name="Show the whole board")
    expect(whole).to_be_hidden()
    box = page.locator(".board-svg").bounding_box()

    # Two fingers spread apart: the board zooms, at most three times, and nothing is drawn.
    cdp = page.context.new_cdp_session(page)
    mx, my = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def touch(kind: str, points: list[tuple[float, float]]) -> None:
        pts = [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": pts})

    touch("touchStart", [(mx - 20, my), (mx + 20, my)])
    for d in range(25, 60, 5):
        touch("touchMove", [(mx - d, my), (mx + d, my)])
    touch("touchEnd", [])
    pinched = view_box(page)
    assert 1.5 < full[2] / pinched[2] <= 3 + 1e-6
    expect(whole).to_be_visible()
    assert game_state(page)["seq"] == g["seq"]
    whole.tap()
    assert view_box(page) == full
    expect(whole).to_be_hidden()

    cx, cy = box["x"] + box["width"] * 0.7, box["y"] + box["height"] * 0.3
    page.mouse.move(cx, cy)
    for _ in range(12):
        page.mouse.wheel(0, -400)
    page.wait_for_timeout(100)
    zoomed = view_box(page)
    assert abs(full[2] / zoomed[2] - 3) < 1e-6  # at most three times
    expect(whole).to_be_visible()

    # A drag moves the board and never draws.
    g = play_human_turn(page, g)  # roll
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + 60, cy + 40, steps=6)
    page.mouse.up()
    page.wait_for_timeout(300)
    panned = view_box(page)
    assert panned[:2] != zoomed[:2]
    assert game_state(page)["seq"] == g["seq"]
    # A plain click while zoomed draws the edge under it.
    x0, y0, w, _ = panned

    def in_view(e: list[Any]) -> bool:
        mx = 40 + e[2] * 100 + (50 if e[0] == "h" else 0)
        my = 40 + e[1] * 100 + (50 if e[0] == "v" else 0)
        return x0 + 30 < mx < x0 + w - 30 and y0 + 30 < my < y0 + w - 30

    edge = next(e for e in open_edges(g) if in_view(e))
    click_edge(page, edge)
    g = wait_for_state(page, lambda s, q=g["seq"]: s["seq"] > q)
    assert [edge[0], edge[1], edge[2], 1] in g["edges"]
    shot(page, "zoomed")
    whole.click()
    assert view_box(page) == full
    expect(whole).to_be_hidden()
    no_overlap(page, GAME_PARTS)
    shot(page)
    assert not page.errors


def test_reconnects_after_the_socket_drops(open_page, shot):
    page = open_page(PHONE, "dark", menu={"mode": "mini", "level": "easy"})
    page.get_by_role("button", name="Play", exact=True).click()
    g = wait_for_state(page, my_turn)
    g = play_human_turn(page, g)
    page.evaluate("() => window.boxedin.conn.ws.close()")
    expect(page.locator(".conn-banner")).to_contain_text("reconnecting")
    page.wait_for_function("() => window.boxedin.conn.isOpen", timeout=10000)
    expect(page.locator(".conn-banner")).to_be_hidden()
    g2 = wait_for_state(page, my_turn)
    assert g2["game"] == g["game"]
    g2 = play_human_turn(page, g2)
    assert g2["seq"] > g["seq"]
    shot(page)
    assert not page.errors
