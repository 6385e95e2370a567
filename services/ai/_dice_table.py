"""Exact dice endgames as one table over every set of lines drawn from here: ``DiceTable``.

Written in Cython's pure-Python mode, like the engine core: compiled, it is the fast path; imported
as plain Python, the same source runs unchanged, only slower.

Where what a line scores depends on the drawn lines alone (1x1 boxes, or the independent rule),
the value of a position from the mover's side depends only on which of the root's open lines are
drawn (a mask), the lines left in the turn and whether one has been drawn yet. Every superset of
a mask comes later in the game, so the values fill in from the full mask down with no recursion,
no hashing and no engine calls: what a line completes is read off per-square masks of the lines
each square still misses. ``DiceSearch`` (``_solver``) is the general search this must agree with.
"""

from __future__ import annotations

import time
from array import array

import cython

# The clock is read once per this many masks (a power of two minus one).
CHECK_MASK = cython.declare(cython.ulonglong, 4095)
NEG = cython.declare(cython.double, -1e300)


@cython.cfunc
@cython.inline
def _bit(i: cython.int) -> cython.ulonglong:
    return cython.cast(cython.ulonglong, 1) << i


@cython.cclass
class DiceTable:
    """Values of every position reachable from a root with ``n`` open lines.

    ``touch_start``/``touch_need``/``touch_points``: for root line i, entries
    ``touch_start[i]:touch_start[i+1]`` list each square on that line by the mask of root lines
    it still misses (line i included) and its points. ``free``: a line that captures does not
    count against the roll (chain_reaction).

    After ``solve``: ``roll_value(mask)`` is the mover's expected margin from here on at the start
    of a turn (before the roll); ``draw_value(mask, left, drawn)`` in the middle of one.
    """

    n: cython.int
    die: cython.int
    free: cython.bint
    full: cython.ulonglong
    touch_start: cython.int[::1]
    touch_need: cython.ulonglong[::1]
    touch_points: cython.int[::1]
    vr: cython.double[::1]  # by mask: before the roll
    vt: cython.double[::1]  # by mask * die + left - 1: a line drawn this turn, ``left`` to go
    solved: cython.bint

    def __init__(
        self,
        n: int,
        die: int,
        free: bool,
        touch_start: list[int],
        touch_need: list[int],
        touch_points: list[int],
    ) -> None:
        if not 0 < n <= 30 or die < 1:
            raise ValueError(f"a dice table needs 1 to 30 open lines and a die, not {n} lines, d{die}")
        self.n = n
        self.die = die
        self.free = free
        self.full = (cython.cast(cython.ulonglong, 1) << n) - 1
        self.touch_start = array("i", touch_start)
        self.touch_need = array("Q", touch_need)
        self.touch_points = array("i", touch_points)
        size: cython.Py_ssize_t = cython.cast(cython.Py_ssize_t, 1) << n
        # Array repetition allocates once (bytes(...) would hold a second copy meanwhile).
        self.vr = array("d", [0.0]) * size
        self.vt = array("d", [0.0]) * (size * die)
        self.solved = False

    @cython.cfunc
    @cython.inline
    def _gain(self, i: cython.int, child: cython.ulonglong) -> cython.int:
        """Points for drawing root line i when the lines of ``child`` (i among them) are drawn."""
        j: cython.int
        gain: cython.int = 0
        for j in range(self.touch_start[i], self.touch_start[i + 1]):
            if (self.touch_need[j] & ~child) == 0:
                gain += self.touch_points[j]
        return gain

    @cython.cfunc
    @cython.inline
    def _choice(self, i: cython.int, mask: cython.ulonglong, left: cython.int) -> cython.double:
        """The value of drawing root line i after ``mask``, with ``left`` lines to go."""
        child: cython.ulonglong = mask | _bit(i)
        gain: cython.int = self._gain(i, child)
        if child == self.full:
            return gain
        if self.free and gain > 0:
            return gain + self.vt[child * self.die + left - 1]
        if left > 1:
            return gain + self.vt[child * self.die + left - 2]
        return gain - self.vr[child]

    def solve(self, deadline: float = 0.0) -> bool:
        """Fills the table; False when ``deadline`` (``time.perf_counter()``) passes first."""
        die: cython.int = self.die
        n: cython.int = self.n
        mask: cython.ulonglong
        child: cython.ulonglong
        i: cython.int
        left: cython.int
        face: cython.int
        open_count: cython.int
        gain: cython.int
        v: cython.double
        total: cython.double
        end: cython.double
        base: cython.Py_ssize_t
        best = array("d", [0.0]) * (die + 1)
        top: cython.double[::1] = best
        vr: cython.double[::1] = self.vr
        vt: cython.double[::1] = self.vt
        # The full mask is the end of the game: nothing more to gain (the table starts at zero).
        mask = self.full
        while mask > 0:
            mask -= 1
            if (mask & CHECK_MASK) == 0 and deadline > 0 and time.perf_counter() > deadline:
                return False
            for left in range(1, die + 1):
                top[left] = NEG
            open_count = 0
            for i in range(n):
                if mask & _bit(i):
                    continue
                open_count += 1
                child = mask | _bit(i)
                gain = self._gain(i, child)
                for left in range(1, die + 1):
                    # ``_choice`` written out on local views: this loop is the table's whole cost.
                    if child == self.full:
                        v = gain
                    elif self.free and gain > 0:
                        v = gain + vt[child * die + left - 1]
                    elif left > 1:
                        v = gain + vt[child * die + left - 2]
                    else:
                        v = gain - vr[child]
                    if v > top[left]:
                        top[left] = v
            total = 0.0
            for face in range(1, die + 1):
                # A roll above the open lines is capped to them.
                total += top[face if face < open_count else open_count]
            vr[mask] = total / die
            end = -vr[mask]
            base = cython.cast(cython.Py_ssize_t, mask) * die
            for left in range(1, die + 1):
                vt[base + left - 1] = top[left] if top[left] > end else end
        self.solved = True
        return True

    def roll_value(self, mask: int) -> float:
        return self.vr[mask]

    def draw_value(self, mask: int, left: int, drawn: bool) -> float:
        """The mover's value with ``left`` lines to go; before the turn's first line (``drawn``
        false) ending the turn is not allowed."""
        if mask == self.full:
            return 0.0
        if drawn:
            return self.vt[mask * self.die + left - 1]
        return max(self._choice(i, mask, left) for i in range(self.n) if not mask & (1 << i))

    def best_lines(self, mask: int, left: int, drawn: bool) -> tuple[float, list[int], int]:
        """(value, root lines to draw in order, lines' mask after them): the rest of the turn.
        Ending the turn wins ties (it gives nothing more away), then the lowest line."""
        value = self.draw_value(mask, left, drawn)
        plan: list[int] = []
        while mask != self.full and left > 0:
            choice = -1
            best = -self.vr[mask] if drawn else NEG
            for i in range(self.n):
                if mask & (1 << i):
                    continue
                v = self._choice(i, mask, left)
                if v > best + 1e-9:
                    best = v
                    choice = i
            if choice < 0:
                break
            child = mask | (1 << choice)
            if not (self.free and self._gain(choice, child) > 0):
                left -= 1
            plan.append(choice)
            mask = child
            drawn = True
        return value, plan, mask
