"""Helpers for the browser tests: driving the board of the web client like a player would."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from edge_policy import choose_edge

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
UNIT = 100  # one box in the board's SVG units (web/src/state/geometry.ts)
MARGIN = 40


def game_state(page: Page) -> dict[str, Any] | None:
    """The game state the client last applied (exactly what the server sent)."""
    text = page.evaluate(
        "() => { const g = window.boxedin && window.boxedin.conn.game; return g ? JSON.stringify(g) : null; }"
    )
    return json.loads(text) if text else None


def wait_for_state(page: Page, predicate, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = game_state(page)
        if last is not None and predicate(last):
            return last
        page.wait_for_timeout(50)
    raise AssertionError(f"the game did not reach the expected state; last: {summary(last)}")


def summary(g: dict[str, Any] | None) -> str:
    if g is None:
        return "no game"
    keys = ("seq", "to_move", "phase", "roll", "edges_left", "scores", "over", "ai_thinking", "can_undo")
    return ", ".join(f"{k}={g.get(k)}" for k in keys)


def edge_key(e: list[Any]) -> str:
    return f"{e[0]}{e[1]},{e[2]}"


def edge_screen_point(page: Page, edge: list[Any]) -> tuple[float, float]:
    """Where the middle of an edge is on screen, from the SVG's box and viewBox."""
    svg = page.locator(".board-svg")
    box = svg.bounding_box()
    assert box is not None
    x0, y0, w, _ = (float(v) for v in (svg.get_attribute("viewBox") or "0 0 1 1").split())
    o, r, c = edge
    mx = MARGIN + c * UNIT + (UNIT / 2 if o == "h" else 0)
    my = MARGIN + r * UNIT + (UNIT / 2 if o == "v" else 0)
    scale = min(box["width"], box["height"]) / w
    left = box["x"] + (box["width"] - w * scale) / 2
    top = box["y"] + (box["height"] - w * scale) / 2
    return left + (mx - x0) * scale, top + (my - y0) * scale


def click_edge(page: Page, edge: list[Any]) -> None:
    x, y = edge_screen_point(page, edge)
    page.mouse.click(x, y)


def tap_edge(page: Page, edge: list[Any]) -> None:
    x, y = edge_screen_point(page, edge)
    page.touchscreen.tap(x, y)


def best_edge(g: dict[str, Any], player: int, prefer_capture: bool = True) -> list[Any]:
    """A capturing edge if there is one, else an edge that leaves the fewest boxes one short
    (edge_policy; ``player`` is the one to move, whom the policy plays for)."""
    assert g["to_move"] in (None, player)
    return choose_edge(g, prefer_capture)


def human_to_move(g: dict[str, Any]) -> bool:
    return not g["over"] and g["to_move"] is not None and g["players"][g["to_move"] - 1]["kind"] == "human"


def play_human_turn(page: Page, g: dict[str, Any], *, use_touch: bool = False) -> dict[str, Any]:
    """Plays one step of the human's turn through the page: rolls, or draws the best edge."""
    seq = g["seq"]
    if g["phase"] == "roll":
        page.get_by_role("button", name="Roll Dice").click()
    else:
        edge = best_edge(g, g["to_move"])
        (tap_edge if use_touch else click_edge)(page, edge)
    return wait_for_state(page, lambda s: s["seq"] > seq)


def play_to_end(page: Page, *, max_steps: int = 600, timeout: float = 90.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    for _ in range(max_steps):
        g = wait_for_state(page, lambda s: s["over"] or (human_to_move(s) and not s["ai_thinking"]), timeout=30)
        if g["over"]:
            return g
        assert time.monotonic() < deadline, "the game took too long"
        play_human_turn(page, g)
    raise AssertionError("the game did not end")


AXE = Path(__file__).resolve().parents[2] / "web" / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page: Page, include: str | None = None) -> list[str]:
    """What axe-core (web/node_modules) finds against WCAG 2 A and AA on the page (or the part
    ``include`` selects), one line per rule with the elements it names."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        """async (include) => {
            const r = await window.axe.run(include ? { include: [include] } : document, {
                runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
                resultTypes: ["violations"],
            });
            const where = (v) => v.nodes.map((n) => n.target.join(" ")).join(", ");
            return r.violations.map((v) => `${v.id} (${v.impact}): ${where(v)}`);
        }""",
        include,
    )
    return list(result)
