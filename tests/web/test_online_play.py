"""Online play in the web client, two devices (two browser contexts) against the running services:
a whole game through a room code and one through Find Match, Rematch with the first move
swapped, Leave with its confirmation, a page closed and reopened within the grace (and a dropped
socket), a player away past the grace and the move limit running out. Both players' boards in
each final position are saved as screenshots under test-output/web/.

The grace and the move limit are 90 s and 120 s on the session's stack; the tests of their
running out use a stack of their own where both are 4 s."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from boxedin.supervisor.launcher import Stack

from stacks import make_stack
from webtools import DESKTOP, PHONE, axe_violations, best_edge, click_edge, game_state, tap_edge, wait_for_state

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

SHORT = 4  # seconds: the grace and the move limit of the short stack
FINISHED_KEY = "boxedin.online.finished"


# --- devices ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def short_stack() -> Iterator[Stack]:
    """A stack of its own whose grace and move limit are 4 s."""
    stack = make_stack(
        "online-web",
        worker=False,
        extra_env={"BOXEDIN_ONLINE_GRACE_SECONDS": str(SHORT), "BOXEDIN_MOVE_LIMIT_SECONDS": str(SHORT)},
    )
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()


@pytest.fixture
def device(browser: Any) -> Iterator[Callable[..., Page]]:
    """Opens the client on a device of its own (a browser context): ``device(url, name=...)``.
    With ``name`` the device already knows its online name (else it asks the first time)."""
    contexts: list[Any] = []

    def make(url: str, name: str | None = None, size: dict[str, int] = DESKTOP, theme: str = "light",
             touch: bool = False) -> Page:  # fmt: skip
        ctx = browser.new_context(viewport=size, color_scheme=theme, has_touch=touch, is_mobile=touch,
                                  device_scale_factor=1)  # fmt: skip
        with contextlib.suppress(Exception):  # without them the copy falls back
            ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
        contexts.append(ctx)
        seed = "localStorage.setItem('boxedin.settings', JSON.stringify({aiSpeed: 'fast'}));"
        if name is not None:
            seed += f"localStorage.setItem('boxedin.online.name', {json.dumps(name)});"
        seeded = "localStorage.getItem('boxedin.test.seeded')"
        ctx.add_init_script(f"if (!{seeded}) {{ {seed} localStorage.setItem('boxedin.test.seeded', '1'); }}")
        ctx.base_url = url  # type: ignore[attr-defined]
        return open_tab(ctx)

    yield make
    for ctx in contexts:
        ctx.close()


def open_tab(ctx: Any) -> Page:
    """A new page of the device, connected; its script errors and the server's error frames are
    recorded on it."""
    page = ctx.new_page()
    errors: list[str] = []
    server_errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def watch(ws: Any) -> None:
        ws.on("framereceived", lambda payload: server_errors.append(str(payload))
              if '"type":"error"' in str(payload) else None)  # fmt: skip

    page.on("websocket", watch)
    page.errors = errors  # type: ignore[attr-defined]
    page.server_errors = server_errors  # type: ignore[attr-defined]
    page.goto(ctx.base_url + "/")
    page.wait_for_function("() => window.boxedin && window.boxedin.conn.isOpen", timeout=15000)
    return page


def go_online(page: Page) -> None:
    """Chooses Online on the menu: the online menu comes, or at once the game the device plays."""
    page.get_by_role("radio", name="Online").click()
    expect(page.locator(".online-screen, .game-screen.is-online")).to_be_visible()


def seat_of(page: Page) -> int:
    seat = page.evaluate("() => window.boxedin.conn.online && window.boxedin.conn.online.seat")
    assert seat in (1, 2), seat
    return int(seat)


def in_game(page: Page, game: str | None = None) -> dict[str, Any]:
    """Waits until the page shows an online game (``game``, if given) and returns its state."""
    expect(page.locator(".game-screen.is-online")).to_be_visible(timeout=15000)
    return wait_for_state(page, lambda s: s["opponent"] == "online" and (game is None or s["game"] == game))


def create_room(page: Page, mode: str = "mini") -> str:
    page.get_by_role("button", name="Create Room").click()
    page.locator(f'.mode-card[data-mode="{mode}"]').click()
    page.locator(".play-bar").get_by_role("button", name="Create Room").click()
    code = page.locator(".room-code-chars")
    expect(code).to_have_text(re.compile(r"^[A-HJKMNP-Z2-9]{6}$"))
    return code.inner_text()


def join_room(page: Page, typed: str) -> None:
    page.get_by_label("Join Room").fill(typed)
    page.get_by_role("button", name="Join", exact=True).click()


def room_game(device: Callable[..., Page], url: str, mode: str = "mini") -> tuple[Page, Page, str]:
    """Ada creates a room, Bo joins it: both pages in the game; returns them and the game id."""
    ada = device(url, name="Ada")
    bo = device(url, name="Bo", size=PHONE, theme="dark", touch=True)
    go_online(ada)
    code = create_room(ada, mode)
    go_online(bo)
    join_room(bo, code)
    g = in_game(bo)
    in_game(ada, g["game"])
    return ada, bo, g["game"]


def play_step(page: Page, g: dict[str, Any], touch: bool = False) -> dict[str, Any]:
    """One step of the turn of the player on this page: the roll, or an edge (by a click or tap)."""
    seq = g["seq"]
    if g["phase"] == "roll":
        page.get_by_role("button", name="Roll Dice").click()
    else:
        (tap_edge if touch else click_edge)(page, best_edge(g, g["to_move"]))
    return wait_for_state(page, lambda s: s["seq"] > seq)


def play_to_end(pages: dict[int, Page], *, touch: set[int] = frozenset(), max_steps: int = 200) -> dict[str, Any]:
    """Plays the online game on the two pages (by seat) to its end, every move on the page of the
    player to move, each waiting for the state the other page saw last."""
    g = game_state(pages[1])
    assert g is not None
    for _ in range(max_steps):
        seq = g["seq"]
        g = wait_for_state(pages[1], lambda s, seq=seq: s["seq"] >= seq)
        if g["over"]:
            break
        mover = pages[g["to_move"]]
        g = wait_for_state(mover, lambda s, seq=g["seq"]: s["seq"] >= seq)
        g = play_step(mover, g, touch=g["to_move"] in touch)
    else:
        raise AssertionError("the game did not end")
    for page in pages.values():
        wait_for_state(page, lambda s: s["over"])
    return g


def result_dialog(page: Page) -> Any:
    dialog = page.locator("dialog.result-dialog")
    expect(dialog).to_be_visible(timeout=15000)
    return dialog


def never_says_no_scoring_move_was_left(dialog: Any) -> None:
    """Rules notes, Forfeits: a forfeit's window names its reason and never says that no scoring
    move was left (that note is for a game that really stopped with edges open)."""
    expect(dialog.locator(".note")).to_have_count(0)
    expect(dialog).not_to_contain_text("No scoring moves were left")


def finished_counts(page: Page) -> dict[str, int]:
    raw = page.evaluate(f"() => localStorage.getItem('{FINISHED_KEY}')")
    return json.loads(raw)["counts"] if raw else {}


def board_shots(shot: Callable[[Any, str], Any], pages: dict[str, Page]) -> None:
    """Both players' boards in the final position (the result window closed)."""
    for label, page in pages.items():
        dialog = page.locator("dialog.result-dialog")
        if dialog.is_visible():
            dialog.get_by_role("button", name="View board").click()
        expect(page.get_by_role("button", name="Results")).to_be_visible()
        shot(page, f"{label}-final")


def accessible(page: Page, what: str) -> None:
    """axe-core finds nothing against WCAG 2 A/AA on the page as it is (the mouse moved away)."""
    page.mouse.move(0, 0)
    found = axe_violations(page)
    assert not found, f"{what}: {found}"


def no_errors(*pages: Page, expected: frozenset[str] = frozenset()) -> None:
    """No script errors on the pages, and no error frames but the ``expected`` codes."""
    for page in pages:
        assert not page.errors, page.errors  # type: ignore[attr-defined]
        codes = [json.loads(f)["code"] for f in page.server_errors]  # type: ignore[attr-defined]
        assert set(codes) <= expected, page.server_errors  # type: ignore[attr-defined]


# --- whole games -----------------------------------------------------------------------------------


def test_a_whole_game_through_a_room_code(device, web_url, shot):
    ada = device(web_url)  # no name yet: the first time, the name is chosen
    go_online(ada)
    name = ada.get_by_label("Your name")
    name.fill("<b>Ada</b>")
    ada.get_by_role("button", name="Continue").click()
    expect(ada.locator("#online-name-error")).to_have_text("Use only letters, digits, spaces, _ and -.")
    accessible(ada, "the name with an error")
    name.fill("x" * 21)
    ada.get_by_role("button", name="Continue").click()
    expect(ada.locator("#online-name-error")).to_contain_text("at most 20 characters")
    name.fill("  Ada Lovelace  ")
    ada.get_by_role("button", name="Continue").click()
    expect(ada.locator(".name-chip")).to_contain_text("Ada Lovelace")
    assert ada.evaluate("() => localStorage.getItem('boxedin.online.name')") == "Ada Lovelace"
    expect(ada.locator(".players-online")).to_have_text(re.compile(r"^\d+ players? online$"))
    expect(ada.locator(".match-mode")).to_have_count(9)  # the nine modes, no practice boards
    accessible(ada, "the online menu")

    code = create_room(ada, "mini")
    expect(ada.locator(".room-game")).to_have_text("Mini")
    expect(ada.locator(".online-wait")).to_have_text("Waiting for your friend to join…")
    ada.get_by_role("button", name="Copy").click()
    expect(ada.locator("#toast")).to_have_text("Code copied")
    assert ada.evaluate("() => navigator.clipboard.readText()") == code
    shot(ada, "ada-room")
    accessible(ada, "the room")

    bo = device(web_url, name="Bo", size=PHONE, theme="dark", touch=True)
    go_online(bo)
    join_room(bo, "K7")  # checked before it is sent
    expect(bo.locator("#room-code-error")).to_have_text("A room code has 6 characters; this one has 2.")
    join_room(bo, "ZZZ-ZZZ" if code != "ZZZZZZ" else "YYY-YYY")  # nobody's room
    expect(bo.locator("#room-code-error")).to_have_text("There is no room with this code. Check it with your friend.")
    accessible(bo, "the online menu with a join error, phone, dark")
    join_room(bo, f"{code[:3].lower()}-{code[3:].lower()} ")  # lower case, a dash and a space
    g = in_game(bo)
    in_game(ada, g["game"])
    assert g["mode"] == "mini" and g["online"]["via"] == "room" and g["online"]["move_limit"] == 0
    assert [p["name"] for p in g["players"]] in (["Ada Lovelace", "Bo"], ["Bo", "Ada Lovelace"])
    pages = {seat_of(ada): ada, seat_of(bo): bo}
    assert set(pages) == {1, 2}

    for page, me, other in ((ada, "Ada Lovelace", "Bo"), (bo, "Bo", "Ada Lovelace")):
        seat = seat_of(page)
        expect(page.locator(f".score-card.p{seat} .score-name")).to_have_text(me)
        expect(page.locator(f".score-card.p{seat} .you-tag")).to_be_visible()
        expect(page.locator(f".score-card.p{3 - seat} .score-name")).to_have_text(other)
        expect(page.locator(".status")).to_have_text(
            "Your turn — roll the dice" if g["to_move"] == seat else f"{other}'s turn"
        )
        expect(page.get_by_role("button", name="Undo")).to_be_hidden()
        expect(page.locator(".clock")).to_be_hidden()
        expect(page.locator(".move-limit")).to_be_hidden()  # rooms have no move limit
        waiting = page if g["to_move"] != seat else None
        if waiting is not None:
            expect(waiting.get_by_role("button", name="Roll Dice")).to_be_disabled()

    accessible(ada, "an online game")
    accessible(bo, "an online game, phone, dark")
    g = play_to_end(pages, touch={seat_of(bo)})
    assert sum(g["scores"]) == 9 and g["winner"] in (1, 2) and g["online"]["forfeit"] is None
    winner, loser = pages[g["winner"]], pages[3 - g["winner"]]
    winner_name = g["players"][g["winner"] - 1]["name"]
    expect(result_dialog(winner).locator("h2")).to_have_text("You won!")
    expect(result_dialog(loser).locator("h2")).to_have_text(f"{winner_name} wins")
    for page in (ada, bo):
        expect(result_dialog(page).get_by_role("button", name="Rematch")).to_be_enabled()
        expect(page.locator(".forfeit-line")).to_be_hidden()
        assert finished_counts(page) == {"mini": 1}
    accessible(loser, "the result window")
    board_shots(shot, {"ada": ada, "bo": bo})

    # Exit declines the rematch: the other player is told, and back on the online menu Mini is
    # this device's most played.
    ada.get_by_role("button", name="Results").click()
    result_dialog(ada).get_by_role("button", name="Exit").click()
    expect(ada.locator(".online-screen")).to_be_visible()
    expect(ada.locator('.match-mode[data-mode="mini"] .match-marks')).to_contain_text("Your most played")
    bo.get_by_role("button", name="Results").click()
    expect(result_dialog(bo).locator(".rematch-line")).to_have_text("Ada Lovelace declined a rematch.")
    expect(result_dialog(bo).get_by_role("button", name="Rematch")).to_be_disabled()
    no_errors(ada, bo, expected=frozenset({"no_room"}))


def test_a_whole_game_through_find_match_then_a_rematch_with_the_first_move_swapped(device, web_url, shot):
    ada = device(web_url, name="Ada")
    bo = device(web_url, name="Bo", size=PHONE, theme="dark")
    go_online(ada)
    ada.locator('.match-mode[data-mode="mini"]').click()
    expect(ada.locator(".online-wait")).to_have_text("Looking for a player in Mini…")
    ada.get_by_role("button", name="Cancel").click()
    expect(ada.locator(".match-list")).to_be_visible()
    ada.locator('.match-mode[data-mode="mini"]').click()
    expect(ada.locator(".online-wait")).to_have_text("Looking for a player in Mini…")
    accessible(ada, "looking for a match")

    go_online(bo)
    mini = bo.locator('.match-mode[data-mode="mini"]')
    expect(mini.locator(".match-marks")).to_contain_text("Opponent waiting", timeout=10000)
    accessible(bo, "the online menu with marks, phone, dark")
    mini.click()
    g = in_game(bo)
    in_game(ada, g["game"])
    assert g["mode"] == "mini" and g["online"]["via"] == "find_match" and g["online"]["move_limit"] == 120
    pages = {seat_of(ada): ada, seat_of(bo): bo}
    first = g["first"]
    mover = pages[g["to_move"]]
    expect(mover.locator(".move-limit")).to_have_text(re.compile(r"^Your move: [12]:\d\d left$"))
    mover_name = g["players"][g["to_move"] - 1]["name"]
    expect(pages[3 - g["to_move"]].locator(".move-limit")).to_have_text(
        re.compile(rf"^{mover_name}'s move: [12]:\d\d left$")
    )

    g = play_to_end(pages)
    assert sum(g["scores"]) == 9
    for page in (ada, bo):
        expect(result_dialog(page).locator("h2")).to_have_text(re.compile("^(You won!|Ada wins|Bo wins)$"))
        expect(page.locator(".move-limit")).to_be_hidden()
    board_shots(shot, {"ada": ada, "bo": bo})

    # Rematch: Ada asks, Bo sees it and accepts; the next game starts on both with the player who
    # went second moving first.
    ada.get_by_role("button", name="Rematch").click()  # the button under the board
    expect(ada.get_by_role("button", name="Rematch")).to_be_disabled()
    ada.get_by_role("button", name="Results").click()
    expect(result_dialog(ada).locator(".rematch-line")).to_have_text("Waiting for Bo…")
    bo.get_by_role("button", name="Results").click()
    expect(result_dialog(bo).locator(".rematch-line")).to_have_text("Ada wants a rematch")
    accessible(bo, "the result window with a rematch asked, phone, dark")
    result_dialog(bo).get_by_role("button", name="Accept rematch").click()
    again = wait_for_state(bo, lambda s: s["game"] != g["game"] and s["opponent"] == "online")
    wait_for_state(ada, lambda s: s["game"] == again["game"])
    assert not again["over"] and again["to_move"] == again["first"]
    # Whoever moved first in the first game moves second now.
    first_name = g["players"][first - 1]["name"]
    assert again["players"][again["first"] - 1]["name"] != first_name
    pages = {seat_of(ada): ada, seat_of(bo): bo}
    for page in (ada, bo):
        expect(page.locator("dialog.result-dialog")).to_have_count(0)
        assert finished_counts(page) == {"mini": 1}
    starter = pages[again["to_move"]]
    expect(starter.locator(".status")).to_have_text("Your turn — roll the dice")
    no_errors(ada, bo)


# --- leaving, connections, the move limit ---------------------------------------------------------


def test_leave_asks_first_and_gives_the_game_to_the_other_player(device, web_url, shot):
    ada, bo, _ = room_game(device, web_url)
    ada.get_by_role("button", name="Leave the game").click()
    confirm = ada.locator("dialog", has_text="Leave the game?")
    expect(confirm).to_contain_text("Leaving gives the game to Bo: Bo wins.")
    confirm.get_by_role("button", name="Stay").click()
    expect(ada.locator(".game-screen.is-online")).to_be_visible()
    assert not game_state(ada)["over"]  # type: ignore[index]

    ada.get_by_role("button", name="Leave the game").click()
    ada.locator("dialog", has_text="Leave the game?").get_by_role("button", name="Leave game").click()
    expect(ada.locator(".online-screen")).to_be_visible()
    g = wait_for_state(bo, lambda s: s["over"])
    assert g["online"]["forfeit"] == {"player": seat_of_name(g, "Ada"), "reason": "left"}
    dialog = result_dialog(bo)
    expect(dialog.locator("h2")).to_have_text("You won!")
    expect(dialog.locator(".forfeit-line")).to_have_text("Ada left the game.")
    expect(dialog.locator(".rematch-line")).to_have_text("Ada left, so there is no rematch.")
    expect(dialog.get_by_role("button", name="Rematch")).to_be_disabled()
    never_says_no_scoring_move_was_left(dialog)
    board_shots(shot, {"bo": bo})
    shot(ada, "ada-online-menu")
    no_errors(ada, bo)


def seat_of_name(g: dict[str, Any], name: str) -> int:
    return next(i + 1 for i, p in enumerate(g["players"]) if p["name"] == name)


def test_a_page_closed_and_reopened_within_the_grace_plays_on(device, web_url, shot):
    ada, bo, game = room_game(device, web_url)
    pages = {seat_of(ada): ada, seat_of(bo): bo}
    g = game_state(ada)
    assert g is not None
    # A dropped socket: the client reconnects by itself, naming the game and its seq.
    bo.evaluate("() => window.boxedin.conn.ws.close()")
    expect(bo.locator(".conn-banner")).to_contain_text("reconnecting")
    bo.wait_for_function("() => window.boxedin.conn.isOpen", timeout=10000)
    expect(bo.locator(".conn-banner")).to_be_hidden()
    wait_for_state(bo, lambda s: s["game"] == game)
    mover = pages[g["to_move"]]
    g = play_step(mover, g)  # play goes on
    wait_for_state(bo, lambda s, seq=g["seq"]: s["seq"] >= seq)

    # Bo closes the page: Ada sees Bo away, with the time Bo has left to come back.
    ctx = bo.context
    bo.close()
    expect(ada.locator(".away-line")).to_have_text(
        re.compile(r"^Bo lost the connection — 1:[0-3]\d left to come back$"), timeout=15000
    )
    expect(ada.locator(".score-card.away .score-name")).to_have_text("Bo")
    shot(ada, "ada-sees-bo-away")

    # Bo opens the page again: the menu offers the running game back, with the time Bo has left
    # to come back counting down (issue 30, point 8), and Rejoin brings it back in one tap.
    bo = open_tab(ctx)
    card = bo.get_by_role("region", name="Online game")
    expect(card).to_contain_text("Online vs Ada")
    grace = card.locator(".grace-line")
    expect(grace).to_have_text(re.compile(r"^Back within 1:[0-3]\d, or Ada wins$"))
    expect(grace).not_to_have_text(grace.inner_text())  # it counts down
    expect(bo.get_by_role("region", name="Continue game")).to_have_count(0)  # not the saved game
    # Being offered the game is not coming back: Ada still sees Bo away.
    expect(ada.locator(".away-line")).to_be_visible()
    shot(bo, "bo-menu-offers-the-game")
    card.get_by_role("button", name="Rejoin").click()
    back = in_game(bo, game)
    assert back["seq"] >= g["seq"] and not back["over"]
    expect(ada.locator(".away-line")).to_be_hidden(timeout=15000)
    pages = {seat_of(ada): ada, seat_of(bo): bo}
    g = wait_for_state(ada, lambda s: s["online"]["connected"] == [True, True])
    mover = pages[g["to_move"]]
    g = play_step(mover, wait_for_state(mover, lambda s, seq=g["seq"]: s["seq"] >= seq))
    for page in (ada, bo):
        wait_for_state(page, lambda s, seq=g["seq"]: s["seq"] >= seq and not s["over"])
    shot(bo, "bo-after-coming-back")
    no_errors(ada, bo)


def test_a_player_away_past_the_grace_loses(device, short_stack, shot):
    ada, bo, _ = room_game(device, short_stack.url())
    bo.close()
    expect(ada.locator(".away-line")).to_contain_text("Bo lost the connection", timeout=10000)
    g = wait_for_state(ada, lambda s: s["over"], timeout=SHORT + 15)
    assert g["online"]["forfeit"] == {"player": seat_of_name(g, "Bo"), "reason": "away"}
    assert g["winner"] == seat_of_name(g, "Ada")
    dialog = result_dialog(ada)
    expect(dialog.locator("h2")).to_have_text("You won!")
    expect(dialog.locator(".forfeit-line")).to_have_text("Bo did not come back in time.")
    never_says_no_scoring_move_was_left(dialog)
    # Bo has gone for good, as after Leave: no Rematch that would wait for ever.
    expect(dialog.locator(".rematch-line")).to_have_text("Bo did not come back, so there is no rematch.")
    expect(dialog.get_by_role("button", name="Rematch")).to_be_disabled()
    expect(ada.locator(".away-line")).to_be_hidden()
    shot(ada, "result-desktop")
    ada.set_viewport_size(PHONE)
    expect(dialog.get_by_role("button", name="Rematch")).to_be_in_viewport()
    shot(ada, "result-phone")
    board_shots(shot, {"ada": ada})
    no_errors(ada)


def test_the_move_limit_running_out_loses_the_game(device, short_stack, shot):
    url = short_stack.url()
    ada = device(url, name="Ada")
    bo = device(url, name="Bo", size=PHONE)
    go_online(ada)
    ada.locator('.match-mode[data-mode="mini"]').click()
    expect(ada.locator(".online-wait")).to_be_visible()
    go_online(bo)
    bo.locator('.match-mode[data-mode="mini"]').click()
    g = in_game(bo)
    in_game(ada, g["game"])
    assert g["online"]["move_limit"] == SHORT
    pages = {seat_of(ada): ada, seat_of(bo): bo}
    mover_no = g["to_move"]
    mover, other = pages[mover_no], pages[3 - mover_no]
    mover_name = g["players"][mover_no - 1]["name"]
    expect(mover.locator(".move-limit")).to_have_text(re.compile(r"^Your move: 0:0[0-4] left$"))
    expect(other.locator(".move-limit")).to_have_text(re.compile(rf"^{mover_name}'s move: 0:0[0-4] left$"))
    # Nobody moves: the player to move loses.
    g = wait_for_state(other, lambda s: s["over"], timeout=SHORT + 15)
    assert g["online"]["forfeit"] == {"player": mover_no, "reason": "move_limit"}
    assert g["winner"] == 3 - mover_no
    expect(result_dialog(mover).locator("h2")).to_have_text(re.compile(r" wins$"))
    expect(result_dialog(mover).locator(".forfeit-line")).to_have_text("You ran out of time.")
    expect(mover.locator(".status")).to_have_text(re.compile(r"^Game over — (Ada|Bo) wins\. You ran out of time\.$"))
    expect(result_dialog(other).locator("h2")).to_have_text("You won!")
    expect(result_dialog(other).locator(".forfeit-line")).to_have_text(f"{mover_name} ran out of time.")
    for page in (mover, other):
        never_says_no_scoring_move_was_left(result_dialog(page))
    expect(result_dialog(other).get_by_role("button", name="Rematch")).to_be_enabled()  # both are still here
    shot(ada, "result-desktop")
    shot(bo, "result-phone")
    board_shots(shot, {"mover": mover, "other": other})
    no_errors(ada, bo)
