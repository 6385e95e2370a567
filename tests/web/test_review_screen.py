"""The review screen (issue 29) in a real browser: a finished game's result window offers Review;
the screen steps with its buttons, the arrow keys and the slider, draws the advantage graph with
the biggest mistakes marked and one click away, says exact or estimated, and passes axe at
desktop and phone size, light and dark (each screenshotted under test-output/web/)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from webtools import PHONE, axe_violations, best_edge, wait_for_state

pytestmark = pytest.mark.stack

OUTPUT = Path(os.environ.get("BOXEDIN_TEST_OUTPUT", Path(__file__).resolve().parents[2] / "test-output")) / "web"
SERIOUS = ("(serious)", "(critical)")


def test_review_a_finished_game_step_by_step(open_page, request) -> None:
    page = open_page()
    page.evaluate("() => window.boxedin.startGame({mode: 'practice_3x3', opponent: 'local', seed: 'review-screen'})")
    g = wait_for_state(page, lambda s: s["mode"] == "practice_3x3")
    # The game is played through the page's connection (the board's clicks have tests of their
    # own): the result window comes up as after any game.
    while not g["over"]:
        seq = g["seq"]
        page.evaluate("(edge) => window.boxedin.conn.act('draw', edge)", best_edge(g, g["to_move"]))
        g = wait_for_state(page, lambda s, seq=seq: s["seq"] > seq)
    final = g
    result = page.locator("dialog.result-dialog")
    expect(result).to_be_visible()
    result.get_by_role("button", name="Review", exact=True).click()
    review = page.locator("dialog.review-dialog")
    expect(review).to_be_visible()
    expect(review.locator(".review-progress")).to_contain_text("turns analysed.", timeout=60000)
    total = int(review.locator(".review-slider").get_attribute("max") or 0)
    assert total > 0

    # Step with the buttons, the keys and the slider: each shows that turn's board and figures.
    expect(review.locator(".review-step-label")).to_have_text("Start")
    review.get_by_role("button", name="Next turn").click()
    expect(review.locator(".review-step-label")).to_have_text(f"Turn 1 of {total}")
    expect(review.locator(".review-kind")).to_have_text("Exact")  # a 3x3 board: the solver's
    page.keyboard.press("ArrowRight")
    expect(review.locator(".review-step-label")).to_have_text(f"Turn 2 of {total}")
    page.keyboard.press("ArrowLeft")
    expect(review.locator(".review-step-label")).to_have_text(f"Turn 1 of {total}")
    review.locator(".review-slider").fill(str(total))
    expect(review.locator(".review-step-label")).to_have_text(f"Turn {total} of {total}")
    scores = review.locator(".review-scores")
    expect(scores).to_contain_text(str(final["scores"][0]))
    expect(review.locator(".review-board line.review-edge")).to_have_count(24)  # every line drawn

    # The graph, with the biggest mistakes marked, each one click away.
    expect(review.locator(".review-graph-svg path.review-line")).to_have_count(1)
    marks = review.locator(".review-mistake")
    buttons = review.locator(".review-mistake-btn")
    assert marks.count() == buttons.count() > 0, "random-ish play makes mistakes on a 3x3 board"
    first = buttons.first
    label = first.text_content() or ""
    turn_no = int(label.split(":")[0].removeprefix("Turn "))
    first.click()
    expect(review.locator(".review-step-label")).to_have_text(f"Turn {turn_no} of {total}")
    expect(review.locator(".review-lost")).to_be_visible()
    expect(review.locator(".review-best").first).to_be_attached()  # the best turn, dashed

    OUTPUT.mkdir(parents=True, exist_ok=True)
    found: dict[str, list[str]] = {}
    # axe at desktop size in light and at phone size in dark; every view is shot in both themes.
    for size, label, checked in ((None, "desktop", "light"), (PHONE, "phone", "dark")):
        if size is not None:
            page.set_viewport_size(size)
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            page.screenshot(path=str(OUTPUT / f"{request.node.name}-{label}-{theme}.png"))
            if theme == checked:
                violations = axe_violations(page, "dialog.review-dialog")
                found[f"{label}-{theme}"] = [v for v in violations if v.endswith(SERIOUS)]
    assert all(not v for v in found.values()), found

    # The transcript downloads in the replay format.
    with page.expect_download() as download:
        review.get_by_role("button", name="Download transcript").click()
    text = Path(download.value.path()).read_text()
    assert '"mode": "practice_3x3"' in text and '"actions"' in text
    review.get_by_role("button", name="Close").click()
    expect(review).to_have_count(0)
    assert not page.errors, page.errors  # type: ignore[attr-defined]
