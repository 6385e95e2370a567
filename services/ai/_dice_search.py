"""Expectimax over the die for any overlap rule: ``DiceSearch``, the general exact dice search.

Written in Cython's pure-Python mode, like the engine core: compiled, it is the fast path; imported
as plain Python, the same source runs unchanged, only slower.

It plays every line on the engine's own position (``draw`` and ``undo``), so every overlap rule
scores exactly as in the game. Where scoring depends on the drawn lines alone, ``_dice_table`` is
far faster and this search is its cross-check in tests.
"""

from __future__ import annotations

import time
from array import array

import cython

# The clock is read once per this many nodes (a power of two minus one).
CHECK_MASK = cython.declare(cython.longlong, 1023)
# The value of a choice that is not in the memo yet, and the offset of packed score changes.
NOT_KNOWN = cython.declare(cython.double, -1e308)
DELTA_BIAS = cython.declare(cython.int, 1 << 20)

PHASE_ROLL = cython.declare(cython.int, 0)
PHASE_DRAW = cython.declare(cython.int, 1)
PHASE_OVER = cython.declare(cython.int, 2)
# Layout of the engine's state array (see engine/_core.py): the header fields a memo key must
# ignore or normalise, and where the per-edge "drawn by" segment starts.
ST_DRAWN_THIS_TURN = cython.declare(cython.int, 3)
ST_SCORE = cython.declare(cython.int, 4)
ST_TURN = cython.declare(cython.int, 7)
ST_HEADER = cython.declare(cython.int, 8)


@cython.cfunc
@cython.inline
def _bit(e: cython.int) -> cython.ulonglong:
    return cython.cast(cython.ulonglong, 1) << e


@cython.cclass
class DiceSearch:
    """Expectimax over the die on a scratch copy of the engine's position.

    Values are the mover's expected points minus the opponent's from here on. ``simple`` (1x1
    boxes only, or the independent rule) keys the memo on the lines drawn since the root and the
    turn's counters alone, for both players at once: the rules are the same for both and nothing
    but the drawn lines decides what a line scores. Otherwise the key is the engine's whole state, with
    the fields that cannot change the future (scores, turn count, who drew a line) normalised.
    """

    pos: object
    die: cython.int
    edges: cython.int[::1]  # the lines open at the root; bit i of a mask is edges[i]
    m: cython.int
    simple: cython.bint
    memo: dict
    # Simple rules: what drawing root line i does after the lines of a mask, packed (see
    # ``_after_draw``), so that a choice whose outcome is in the memo needs no engine call.
    effects: dict
    nodes: cython.longlong
    deadline: cython.double
    aborted: cython.bint

    def __init__(self, pos: object, die: int, simple: bool) -> None:
        self.pos = pos
        self.die = die
        self.edges = array("i", pos.open_edge_list())  # type: ignore[attr-defined]
        self.m = len(self.edges)
        if self.m > 54:
            raise ValueError("exact dice play needs far fewer open lines")
        self.simple = simple
        self.memo = {}
        self.effects = {}
        self.nodes = 0
        self.deadline = 0.0
        self.aborted = False

    @property
    def memo_size(self) -> int:
        return len(self.memo)

    @property
    def node_count(self) -> int:
        return self.nodes

    @cython.cfunc
    def _key(self, mask: cython.ulonglong, left: cython.int, drawn: cython.bint) -> object:
        """The memo key of the position, reached from the root by drawing the lines of ``mask``;
        ``left``, ``drawn``: the turn's edges left (0 before the roll) and whether a line has been
        drawn this turn. Simple rules need nothing more; otherwise the whole state counts."""
        i: cython.int
        if self.simple:
            return (mask << 8) | cython.cast(cython.ulonglong, (left << 1) | drawn)
        st = self.pos.state_array()
        st[ST_DRAWN_THIS_TURN] = 1 if drawn else 0
        st[ST_SCORE] = 0
        st[ST_SCORE + 1] = 0
        st[ST_TURN] = 0
        for i in range(self.m):
            if mask & _bit(i):
                st[ST_HEADER + self.edges[i]] = 1
        return st.tobytes()

    @cython.cfunc
    def _tick(self) -> cython.bint:
        self.nodes += 1
        if (self.nodes & CHECK_MASK) == 0 and self.deadline > 0 and time.perf_counter() > self.deadline:
            self.aborted = True
        return self.aborted

    @cython.cfunc
    def _margin(self, p: cython.int) -> cython.int:
        pos = self.pos
        return pos.score(p) - pos.score(1 - p)

    @cython.cfunc
    def _after_draw(
        self, i: cython.int, mask: cython.ulonglong, p: cython.int, before: cython.int, left: cython.int
    ) -> cython.double:
        """Draws root line i for player p (to move, in the draw phase with ``left`` lines to go,
        and margin ``before``): the value of that choice."""
        pos = self.pos
        delta: cython.int
        phase: cython.int
        spent: cython.int = 1
        over: cython.int = 0
        v: cython.double
        pos.draw(self.edges[i])
        delta = self._margin(p) - before
        phase = pos.phase
        if phase == PHASE_OVER:
            over = 1
            v = delta
        elif pos.to_move == p:
            spent = left - pos.edges_left  # 0 for chain_reaction's free captures
            v = delta + self._v_draw(mask | _bit(i), left - spent, True)
        else:
            v = delta - self._v_roll(mask | _bit(i))
        pos.undo()
        if self.simple:
            self.effects[(mask << 6) | i] = ((delta + DELTA_BIAS) << 2) | (over << 1) | spent
        return v

    @cython.cfunc
    def _known_choice(self, i: cython.int, mask: cython.ulonglong, left: cython.int) -> cython.double:
        """The value of drawing root line i from what is already known, without the engine; or
        NOT_KNOWN. The turn goes on while lines are left: ``spent`` is 0 for a free capture."""
        fx: object = self.effects.get((mask << 6) | i)
        packed: cython.longlong
        spent: cython.int
        delta: cython.int
        got: object
        if fx is None:
            return NOT_KNOWN
        packed = fx
        spent = cython.cast(cython.int, packed & 1)
        delta = cython.cast(cython.int, packed >> 2) - DELTA_BIAS
        if (packed >> 1) & 1:
            return delta
        if left - spent > 0:
            got = self.memo.get(self._key(mask | _bit(i), left - spent, True))
            return NOT_KNOWN if got is None else delta + cython.cast(cython.double, got)
        got = self.memo.get(self._key(mask | _bit(i), 0, False))
        return NOT_KNOWN if got is None else delta - cython.cast(cython.double, got)

    @cython.cfunc
    def _after_end(self, mask: cython.ulonglong) -> cython.double:
        pos = self.pos
        v: cython.double
        if self.simple:
            got: object = self.memo.get(self._key(mask, 0, False))
            if got is not None:
                return -cython.cast(cython.double, got)
        pos.end_turn()
        v = -self._v_roll(mask)
        pos.undo()
        return v

    @cython.cfunc
    def _v_draw(self, mask: cython.ulonglong, left: cython.int, drawn: cython.bint) -> cython.double:
        key: object = self._key(mask, left, drawn)
        got: object = self.memo.get(key)
        if got is not None:
            return got
        if self._tick():
            return 0.0
        pos = self.pos
        p: cython.int = pos.to_move
        before: cython.int = self._margin(p)
        best: cython.double = -1e300
        v: cython.double
        i: cython.int
        if drawn:
            best = self._after_end(mask)
        for i in range(self.m):
            if mask & _bit(i):
                continue
            v = self._known_choice(i, mask, left) if self.simple else NOT_KNOWN
            if v == NOT_KNOWN:
                v = self._after_draw(i, mask, p, before, left)
                if self.aborted:
                    return 0.0
            if v > best:
                best = v
        if not self.aborted:
            self.memo[key] = best
        return best

    @cython.cfunc
    def _v_roll(self, mask: cython.ulonglong) -> cython.double:
        key: object = self._key(mask, 0, False)
        got: object = self.memo.get(key)
        if got is not None:
            return got
        if self._tick():
            return 0.0
        pos = self.pos
        n_open: cython.int = pos.open_edges
        total: cython.double = 0.0
        weight: cython.double
        value: cython.double
        face: cython.int
        roll: cython.int
        for face in range(1, min(self.die, n_open) + 1):
            # Faces at or above the open lines are all capped to the same roll.
            weight = 1.0 if face < n_open else self.die - face + 1
            roll = min(face, n_open)
            got = self.memo.get(self._key(mask, roll, False)) if self.simple else None
            if got is None:
                pos.roll(face)
                got = self._v_draw(mask, roll, False)
                pos.undo()
                if self.aborted:
                    return 0.0
            total += weight * cython.cast(cython.double, got)
        value = total / self.die
        if not self.aborted:
            self.memo[key] = value
        return value

    def best_turn(self, deadline: float = 0.0) -> tuple[float, list[int]] | None:
        """(value, lines to draw this turn) from the root; None when the deadline passes first.
        In the roll phase only the value, and no lines."""
        pos = self.pos
        value: cython.double
        plan: list = []
        mask: cython.ulonglong = 0
        p: cython.int = pos.to_move
        i: cython.int
        choice: cython.int
        best: cython.double
        v: cython.double
        self.deadline = deadline
        self.aborted = False
        if pos.phase == PHASE_OVER:
            return 0.0, []
        if pos.phase == PHASE_ROLL:
            value = self._v_roll(0)
            return None if self.aborted else (value, [])
        value = self._v_draw(0, pos.edges_left, pos.drawn_this_turn > 0)
        if self.aborted:
            return None
        while True:
            # Ending the turn first: on a tie, giving away nothing more is the natural choice.
            choice = -1
            best = self._after_end(mask) if pos.drawn_this_turn > 0 else -1e300
            for i in range(self.m):
                if mask & _bit(i):
                    continue
                v = self._after_draw(i, mask, p, self._margin(p), pos.edges_left)
                if v > best + 1e-9:
                    best = v
                    choice = i
            if self.aborted:
                break
            if choice < 0:
                break
            plan.append(self.edges[choice])
            pos.draw(self.edges[choice])
            mask |= _bit(choice)
            if pos.phase != PHASE_DRAW or pos.to_move != p:
                break
        for _ in plan:
            pos.undo()
        if self.aborted:
            return None
        return value, plan
