"""Chains and loops of standard Dots and Boxes (1x1 boxes, a capture owes another line).

A *simple loony endgame* is a position where every box still open has exactly two sides drawn:
the boxes then fall into independent components, each a chain (a row of boxes whose two ends
meet the rim) or a loop (a ring of boxes). Every line opens a component, and the opponent then
either takes all of it (and must open the next one) or declines the last two boxes of a chain /
the last four of a loop (the double-cross) to keep control. Berlekamp's "The Dots and Boxes Game"
shows that these are the only replies worth considering, so the exact value is a small search over
which component to open next. That search is ``loony_value``; the solver calls it as an exact
leaf, and the players can use ``components`` and ``controlled_value`` directly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from boxedin.engine.board import geometry

from .context import Position


@dataclass(frozen=True, slots=True)
class Component:
    """One chain or loop: its boxes in order along it, and the open lines that run through it."""

    loop: bool
    boxes: tuple[int, ...]
    lines: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.boxes)

    def opening_line(self) -> int:
        """The line that opens it at the least cost to the opener: the middle line of a 2-chain
        (the opponent cannot decline two boxes given that way), else the first line."""
        if not self.loop and self.size == 2:
            return self.lines[1]
        return self.lines[0]


def components(position: Position, boxes: int) -> list[Component] | None:
    """The chains and loops of a standard position on a board of ``boxes`` x ``boxes``, or None
    unless every box still open has exactly two sides drawn (a simple loony endgame)."""
    geo = geometry(boxes, (1,))
    open_boxes = [b for b in range(boxes * boxes) if position.square_status(b) == 0]
    if any(position.missing(b) != 2 for b in open_boxes):
        return None

    def open_lines(b: int) -> list[int]:
        return [e for e in geo.outline_ids(b) if position.drawn_by(e) == 0]

    def across(e: int, b: int) -> int:
        # The box on the other side of a line, or -1 at the rim.
        others = [q for q in geo.squares_on(e) if q != b]
        return others[0] if others else -1

    seen: set[int] = set()
    found: list[Component] = []
    for start in open_boxes:
        if start in seen:
            continue
        seen.add(start)
        first, second = open_lines(start)
        forward, forward_lines, closed = _walk(start, first, open_lines, across)
        if closed:
            found.append(Component(True, (start, *forward), (first, *forward_lines)))
            seen.update(forward)
            continue
        backward, backward_lines, _ = _walk(start, second, open_lines, across)
        seen.update(forward)
        seen.update(backward)
        # Lay the chain out from one rim to the other: lines and boxes alternate.
        chain_boxes = (*reversed(backward), start, *forward)
        chain_lines = (*reversed(backward_lines), second, first, *forward_lines)
        found.append(Component(False, chain_boxes, chain_lines))
    return found


def _walk(
    start: int,
    line: int,
    open_lines: Callable[[int], list[int]],
    across: Callable[[int, int], int],
) -> tuple[list[int], list[int], bool]:
    """Follows a component from ``start`` out through ``line``: the boxes met, the line crossed
    out of each of them, and whether the walk came back to ``start`` (a loop)."""
    boxes: list[int] = []
    lines: list[int] = []
    box, e = start, line
    while True:
        nxt = across(e, box)
        if nxt < 0:
            return boxes, lines, False
        if nxt == start:
            return boxes, lines, True
        boxes.append(nxt)
        e = next(f for f in open_lines(nxt) if f != e)
        lines.append(e)
        box = nxt


def sizes_of(found: list[Component]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(chain lengths, loop lengths), each sorted: the key of ``loony_value``."""
    chains = tuple(sorted(c.size for c in found if not c.loop))
    loops = tuple(sorted(c.size for c in found if c.loop))
    return chains, loops


@lru_cache(maxsize=1 << 16)
def loony_value(chains: tuple[int, ...], loops: tuple[int, ...]) -> int:
    """The exact value, for the player who must open one of them, of a position made of these
    chains and loops only (their final boxes minus the opponent's, from here on).

    Arguments are sorted tuples of lengths (chains >= 1, loops >= 4). Opening a chain of 1 or 2
    hands it over outright; a longer chain or any loop lets the opponent choose between taking
    everything and moving next, or declining the last 2 (chain) or 4 (loop) boxes so that the
    opener must move next.
    """
    best: int | None = None
    for i, c in enumerate(chains):
        if i > 0 and chains[i - 1] == c:
            continue  # the same move as the chain before
        rest = loony_value(chains[:i] + chains[i + 1 :], loops)
        theirs = c + rest if c <= 2 else max(c + rest, c - 4 - rest)
        best = -theirs if best is None else max(best, -theirs)
    for i, size in enumerate(loops):
        if i > 0 and loops[i - 1] == size:
            continue
        rest = loony_value(chains, loops[:i] + loops[i + 1 :])
        theirs = max(size + rest, size - 8 - rest)
        best = -theirs if best is None else max(best, -theirs)
    return 0 if best is None else best


def controlled_value(chains: tuple[int, ...], loops: tuple[int, ...]) -> int:
    """Berlekamp's controlled value of long chains (3 or more) and loops: the margin of the player
    in control (the one the other must open every component for) if they keep control to the end,
    declining the last 2 boxes of every chain and the last 4 of every loop but the last component.
    Loops are best opened first, so the last component is a chain when there is one. The
    controller can always get this much, so it is a lower bound of their exact value (the
    negation of ``loony_value``); the exact value can be higher, when giving up control pays."""
    if any(c < 3 for c in chains):
        raise ValueError(f"controlled value is for long chains only, not {chains}")
    total = sum(chains) + sum(loops)
    long_chains = sum(1 for c in chains if c >= 3)
    value = total - 4 * long_chains - 8 * len(loops)
    if long_chains:
        value += 4
    elif loops:
        value += 8
    return value
