"""The geometry of a board: edges, boxes and squares, numbered once and shared by every game.

Edges are numbered horizontal first (row, then column), then vertical, so the order of edge
numbers is the order the replay contract sorts edges in. Squares are numbered by size, then row,
then column; the 1x1 square number of a box is the box number (row * boxes + column).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import cache
from typing import Literal

EdgeId = int
SquareId = int
Orientation = Literal["h", "v"]


class EdgeError(ValueError):
    """An edge that is not on the board."""


@dataclass(frozen=True, slots=True, order=True)
class Edge:
    """An edge in the coordinates of the rules notes: ``h`` joins (r, c)-(r, c+1), ``v`` (r, c)-(r+1, c)."""

    orientation: Orientation
    row: int
    col: int

    def to_json(self) -> list[object]:
        return [self.orientation, self.row, self.col]

    def __str__(self) -> str:
        return f"{self.orientation}{self.row},{self.col}"


@dataclass(frozen=True, slots=True, order=True)
class Square:
    """A square of ``size`` boxes per side whose top-left box is (row, col)."""

    size: int
    row: int
    col: int

    @property
    def points(self) -> int:
        return self.size * self.size


def _csr(lists: list[list[int]]) -> tuple[array[int], array[int]]:
    """Packs a list of lists into start offsets and one flat array, for the compiled core."""
    starts = array("i", [0])
    flat = array("i")
    for items in lists:
        flat.extend(items)
        starts.append(len(flat))
    return starts, flat


class Geometry:
    """Every fact about a board that does not change during a game, built once per board."""

    def __init__(self, boxes: int, sizes: tuple[int, ...]) -> None:
        n = self.boxes = boxes
        self.sizes = sizes
        self.horizontal_count = (n + 1) * n
        self.edge_count = 2 * n * (n + 1)
        self.edges: tuple[Edge, ...] = tuple(
            [Edge("h", r, c) for r in range(n + 1) for c in range(n)]
            + [Edge("v", r, c) for r in range(n) for c in range(n + 1)]
        )
        self.squares: tuple[Square, ...] = tuple(
            Square(k, r, c) for k in sizes for r in range(n - k + 1) for c in range(n - k + 1)
        )
        self.square_count = len(self.squares)
        self._square_ids = {sq: i for i, sq in enumerate(self.squares)}
        # Each edge as JSON, alone and drawn by player 1 or 2: built once, shared by every view
        # of a game on this board (never changed), which also lets comparing two views of the
        # board find the edges they share by identity. Drawn: at ``edge * 2 + player - 1``, as
        # the position's ``drawn_codes`` names them.
        self.edge_json: tuple[list[object], ...] = tuple(e.to_json() for e in self.edges)
        self.drawn_edge_json: tuple[list[object], ...] = tuple(
            drawn for e in self.edges for drawn in ([*e.to_json(), 1], [*e.to_json(), 2])
        )

        outline = [[self.edge_id(e) for e in self.outline_of(sq)] for sq in self.squares]
        boxes_of = [
            [r * n + c for r in range(sq.row, sq.row + sq.size) for c in range(sq.col, sq.col + sq.size)]
            for sq in self.squares
        ]
        inside = [[j for j, t in enumerate(self.squares) if t.size < sq.size and _within(t, sq)] for sq in self.squares]
        around = [[j for j, t in enumerate(self.squares) if t.size > sq.size and _within(sq, t)] for sq in self.squares]
        on_edge: list[list[int]] = [[] for _ in range(self.edge_count)]
        for q, edges in enumerate(outline):
            for e in edges:
                on_edge[e].append(q)
        # Resolution order of squares completed by one edge: largest first, or smallest first
        # (builder, majority); squares of one size in row-major order. Square ids already run
        # smallest first in row-major order, so each list needs only a stable sort by size.
        ascending = [sorted(qs) for qs in on_edge]
        descending = [sorted(qs, key=lambda q: -self.squares[q].size) for qs in ascending]

        self.outline_start, self.outline = _csr(outline)
        self.boxes_start, self.box_of_square = _csr(boxes_of)
        self.inside_start, self.inside = _csr(inside)
        self.around_start, self.around = _csr(around)
        self.on_edge_asc_start, self.on_edge_asc = _csr(ascending)
        self.on_edge_desc_start, self.on_edge_desc = _csr(descending)
        self.square_size = array("i", [sq.size for sq in self.squares])
        self.max_squares_on_edge = max((len(qs) for qs in on_edge), default=0)

    def edge_id(self, edge: Edge) -> EdgeId:
        """The number of an edge, or ``EdgeError`` when it is not on this board."""
        n = self.boxes
        if edge.orientation == "h" and 0 <= edge.row <= n and 0 <= edge.col < n:
            return edge.row * n + edge.col
        if edge.orientation == "v" and 0 <= edge.row < n and 0 <= edge.col <= n:
            return self.horizontal_count + edge.row * (n + 1) + edge.col
        raise EdgeError(f"edge {edge} is not on a board of {n}x{n} boxes")

    def square_id(self, square: Square) -> SquareId:
        try:
            return self._square_ids[square]
        except KeyError:
            k, r, c = square.size, square.row, square.col
            raise ValueError(f"no {k}x{k} square at ({r}, {c}) on this board") from None

    def squares_on(self, edge: EdgeId) -> list[SquareId]:
        """The squares whose outline holds the edge, smallest first."""
        return list(self.on_edge_asc[self.on_edge_asc_start[edge] : self.on_edge_asc_start[edge + 1]])

    def outline_ids(self, square: SquareId) -> list[EdgeId]:
        return list(self.outline[self.outline_start[square] : self.outline_start[square + 1]])

    def boxes_in(self, square: SquareId) -> list[int]:
        return list(self.box_of_square[self.boxes_start[square] : self.boxes_start[square + 1]])

    @staticmethod
    def outline_of(sq: Square) -> list[Edge]:
        k, r, c = sq.size, sq.row, sq.col
        return (
            [Edge("h", r, c + i) for i in range(k)]
            + [Edge("h", r + k, c + i) for i in range(k)]
            + [Edge("v", r + i, c) for i in range(k)]
            + [Edge("v", r + i, c + k) for i in range(k)]
        )


def _within(small: Square, large: Square) -> bool:
    return (
        large.row <= small.row
        and large.col <= small.col
        and small.row + small.size <= large.row + large.size
        and small.col + small.size <= large.col + large.size
    )


@cache
def geometry(boxes: int, sizes: tuple[int, ...]) -> Geometry:
    return Geometry(boxes, sizes)
