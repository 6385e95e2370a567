"""Exact play: the standard-rules solver and expectimax for small dice positions.

Both work on the engine core's ``Position`` (a ``Game``'s ``.position``) and never change it.

- ``solve_standard``: standard rules (no die, 1x1 boxes, a capture owes another line). The value
  of a position for the player to move is their points minus the opponent's from here on under
  perfect play; the line is one best turn (every capture, then the line that passes the turn or
  ends the game). Alpha-beta with a transposition table kept between calls, the capture rules of
  the literature and exact chain/loop leaves (``chains``); the search itself is ``_solver``.
- ``best_dice_turn``: expectimax over the die for dice games. Where what a line scores depends
  on the drawn lines alone (1x1 boxes, or the independent rule) it fills a ``DiceTable`` (every
  set of drawn lines, from the full set down: 15 open lines of Classic in 6 ms, 20 in 0.3 s);
  otherwise it searches on the engine's own ``draw`` and ``undo`` (``DiceSearch``), so every
  overlap rule scores exactly as in play. Both honour chain_reaction's free captures.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache

from boxedin.engine.board import geometry
from boxedin.engine.rules import MODES, Overlap, RuleSet

from ._dice_search import DiceSearch
from ._dice_table import DiceTable
from ._solver import StandardSearch
from .context import Position

# The header and per-box segments of the engine's state array (engine/_core.py): its length tells
# the board. Only the preset shapes are told apart (they all have distinct lengths); other shapes
# must be named with ``rules``.
_HEADER = 8
_PRESET_SIZES: tuple[tuple[int, ...], ...] = ((1,), (1, 2), (1, 2, 3))
# Dice positions with more open lines than this could never be searched exactly.
_DICE_EDGE_LIMIT = 54
# The most values a ``DiceTable`` may hold (8 bytes each): (faces + 1) per set of drawn lines.
# 2**23 is 64 MB: 20 open lines with a d6, 19 with a d8 to d12.
_TABLE_CELLS = 1 << 23


@dataclass(frozen=True, slots=True)
class SolveResult:
    """``value``: the mover's points minus the opponent's from here on, under perfect play.
    ``line``: the lines the mover draws this turn, in order; the last passes the turn or ends the
    game (empty when the game is over)."""

    value: int
    line: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DiceTurn:
    """``value``: the mover's expected points minus the opponent's from here on, with best play
    by both. ``margin``: the expected final margin (today's margin plus ``value``). ``edges``:
    the lines to draw this turn, in order; the turn then ends (End Turn if the roll is not used
    up). Empty when asked in the roll phase or after the game, and when the best is to end the
    turn at once (possible only once a line has been drawn this turn)."""

    value: float
    margin: float
    edges: tuple[int, ...]


# --- the board of a position ------------------------------------------------------------------


def _state_length(boxes: int, sizes: tuple[int, ...]) -> int:
    squares = sum((boxes - k + 1) ** 2 for k in sizes)
    edges = 2 * boxes * (boxes + 1)
    # drawn-by per edge; missing, status, owner, points per square; cover (2) and holder per box
    return _HEADER + edges + 4 * squares + 3 * boxes * boxes


@cache
def _shapes_by_length() -> dict[int, tuple[int, tuple[int, ...]]]:
    shapes: dict[int, tuple[int, tuple[int, ...]]] = {}
    for boxes in range(1, 17):
        for sizes in _PRESET_SIZES:
            if sizes[-1] <= boxes:
                shapes[_state_length(boxes, sizes)] = (boxes, sizes)
    return shapes


def board_shape(position: Position, rules: RuleSet | None = None) -> tuple[int, tuple[int, ...]]:
    """(boxes per side, square sizes) of the position's board: from ``rules`` when given, else
    read off the length of its state (preset shapes only)."""
    if rules is not None:
        return rules.boxes, rules.sizes
    shape = _shapes_by_length().get(len(position.state_array()))
    if shape is None:
        raise ValueError("the board of this position is not a preset shape: pass its rules")
    return shape


def _drawn_mask(position: Position, edge_count: int) -> int:
    mask = 0
    for e in range(edge_count):
        if position.drawn_by(e):
            mask |= 1 << e
    return mask


# --- standard rules ---------------------------------------------------------------------------

_lock = threading.Lock()


@cache
def _standard_search(boxes: int) -> StandardSearch:
    """One search per board size, so its transposition table serves the whole game (values
    count from here on, so they do not depend on how a position was reached)."""
    geo = geometry(boxes, (1,))
    box_edges = [e for b in range(boxes * boxes) for e in geo.outline_ids(b)]
    edge_boxes: list[int] = []
    for e in range(geo.edge_count):
        on = geo.squares_on(e)
        edge_boxes += [on[0], on[1] if len(on) > 1 else -1]
    return StandardSearch(box_edges, edge_boxes)


def _standard_boxes(position: Position, rules: RuleSet | None) -> int:
    if rules is not None and (rules.die is not None or not rules.capture_owes_line or rules.sizes != (1,)):
        raise ValueError("solve_standard is for standard rules: no die, 1x1 boxes, a capture owes a line")
    if position.phase == 0:
        raise ValueError("solve_standard is for standard rules: this position waits for a roll")
    boxes, sizes = board_shape(position, rules)
    if sizes != (1,):
        raise ValueError("solve_standard is for standard rules: 1x1 boxes only")
    if 2 * boxes * (boxes + 1) > 64:
        raise ValueError(f"solve_standard handles boards of up to 5x5 boxes, not {boxes}x{boxes}")
    return boxes


def solve_standard(
    position: Position,
    *,
    max_nodes: int | None = None,
    deadline: float | None = None,
    rules: RuleSet | None = None,
) -> SolveResult | None:
    """The exact value and one best turn for the player to move, or None if the budget runs out.

    ``max_nodes`` bounds the search nodes; ``deadline`` is a ``time.perf_counter()`` instant.
    ``rules`` is only needed for boards that are not a preset shape.
    """
    if position.over:
        return SolveResult(0, ())
    boxes = _standard_boxes(position, rules)
    mask = _drawn_mask(position, 2 * boxes * (boxes + 1))
    with _lock:
        found = _standard_search(boxes).solve(mask, max_nodes or 0, deadline or 0.0)
    if found is None:
        return None
    value, line = found
    return SolveResult(int(value), tuple(int(e) for e in line))


def standard_endgame_small_enough(position: Position, rules: RuleSet | None = None) -> bool:
    """Whether ``solve_standard`` is expected to finish within about half a second here (from
    an empty table; the table kept from earlier turns only makes it faster).

    Measured on this machine (2 cores) on positions from play that gives nothing away while it
    can: the cost grows with the open lines and above all with the lines that are still safe
    (they leave no box with three sides); once few safe lines are left, chains make even long
    endgames cheap. Callers should still pass a deadline.
    """
    if position.over:
        return True
    boxes, _ = board_shape(position, rules)
    if boxes not in _SMALL_OPEN:
        return False  # too big a board for ``solve_standard``
    boxes = _standard_boxes(position, rules)
    geo = geometry(boxes, (1,))
    open_lines = position.open_edge_list()
    limit = _SMALL_OPEN[boxes]
    if len(open_lines) <= limit:
        return True
    if len(open_lines) > limit + _SETTLED_EXTRA:
        return False
    safe = sum(1 for e in open_lines if all(position.missing(q) > 2 for q in geo.squares_on(e)))
    return safe <= _SETTLED_SAFE


# Thresholds of ``standard_endgame_small_enough``. Solve times measured with an empty table, in
# CPU seconds, typical and worst of 8 positions: 5x5 at 36 open lines 0.07 / 0.18, at 37 with at
# most 12 safe lines 0.2 / 0.34 (38 open: 0.6 / 1.5; 40 open: about 5); 4x4 at 28 open 0.1 / 0.3
# (30 open: 0.8 / 3); 3x3 at 23 open 0.25 / 0.3 (the whole board, 24 lines: 1.2).
_SMALL_OPEN = {1: 4, 2: 12, 3: 23, 4: 28, 5: 36}
_SETTLED_EXTRA = 3
_SETTLED_SAFE = 12


# --- dice games -------------------------------------------------------------------------------


def _die_of(position: Position, rules: RuleSet | None, die: int | None) -> tuple[int, bool]:
    """(faces of the die, whether what a line scores depends on the drawn lines alone: 1x1 boxes
    only, or the independent rule; then the search can forget who owns what)."""
    boxes, sizes = board_shape(position, rules)
    simple = sizes == (1,) or (rules is not None and rules.overlap is Overlap.INDEPENDENT)
    if die is None and rules is not None:
        die = rules.die
    if die is None:
        # The preset dice modes each have a board shape of their own.
        board = (boxes, sizes)
        faces = {m.rules.die for m in MODES.values() if m.rules.die and (m.rules.boxes, m.rules.sizes) == board}
        if len(faces) != 1:
            raise ValueError("the die of this position is not known: pass its rules")
        die = faces.pop()
    return die, simple


def best_dice_turn(
    position: Position,
    *,
    deadline: float | None = None,
    rules: RuleSet | None = None,
    die: int | None = None,
) -> DiceTurn | None:
    """Expectimax over the die: the mover's expected result with best play and, in the draw
    phase, the lines to draw this turn. None when ``deadline`` (``time.perf_counter()``) passes.

    Meant for small positions (the rule book's Expert plays exactly from 14 open lines down).
    The die is ``die``, else ``rules.die``, else that of the preset dice mode of this board shape.
    Pass ``rules`` on boards with larger squares: under the independent rule the search is then
    much faster (it need not tell apart who owns which square).
    """
    me = position.to_move
    now = position.score(me) - position.score(1 - me)
    if position.over:
        return DiceTurn(0.0, float(now), ())
    if position.open_edges > _DICE_EDGE_LIMIT:
        raise ValueError(f"exact dice play is for small positions, not {position.open_edges} open lines")
    faces, simple = _die_of(position, rules, die)
    if simple and (faces + 1) << position.open_edges <= _TABLE_CELLS:
        return _table_turn(position, faces, rules, deadline)
    search = DiceSearch(position.copy(), faces, simple)
    found = search.best_turn(deadline or 0.0)
    if found is None:
        return None
    value, edges = found
    return DiceTurn(float(value), float(now + value), tuple(int(e) for e in edges))


def dice_table(position: Position, faces: int, rules: RuleSet | None = None) -> tuple[DiceTable, list[int]]:
    """The (unsolved) ``DiceTable`` of a position whose scoring depends on the drawn lines alone,
    and the engine's edge id of each of its root lines."""
    boxes, sizes = board_shape(position, rules)
    geo = geometry(boxes, sizes)
    lines = list(position.open_edge_list())
    index = {e: i for i, e in enumerate(lines)}
    start = [0]
    need: list[int] = []
    points: list[int] = []
    for e in lines:
        for q in geo.squares_on(e):
            if not position.capturable(q):
                continue
            mask = 0
            for f in geo.outline_ids(q):
                if position.drawn_by(f) == 0:
                    mask |= 1 << index[f]
            need.append(mask)
            points.append(geo.square_size[q] ** 2)
        start.append(len(need))
    return DiceTable(len(lines), faces, position.capturing_edge_free, start, need, points), lines


def _table_turn(position: Position, faces: int, rules: RuleSet | None, deadline: float | None) -> DiceTurn | None:
    me = position.to_move
    now = position.score(me) - position.score(1 - me)
    table, lines = dice_table(position, faces, rules)
    if not table.solve(deadline or 0.0):
        return None
    if position.phase == 0:
        value = table.roll_value(0)
        return DiceTurn(value, now + value, ())
    value, plan, _ = table.best_lines(0, position.edges_left, position.drawn_this_turn > 0)
    return DiceTurn(value, now + value, tuple(lines[i] for i in plan))
