"""How the test players choose an edge from a game state alone, now that previews are sent only
in practice games: from the board's drawn edges, counting the sides of each box. Exact for the
boxes (1x1 squares); in modes with larger squares it is only a fair player, which is all the
tests that use it need."""

from __future__ import annotations

from typing import Any

from boxedin.tools.load.loadtest import open_edges  # the board's edges not drawn yet, from the state

Edge = list[Any]


def boxes_of(edge: Edge, boxes: int) -> list[tuple[int, int]]:
    """The boxes an edge is a side of."""
    o, r, c = edge
    if o == "h":
        return [(br, c) for br in (r - 1, r) if 0 <= br < boxes]
    return [(r, bc) for bc in (c - 1, c) if 0 <= bc < boxes]


def sides_drawn(state: dict[str, Any]) -> dict[tuple[int, int], int]:
    n = state["boxes"]
    count = {(r, c): 0 for r in range(n) for c in range(n)}
    for o, r, c, _ in state["edges"]:
        for box in boxes_of([o, r, c], n):
            count[box] += 1
    return count


def boxes_completed(state: dict[str, Any], edge: Edge) -> int:
    """How many boxes drawing ``edge`` completes."""
    sides = sides_drawn(state)
    return sum(1 for box in boxes_of(edge, state["boxes"]) if sides[box] == 3)


def choose_edge(state: dict[str, Any], prefer_capture: bool = True) -> Edge:
    """Completes a box if it can (or, with ``prefer_capture`` off, avoids it), else draws an
    edge that leaves no box one side short, else the one that leaves the fewest."""
    sides = sides_drawn(state)
    n = state["boxes"]

    def worth(edge: Edge) -> tuple[int, int]:
        around = [sides[box] for box in boxes_of(edge, n)]
        completes = sum(1 for s in around if s == 3)
        hands_over = sum(1 for s in around if s == 2)
        return (completes if prefer_capture else -completes, -hands_over)

    return max(open_edges(state), key=worth)
