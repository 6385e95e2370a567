"""Finished games for the stats tests, built with the engine and read back as the stats service
reads them: a ``FinishedGame`` (codec record, seats, server clock) and ``game_outcome``.

``box_game`` plays a whole game in which the tests decide who completes every box: ``owners``
names, row by row, the seat (1 or 2) that draws each box's last edge. Boxes are completed in
reading order (row by row, left to right), so the figures are easy to work out by hand:

- In modes with 1x1 boxes only, a seat's final score is the number of boxes it owns.
- When box (r, c) is completed, every larger square whose bottom-right box it is, is completed
  by the same edge: the 2x2 at (r-1, c-1) and the 3x3 at (r-2, c-2). Everything else in their
  outlines was drawn before, with the boxes above and to the left.

The owner of the next box draws all its missing edges in one turn (and as many following boxes of
its own as its roll allows); when the other seat is to move, it rolls 1 and draws one edge of
that box that completes nothing (or, if that box lacks only one edge, an edge somewhere that
completes nothing). ``max_roll`` caps a seat's rolls; the owner then builds a box over several
turns. After every edge the helper checks that only the planned box was completed. Under
Standard rules on the smallest boards, the parity of the lines left can force a seat to give a
box away; the helper then fails with "no edge left that completes nothing".

``edges_in_order`` plays a dice game with rolls the test chooses: each turn draws as many edges as
the roll, in edge order (every horizontal edge, row by row, then every vertical one).
"""

from __future__ import annotations

from collections.abc import Sequence

from boxedin.engine import codec
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap
from boxedin.stats.model import DeviceStats, GameOutcome, GameResult, apply_game, game_outcome
from boxedin.v1 import common_pb2

ME = "a1" * 32  # the SHA-256 (hex) of this device's token
FRIEND = "f2" * 32  # another person's device, online

# Quick (d6, 60 edges), seat 1 first: five times 6 and 4 take 50 edges, a 2 and a 4 take 6 more,
# and seat 1's last 6 finds 4 edges open: the roll is a 4.
QUICK_LAST_SIX_ON_FOUR_EDGES = (*[6, 4] * 5, 2, 4, 6)

# A box's outline from Geometry.outline_ids: top, bottom, left, right.
_OWN_ORDER = (0, 2, 3, 1)  # the owner draws top, left, right, then bottom
_QUIET_ORDER = (3, 1, 0, 2)  # the other seat prefers the right edge, then the bottom


def ai_seats(level: str = "normal", *, device: str = ME, my_seat: int = 1) -> list[common_pb2.SeatInfo]:
    me = common_pb2.SeatInfo(kind="human", device=device, name="Me")
    ai = common_pb2.SeatInfo(kind="ai", level=level, name=f"AI ({level.title()})")
    return [me, ai] if my_seat == 1 else [ai, me]


def local_seats(device: str = ME) -> list[common_pb2.SeatInfo]:
    return [
        common_pb2.SeatInfo(kind="human", device=device, name="Player 1"),
        common_pb2.SeatInfo(kind="human", device=device, name="Player 2"),
    ]


def practice_seats(device: str = ME) -> list[common_pb2.SeatInfo]:
    return [
        common_pb2.SeatInfo(kind="human", device=device, name="Me"),
        common_pb2.SeatInfo(kind="practice", name="Computer"),
    ]


def online_seats(*, device: str = ME, other: str = FRIEND, my_seat: int = 1) -> list[common_pb2.SeatInfo]:
    me = common_pb2.SeatInfo(kind="human", device=device, name="Me")
    them = common_pb2.SeatInfo(kind="human", device=other, name="Friend")
    return [me, them] if my_seat == 1 else [them, me]


def finished(
    game: Game,
    seats: Sequence[common_pb2.SeatInfo] | None = None,
    *,
    game_id: str = "g1",
    created: float = 1_000.0,
    ended: float = 1_060.0,
) -> common_pb2.FinishedGame:
    return common_pb2.FinishedGame(
        game_id=game_id,
        record=codec.encode(game),
        seats=list(ai_seats() if seats is None else seats),
        created=created,
        ended=ended,
    )


def facts_of(
    game: Game,
    seats: Sequence[common_pb2.SeatInfo] | None = None,
    *,
    device: str = ME,
    game_id: str = "g1",
    created: float = 1_000.0,
    ended: float = 1_060.0,
) -> GameOutcome:
    return game_outcome(finished(game, seats, game_id=game_id, created=created, ended=ended), device)


def count(
    stats: DeviceStats,
    game: Game,
    seats: Sequence[common_pb2.SeatInfo] | None = None,
    *,
    game_id: str = "g1",
    created: float = 1_000.0,
    ended: float = 1_060.0,
    now: float = 5_000.0,
) -> GameResult:
    """Counts a finished game for this device, as the stats service does."""
    facts = facts_of(game, seats, game_id=game_id, created=created, ended=ended)
    return apply_game(stats, facts, now)


# --------------------------------------------------------------------------------------------
# Building games
# --------------------------------------------------------------------------------------------


def box_game(
    mode: str,
    owners: str,
    *,
    overlap: str | None = None,
    first: int = 1,
    max_roll: dict[int, int] | None = None,
) -> Game:
    game = Game.from_mode(MODES[mode], Overlap.from_id(overlap) if overlap else None, first=first)
    n = game.rules.boxes
    owner = [int(ch) for ch in owners if ch in "12"]
    assert len(owner) == n * n, f"{mode} has {n * n} boxes, the plan names {len(owner)}"
    geo, pos = game.geo, game.position
    outline = [geo.outline_ids(b) for b in range(n * n)]
    die = game.rules.die
    limit = {p: (max_roll or {}).get(p, die or 1) for p in (1, 2)}

    def missing(b: int, order: Sequence[int] = _OWN_ORDER) -> list[int]:
        return [outline[b][i] for i in order if game.is_open(outline[b][i])]

    def target() -> int:
        return next(b for b in range(n * n) if pos.missing(b) > 0)

    def quiet_edge(b: int) -> int:
        """An edge for the seat that does not own box b: one of b's, or one elsewhere, that
        completes nothing."""
        if pos.missing(b) >= 2:
            return missing(b, _QUIET_ORDER)[0]
        for least in (3, 2):
            for e in reversed(pos.open_edge_list()):
                if all(pos.missing(q) >= least for q in geo.squares_on(e)):
                    return int(e)
        raise AssertionError("no edge left that completes nothing")

    def draw(e: int) -> None:
        move = game.draw(geo.edges[e])
        # The edge was open, so a box on it with its whole outline drawn was completed just now.
        for q in geo.squares_on(e):
            if q < n * n and pos.missing(q) == 0 and owner[q] != move.player:
                raise AssertionError(f"box {divmod(q, n)} was completed by {move.player}, planned {owner[q]}")

    while not game.over:
        p = game.to_move
        assert p is not None
        b = target()
        if die is None:  # a line at a time
            draw(missing(b)[0] if owner[b] == p else quiet_edge(b))
            continue
        if owner[b] != p:
            plan = [quiet_edge(b)]
        else:
            budget = limit[p]
            plan = missing(b)
            if len(plan) > budget:
                plan = plan[: min(budget, len(plan) - 1)]
            else:
                for nxt in range(b + 1, n * n):
                    more = [e for e in missing(nxt) if e not in plan]
                    if owner[nxt] != p or len(plan) + len(more) > budget:
                        break
                    plan += more
        game.roll(len(plan))
        for e in plan:
            if game.over:
                break
            draw(e)
        if not game.over and game.to_move == p and game.phase == "draw":
            game.end_turn()
    return game


def edges_in_order(mode: str, rolls: Sequence[int], *, first: int = 1) -> Game:
    """Each turn rolls the next face of ``rolls`` and draws that many edges (fewer at the end)."""
    return play_on(Game.from_mode(MODES[mode], first=first), rolls)


def play_on(game: Game, rolls: Sequence[int]) -> Game:
    """Plays a dice game on to its end: each turn rolls the next face of ``rolls`` and draws that
    many of the open edges, in edge order."""
    for face in rolls:
        game.roll(face)
        for _ in range(face):
            if game.over:
                break
            game.draw(next(e for e in game.geo.edges if game.is_open(game.geo.edge_id(e))))
        if game.over:
            break
    assert game.over, "the rolls did not last the whole game"
    return game
