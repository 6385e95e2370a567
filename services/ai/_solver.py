"""The exact search behind ``solver`` for standard Dots and Boxes: ``StandardSearch``.

Written in Cython's pure-Python mode, like the engine core: compiled, it is the fast path; imported
as plain Python, the same source runs unchanged, only slower.

``StandardSearch`` is alpha-beta over a bitmask of drawn lines with its own tiny board model (1x1
boxes, a capture owes another line: nothing else to score), a transposition table, the capture
reductions of the literature and exact chain-and-loop leaves. The dice games' searches are
``_dice_search`` (any overlap rule) and ``_dice_table`` (scoring by drawn lines alone).
"""

from __future__ import annotations

import time
from array import array

import cython

from boxedin.ai.chains import loony_value

INF = cython.declare(cython.int, 1000)
# What ``_captures`` found.
NO_CAPTURE = cython.declare(cython.int, -1)  # no box has three sides drawn
FORCED = cython.declare(cython.int, -2)  # a capture that is right whatever else: ``forced_edge``
# Move kinds in the move buffers.
QUIET = cython.declare(cython.int, 0)
TAKE = cython.declare(cython.int, 1)
# The clock is read once per this many nodes (a power of two minus one).
CHECK_MASK = cython.declare(cython.longlong, 1023)
# Transposition entries pack (lower bound, upper bound, best line + 1) into one int.
BIAS = cython.declare(cython.longlong, 512)


@cython.cfunc
@cython.inline
def _bit(e: cython.int) -> cython.ulonglong:
    return cython.cast(cython.ulonglong, 1) << e


@cython.cclass
class StandardSearch:
    """Alpha-beta for standard rules on one board size; the table is kept between solves.

    Values are always for the player to move and count only boxes taken from here on, so they
    depend on the drawn lines alone: the table is keyed on the drawn-line mask.
    """

    n_edges: cython.int
    n_boxes: cython.int
    stride: cython.int
    box_edges: cython.int[::1]  # the 4 lines of each box
    edge_boxes: cython.int[::1]  # the 2 boxes of each line, -1 past the rim
    sides: cython.int[::1]  # lines drawn around each box
    mask: cython.ulonglong
    left: cython.int  # boxes not yet complete
    table: dict
    max_entries: cython.longlong
    nodes: cython.longlong
    node_limit: cython.longlong  # 0: no limit
    deadline: cython.double  # time.perf_counter(); 0: none
    aborted: cython.bint
    move_buf: cython.int[::1]  # one list of moves per ply, ``stride`` apart
    kind_buf: cython.int[::1]
    cost_buf: cython.int[::1]
    forced: cython.int[::1]  # the stack of forced captures made by the nodes on the path
    n_forced: cython.int
    forced_edge: cython.int
    # What ``_classify`` found about the run of boxes starting at a capturable box.
    run_take: cython.int
    run_decline: cython.int
    run_far: cython.int
    run_forced: cython.bint
    seen: cython.int[::1]
    stamp: cython.int

    def __init__(self, box_edges: list[int], edge_boxes: list[int], max_entries: int = 1_000_000) -> None:
        self.n_boxes = len(box_edges) // 4
        self.n_edges = len(edge_boxes) // 2
        if self.n_edges > 64:
            raise ValueError("the standard search handles boards of at most 64 lines")
        self.stride = self.n_edges + 1
        self.box_edges = array("i", box_edges)
        self.edge_boxes = array("i", edge_boxes)
        self.sides = array("i", bytes(4 * self.n_boxes))
        plies = self.n_edges + 3
        self.move_buf = array("i", bytes(4 * plies * self.stride))
        self.kind_buf = array("i", bytes(4 * plies * self.stride))
        self.cost_buf = array("i", bytes(4 * self.stride))
        self.forced = array("i", bytes(4 * (self.n_edges + 1)))
        self.seen = array("i", bytes(4 * self.n_boxes))
        self.stamp = 0
        self.table = {}
        self.max_entries = max_entries
        self.load(0)

    # --- the board --------------------------------------------------------------------------

    def load(self, mask: int) -> None:
        """Sets the drawn lines (bit e: line e is drawn)."""
        b: cython.int
        i: cython.int
        count: cython.int
        self.mask = mask
        self.left = 0
        self.n_forced = 0
        for b in range(self.n_boxes):
            count = 0
            for i in range(4):
                if self.mask & _bit(self.box_edges[4 * b + i]):
                    count += 1
            self.sides[b] = count
            if count < 4:
                self.left += 1

    def clear(self) -> None:
        """Empties the transposition table."""
        self.table.clear()

    @property
    def table_size(self) -> int:
        return len(self.table)

    @property
    def node_count(self) -> int:
        return self.nodes

    @cython.cfunc
    def _draw(self, e: cython.int) -> cython.int:
        """Draws line e; returns the boxes it completes."""
        j: cython.int
        b: cython.int
        done: cython.int = 0
        self.mask |= _bit(e)
        for j in range(2):
            b = self.edge_boxes[2 * e + j]
            if b >= 0:
                self.sides[b] += 1
                if self.sides[b] == 4:
                    done += 1
        self.left -= done
        return done

    @cython.cfunc
    def _undraw(self, e: cython.int) -> cython.void:
        j: cython.int
        b: cython.int
        self.mask &= ~_bit(e)
        for j in range(2):
            b = self.edge_boxes[2 * e + j]
            if b >= 0:
                if self.sides[b] == 4:
                    self.left += 1
                self.sides[b] -= 1

    @cython.cfunc
    def _open_line(self, b: cython.int, skip: cython.int) -> cython.int:
        """An open line of box b other than ``skip``, or -1."""
        i: cython.int
        e: cython.int
        for i in range(4):
            e = self.box_edges[4 * b + i]
            if e != skip and not (self.mask & _bit(e)):
                return e
        return -1

    @cython.cfunc
    def _across(self, e: cython.int, b: cython.int) -> cython.int:
        """The box on the other side of line e from box b, or -1 past the rim."""
        first: cython.int = self.edge_boxes[2 * e]
        if first == b:
            return self.edge_boxes[2 * e + 1]
        return first

    # --- captures -----------------------------------------------------------------------

    @cython.cfunc
    def _classify(self, a: cython.int) -> cython.void:
        """Follows the run of boxes that taking box a (three sides drawn) starts.

        Behind a come k boxes with two sides drawn, then either a *closed* end (the rim, or a box
        with fewer than two sides) or an *open* end (another box with three sides, so the run
        was opened in its middle, or is an opened loop). Taking all but the last 2 boxes of a
        closed run, or all but the last 4 of an open one, is always right; only there does the
        mover choose between taking the rest and declining it with the line that completes
        nothing (the double-cross). So: closed and k == 1, or open and k == 2, is a choice
        (``run_decline`` is the declining line); everything else is a forced capture.
        """
        e: cython.int = self._open_line(a, -1)
        prev: cython.int = e
        cur: cython.int = self._across(e, a)
        nxt: cython.int
        f: cython.int
        first_far: cython.int = -1
        k: cython.int = 0
        self.run_take = e
        self.run_decline = -1
        self.run_far = -1
        self.run_forced = True
        if cur < 0 or self.sides[cur] != 2:
            return  # a lone box, or two boxes completed by one line
        while True:
            k += 1
            f = self._open_line(cur, prev)
            if k == 1:
                first_far = f
            nxt = self._across(f, cur)
            if nxt < 0 or self.sides[nxt] <= 1:
                if k == 1:
                    self.run_forced = False
                    self.run_decline = f
                return
            if self.sides[nxt] == 3:
                self.run_far = nxt
                if k == 2:
                    self.run_forced = False
                    self.run_decline = first_far
                return
            prev = f
            cur = nxt

    @cython.cfunc
    def _captures(self, ply: cython.int) -> cython.int:
        """FORCED (with ``forced_edge``), NO_CAPTURE, or the number of choices written to the
        move buffer of ``ply``: with several runs on offer, taking one of them (declining one
        while another is on offer is never better than taking that other first); with one, take
        or decline."""
        b: cython.int
        off: cython.int = ply * self.stride
        runs: cython.int = 0
        decline: cython.int = -1
        for b in range(self.n_boxes):
            if self.sides[b] != 3:
                continue
            self._classify(b)
            if self.run_forced:
                self.forced_edge = self.run_take
                return FORCED
            if 0 <= self.run_far < b:
                continue  # an open run, already met from its other end
            self.move_buf[off + runs] = self.run_take
            self.kind_buf[off + runs] = TAKE
            decline = self.run_decline
            runs += 1
        if runs == 0:
            return NO_CAPTURE
        if runs == 1:
            self.move_buf[off + 1] = decline
            self.kind_buf[off + 1] = QUIET
            return 2
        return runs

    # --- quiet positions ------------------------------------------------------------------

    @cython.cfunc
    def _handout(self, e: cython.int) -> cython.int:
        """How many boxes drawing line e hands the opponent (0 for a safe line): the boxes
        with two sides next to it and the runs of two-sided boxes behind them."""
        j: cython.int
        b: cython.int
        f: cython.int
        nxt: cython.int
        total: cython.int = 0
        for j in range(2):
            b = self.edge_boxes[2 * e + j]
            if b < 0 or self.sides[b] != 2:
                continue
            f = e
            while True:
                total += 1
                if total > self.n_boxes:
                    return total  # a loop: long enough to go last
                f = self._open_line(b, f)
                nxt = self._across(f, b)
                if nxt < 0 or self.sides[nxt] != 2:
                    break
                b = nxt
        return total

    @cython.cfunc
    def _quiet_moves(self, ply: cython.int) -> cython.int:
        """Every open line, safe ones first, then by the boxes they hand over (fewest first)."""
        off: cython.int = ply * self.stride
        n: cython.int = 0
        e: cython.int
        i: cython.int
        cost: cython.int
        for e in range(self.n_edges):
            if self.mask & _bit(e):
                continue
            cost = self._handout(e)
            i = n
            # Insertion sort: the lists are short, and mostly in order already.
            while i > 0 and self.cost_buf[i - 1] > cost:
                self.cost_buf[i] = self.cost_buf[i - 1]
                self.move_buf[off + i] = self.move_buf[off + i - 1]
                i -= 1
            self.cost_buf[i] = cost
            self.move_buf[off + i] = e
            n += 1
        for i in range(n):
            self.kind_buf[off + i] = QUIET
        return n

    @cython.cfunc
    def _all_two_sided(self) -> cython.bint:
        b: cython.int
        for b in range(self.n_boxes):
            if self.sides[b] < 2:
                return False
        return True

    @cython.cfunc
    def _loony(self) -> cython.int:
        """The exact value when every open box has two sides drawn: chains and loops only."""
        b: cython.int
        e: cython.int
        start_line: cython.int
        cur: cython.int
        nxt: cython.int
        size: cython.int
        direction: cython.int
        is_loop: cython.bint
        chains: list = []
        loops: list = []
        self.stamp += 1
        for b in range(self.n_boxes):
            if self.sides[b] == 4 or self.seen[b] == self.stamp:
                continue
            self.seen[b] = self.stamp
            size = 1
            is_loop = False
            start_line = -1
            for direction in range(2):
                start_line = self._open_line(b, start_line)
                cur = b
                e = start_line
                while True:
                    nxt = self._across(e, cur)
                    if nxt < 0:
                        break
                    if nxt == b:
                        is_loop = True
                        break
                    self.seen[nxt] = self.stamp
                    size += 1
                    e = self._open_line(nxt, e)
                    cur = nxt
                if is_loop:
                    break
            if is_loop:
                loops.append(size)
            else:
                chains.append(size)
        chains.sort()
        loops.sort()
        return loony_value(tuple(chains), tuple(loops))

    # --- the search ---------------------------------------------------------------------

    @cython.cfunc
    def _out_of_budget(self) -> cython.bint:
        if self.node_limit > 0 and self.nodes > self.node_limit:
            return True
        return self.deadline > 0 and time.perf_counter() > self.deadline

    @cython.cfunc
    def _search(self, alpha: cython.int, beta: cython.int, ply: cython.int) -> cython.int:
        """The value for the player to move (fail-soft within alpha..beta)."""
        base: cython.int = self.n_forced
        gain: cython.int = 0
        code: cython.int
        value: cython.int = 0
        self.nodes += 1
        if (self.nodes & CHECK_MASK) == 0 and self._out_of_budget():
            self.aborted = True
        if self.aborted:
            return 0
        code = self._captures(ply)
        while code == FORCED:
            gain += self._draw(self.forced_edge)
            self.forced[self.n_forced] = self.forced_edge
            self.n_forced += 1
            code = self._captures(ply)
        if self.left > 0:
            value = self._node(alpha - gain, beta - gain, ply, code)
        while self.n_forced > base:
            self.n_forced -= 1
            self._undraw(self.forced[self.n_forced])
        return gain + value

    @cython.cfunc
    def _node(self, alpha: cython.int, beta: cython.int, ply: cython.int, code: cython.int) -> cython.int:
        """The search at a position with no forced capture left and boxes still open."""
        lo: cython.longlong = -self.left
        hi: cython.longlong = self.left
        hint: cython.int = -1
        packed: cython.longlong
        a: cython.int
        b: cython.int
        n: cython.int
        i: cython.int
        e: cython.int
        c: cython.int
        v: cython.int
        best: cython.int = -INF
        best_move: cython.int = -1
        off: cython.int = ply * self.stride
        key: object = self.mask
        entry: object = self.table.get(key)
        if entry is not None:
            packed = entry
            lo = (packed >> 20) - BIAS
            hi = ((packed >> 10) & 1023) - BIAS
            hint = cython.cast(cython.int, packed & 1023) - 1
        if lo == hi or lo >= beta:
            return cython.cast(cython.int, lo)
        if hi <= alpha:
            return cython.cast(cython.int, hi)
        a = max(alpha, cython.cast(cython.int, lo))
        b = min(beta, cython.cast(cython.int, hi))
        if code == NO_CAPTURE:
            if self._all_two_sided():
                v = self._loony()
                self._store(key, v, v, -1)
                return v
            n = self._quiet_moves(ply)
        else:
            n = code
        if hint >= 0:
            # The best line found before goes first.
            for i in range(1, n):
                if self.move_buf[off + i] == hint:
                    self.move_buf[off + i] = self.move_buf[off]
                    self.move_buf[off] = hint
                    c = self.kind_buf[off + i]
                    self.kind_buf[off + i] = self.kind_buf[off]
                    self.kind_buf[off] = c
                    break
        for i in range(n):
            e = self.move_buf[off + i]
            c = self._draw(e)
            if self.kind_buf[off + i] == TAKE:
                v = c + self._search(max(a, best) - c, b - c, ply + 1)
            else:
                v = -self._search(-b, -max(a, best), ply + 1)
            self._undraw(e)
            if self.aborted:
                return 0
            if v > best:
                best = v
                best_move = e
                if best >= b:
                    break
        if best <= a:
            hi = max(min(hi, best), lo)
        elif best >= b:
            lo = min(max(lo, best), hi)
        else:
            lo = best
            hi = best
        self._store(key, cython.cast(cython.int, lo), cython.cast(cython.int, hi), best_move)
        return best

    @cython.cfunc
    def _store(self, key: object, lo: cython.int, hi: cython.int, move: cython.int) -> cython.void:
        if len(self.table) >= self.max_entries:
            self.table.clear()  # a crude but safe bound on memory: entries are only a cache
        self.table[key] = ((lo + BIAS) << 20) | ((hi + BIAS) << 10) | (move + 1)

    # --- the entry point -------------------------------------------------------------------

    def solve(self, mask: int, node_limit: int = 0, deadline: float = 0.0) -> tuple[int, list[int]] | None:
        """(value, line) for the player to move with lines ``mask`` drawn, or None when the
        budget (nodes, or a ``time.perf_counter`` deadline) runs out first."""
        value: cython.int
        line: list = []
        self.load(mask)
        self.nodes = 0
        self.node_limit = node_limit
        self.deadline = deadline
        self.aborted = False
        value = self._mtdf()
        if not self.aborted:
            line = self._line(value)
        self.load(mask)
        if self.aborted:
            return None
        return value, line

    @cython.cfunc
    def _mtdf(self) -> cython.int:
        """The root value by null-window searches closing in on it (MTD(f)): each proves a bound
        cheaply, and the table keeps what the earlier ones learnt."""
        lo: cython.int = -self.left
        hi: cython.int = self.left
        guess: cython.int = 0
        beta: cython.int
        while lo < hi and not self.aborted:
            beta = guess + 1 if guess == lo else guess
            guess = self._search(beta - 1, beta, 0)
            if guess < beta:
                hi = guess
            else:
                lo = guess
        return lo

    @cython.cfunc
    def _line(self, target: cython.int) -> list:
        """The lines of one best turn from the loaded position, worth ``target``."""
        line: list = []
        code: cython.int
        n: cython.int
        i: cython.int
        e: cython.int
        c: cython.int
        v: cython.int
        chosen: cython.int
        candidates: list
        while True:
            code = self._captures(0)
            if code == FORCED:
                e = self.forced_edge
                target -= self._draw(e)
                line.append(e)
                continue
            if self.left == 0:
                return line
            n = self._quiet_moves(0) if code == NO_CAPTURE else code
            candidates = [self.move_buf[i] for i in range(n)]
            chosen = -1
            for e in candidates:
                # A null-window test: does this line reach the value?
                c = self._draw(e)
                if c > 0:
                    v = c + self._search(target - c - 1, target - c, 1)
                else:
                    v = -self._search(-target, -target + 1, 1)
                self._undraw(e)
                if self.aborted:
                    return line
                if v >= target:
                    chosen = e
                    break
            if chosen < 0:
                raise AssertionError("no line reaches the value the search found")
            c = self._draw(chosen)
            line.append(chosen)
            if c == 0 or self.left == 0:
                return line
            target -= c
