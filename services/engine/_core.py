"""The hot path of the rules: a position, drawing an edge, completion, overlap rules, turns,
taking back, and random playouts.

Written in Cython's pure-Python mode: compiled, it is the engine the services run; imported as
plain Python (see ``backend``), the same source is the reference it is tested against. The C
layout of ``Position`` (its fields and C methods) is declared in ``_core.pxd``, which other
compiled modules cimport to work on a position directly: the AI's playout policies
(``boxedin.ai._playout``).

The whole position is one flat int array, so that a copy is one memcpy and taking an action back
is replaying a journal of (index, old value) pairs. Validation lives in ``game``; the core trusts
its caller.
"""

from __future__ import annotations

from array import array

import cython

# Layout of the state array: a header, then per-edge and per-square segments.
TO_MOVE = cython.declare(cython.int, 0)  # 0 or 1
PHASE = cython.declare(cython.int, 1)
EDGES_LEFT = cython.declare(cython.int, 2)  # edges that may still be counted this turn
DRAWN_THIS_TURN = cython.declare(cython.int, 3)
SCORE = cython.declare(cython.int, 4)  # two slots
OPEN_EDGES = cython.declare(cython.int, 6)
TURN = cython.declare(cython.int, 7)  # turns begun before the current one
HEADER = cython.declare(cython.int, 8)

PHASE_ROLL = cython.declare(cython.int, 0)
PHASE_DRAW = cython.declare(cython.int, 1)
PHASE_OVER = cython.declare(cython.int, 2)

# Square status.
OPEN = cython.declare(cython.int, 0)
HELD = cython.declare(cython.int, 1)
DEAD = cython.declare(cython.int, 2)  # completed but never captured
REMOVED = cython.declare(cython.int, 3)

# Events of the last drawn edge, for the move history.
EV_CAPTURE = cython.declare(cython.int, 1)
EV_BLOCKED = cython.declare(cython.int, 2)
EV_REMOVED = cython.declare(cython.int, 3)
EV_TAKEN_OVER = cython.declare(cython.int, 4)

# Overlap rule codes, as ``rules.Overlap``.
R_INDEPENDENT = cython.declare(cython.int, 0)
R_CONSUME = cython.declare(cython.int, 1)
R_EXCLUSIVE = cython.declare(cython.int, 2)
R_TAKEOVER = cython.declare(cython.int, 3)
R_PROTECTED = cython.declare(cython.int, 4)
R_LAYERED = cython.declare(cython.int, 5)
R_VOLATILE = cython.declare(cython.int, 6)
R_BUILDER = cython.declare(cython.int, 7)
R_TERRITORY = cython.declare(cython.int, 8)
R_MAJORITY = cython.declare(cython.int, 9)
R_FORTRESS = cython.declare(cython.int, 10)
R_HOME_TURF = cython.declare(cython.int, 11)
R_CAPPED_LAYERED = cython.declare(cython.int, 12)

MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)


@cython.cfunc
@cython.inline
def _next_random(x: cython.ulonglong) -> cython.ulonglong:
    """xorshift64: the same sequence compiled and in plain Python (masks keep 64 bits)."""
    x ^= (x << 13) & MASK64
    x ^= x >> 7
    x ^= (x << 17) & MASK64
    return x


@cython.cclass
class Position:
    """A game position: the board, the scores and the turn, with a journal to take actions back."""

    # The fields (geometry, rules, state and its offsets, journal, events, scratch arrays) are
    # declared in _core.pxd, the C layout that other compiled modules cimport; as plain Python
    # they are ordinary attributes, set by ``_bind``, ``_share`` and the methods below.

    def __init__(
        self,
        geo: object,
        rule: cython.int,
        die: cython.int,
        free_capture: cython.bint,
        owes_line: cython.bint,
        first: cython.int,
    ) -> None:
        self._bind(geo, rule, die, free_capture, owes_line)
        n_state: cython.int = self.o_holder + self.b_count
        self.state = array("i", bytes(4 * n_state))
        self.st = self.state
        i: cython.int
        for i in range(self.s_count):
            self.st[self.o_missing + i] = 4 * self.size[i]
            self.st[self.o_owner + i] = -1
        for i in range(self.b_count):
            self.st[self.o_holder + i] = -1
        self.st[TO_MOVE] = first
        self.st[PHASE] = PHASE_ROLL if die > 0 else PHASE_DRAW
        self.st[OPEN_EDGES] = self.e_count
        self._reset_journal()

    @cython.cfunc
    def _bind(
        self,
        geo: object,
        rule: cython.int,
        die: cython.int,
        free_capture: cython.bint,
        owes_line: cython.bint,
    ) -> cython.void:
        self.geo = geo
        self.e_count = geo.edge_count
        self.s_count = geo.square_count
        self.b_count = geo.boxes * geo.boxes
        self.rule = rule
        self.die = die
        self.free_capture = free_capture
        self.owes_line = owes_line
        self.can_block = rule in (R_CONSUME, R_EXCLUSIVE, R_PROTECTED, R_FORTRESS)
        self.track_cover = rule in (R_EXCLUSIVE, R_LAYERED, R_CAPPED_LAYERED)
        if rule in (R_BUILDER, R_MAJORITY):
            self.on_start = geo.on_edge_asc_start
            self.on_edge = geo.on_edge_asc
        else:
            self.on_start = geo.on_edge_desc_start
            self.on_edge = geo.on_edge_desc
        self.in_start = geo.inside_start
        self.inside = geo.inside
        self.ar_start = geo.around_start
        self.around = geo.around
        self.bx_start = geo.boxes_start
        self.boxes = geo.box_of_square
        self.size = geo.square_size
        self.o_drawn = HEADER
        self.o_missing = self.o_drawn + self.e_count
        self.o_status = self.o_missing + self.s_count
        self.o_owner = self.o_status + self.s_count
        self.o_points = self.o_owner + self.s_count
        self.o_cover = self.o_points + self.s_count
        self.o_holder = self.o_cover + 2 * self.b_count
        self.done = array("i", bytes(4 * geo.max_squares_on_edge))
        self.open_list = array("i", bytes(4 * self.e_count))
        self.recording = False
        self.events = []

    @cython.cfunc
    def _reset_journal(self) -> cython.void:
        self.journal = None
        self.jcap = 0
        self.jlen = 0
        self.journaling = True
        self.marks = []

    def copy(self) -> Position:
        """An independent copy of the position, with nothing to take back."""
        other: Position = Position.__new__(Position)
        other._share(self)
        other.state = self.state.__copy__()
        other.st = other.state
        other.journal = None
        other.jcap = 0
        other.jlen = 0
        other.journaling = True
        other.marks = []
        return other

    @cython.cfunc
    def _share(self, src: Position) -> cython.void:
        """Takes the geometry, rules and scratch space of another position: a copy needs its
        own state only. (The scratch arrays are only used inside one call, never across.)"""
        self.geo = src.geo
        self.e_count = src.e_count
        self.s_count = src.s_count
        self.b_count = src.b_count
        self.rule = src.rule
        self.die = src.die
        self.free_capture = src.free_capture
        self.owes_line = src.owes_line
        self.can_block = src.can_block
        self.track_cover = src.track_cover
        self.on_start = src.on_start
        self.on_edge = src.on_edge
        self.in_start = src.in_start
        self.inside = src.inside
        self.ar_start = src.ar_start
        self.around = src.around
        self.bx_start = src.bx_start
        self.boxes = src.boxes
        self.size = src.size
        self.o_drawn = src.o_drawn
        self.o_missing = src.o_missing
        self.o_status = src.o_status
        self.o_owner = src.o_owner
        self.o_points = src.o_points
        self.o_cover = src.o_cover
        self.o_holder = src.o_holder
        self.done = src.done
        self.open_list = src.open_list
        self.recording = False
        self.events = []

    def set_state(self, values: object) -> None:
        """Takes over a whole state (from ``state_array`` of a position on the same board and
        rules, perhaps in another process); nothing can be taken back afterwards."""
        replacement = array("i", values)
        if len(replacement) != len(self.state):
            raise ValueError("the state is of another board or rule set")
        self.state = replacement
        self.st = replacement
        self.forget_history()

    def state_array(self) -> array:
        """The raw state (for equality checks and serialisation tests)."""
        return self.state.__copy__()

    # --- writing state -------------------------------------------------------------------

    @cython.cfunc
    @cython.inline
    def _set(self, i: cython.int, value: cython.int) -> cython.void:
        if self.journaling:
            if self.jlen + 2 > self.jcap:
                self._grow_journal()
            self.jr[self.jlen] = i
            self.jr[self.jlen + 1] = self.st[i]
            self.jlen += 2
        self.st[i] = value

    @cython.cfunc
    def _grow_journal(self) -> cython.void:
        capacity: cython.int = max(256, 2 * self.jcap)
        bigger = array("i", bytes(4 * capacity))
        if self.jlen:
            bigger[: self.jlen] = self.journal[: self.jlen]
        self.journal = bigger
        self.jr = bigger
        self.jcap = capacity

    @cython.cfunc
    @cython.inline
    def _add(self, i: cython.int, delta: cython.int) -> cython.void:
        self._set(i, self.st[i] + delta)

    @cython.cfunc
    def _begin_action(self) -> cython.void:
        if self.journaling:
            self.marks.append(self.jlen)

    def record_events(self, on: cython.bint) -> None:
        """Whether draws list what they did to squares (for the move history)."""
        self.recording = on
        self.events = []

    def last_events(self) -> list:
        """What the last draw did: (kind, square, player, points) tuples, when recording."""
        return self.events

    def undo(self) -> None:
        """Takes back the last action (draw, roll, end of turn), restoring the exact state."""
        mark: cython.int = self.marks.pop()
        j: cython.int = self.jlen
        while j > mark:
            j -= 2
            self.st[self.jr[j]] = self.jr[j + 1]
        self.jlen = mark

    def forget_history(self) -> None:
        """Drops the journal: what has happened can no longer be taken back."""
        self.jlen = 0
        self.marks = []

    @property
    def undoable_actions(self) -> int:
        return len(self.marks)

    # --- the rules ---------------------------------------------------------------------

    def roll(self, face: cython.int) -> cython.int:
        """Starts the turn with a die showing ``face``; returns the roll, capped at the open edges."""
        self._begin_action()
        return self._roll(face)

    @cython.cfunc
    def _roll(self, face: cython.int) -> cython.int:
        capped: cython.int = min(face, self.st[OPEN_EDGES])
        self._set(PHASE, PHASE_DRAW)
        self._set(EDGES_LEFT, capped)
        return capped

    def end_turn(self) -> None:
        """Ends the turn as it stands (End Turn, or the move clock running out)."""
        self._begin_action()
        self._pass_turn()

    @cython.cfunc
    def _pass_turn(self) -> cython.void:
        self._set(TO_MOVE, 1 - self.st[TO_MOVE])
        self._set(PHASE, PHASE_ROLL if self.die > 0 else PHASE_DRAW)
        self._set(EDGES_LEFT, 0)
        self._set(DRAWN_THIS_TURN, 0)
        self._add(TURN, 1)

    def draw(self, edge: cython.int) -> cython.int:
        """Draws an open edge for the player to move; returns the number of squares captured."""
        self._begin_action()
        if self.recording:
            self.events = []
        return self._draw(edge)

    @cython.cfunc
    def _draw(self, edge: cython.int) -> cython.int:
        st: cython.int[::1] = self.st
        p: cython.int = st[TO_MOVE]
        j: cython.int
        q: cython.int
        left: cython.int
        completed: cython.int = 0
        captured: cython.int = 0
        self._set(self.o_drawn + edge, p + 1)
        self._add(OPEN_EDGES, -1)
        self._add(DRAWN_THIS_TURN, 1)
        for j in range(self.on_start[edge], self.on_start[edge + 1]):
            q = self.on_edge[j]
            self._add(self.o_missing + q, -1)
            if st[self.o_missing + q] == 0:
                self.done[completed] = q
                completed += 1
        for j in range(completed):
            captured += self._resolve(self.done[j], p)
        if self._over():
            self._set(PHASE, PHASE_OVER)
            self._set(EDGES_LEFT, 0)
        elif self.die > 0:
            if not (self.free_capture and captured > 0):
                left = st[EDGES_LEFT] - 1
                self._set(EDGES_LEFT, left)
                if left <= 0:
                    self._pass_turn()
        elif not (self.owes_line and captured > 0):
            self._pass_turn()
        return captured

    @cython.cfunc
    def _resolve(self, q: cython.int, p: cython.int) -> cython.int:
        """Resolves square ``q``, just completed by player ``p``; returns 1 if it was captured."""
        st: cython.int[::1] = self.st
        o: cython.int = 1 - p
        k: cython.int = self.size[q]
        base: cython.int = k * k
        rule: cython.int = self.rule
        j: cython.int
        t: cython.int
        b: cython.int
        bonus: cython.int = 0
        mine: cython.int = 0
        theirs: cython.int = 0
        if rule == R_INDEPENDENT:
            self._capture(q, p, base)
        elif rule == R_CONSUME:
            for j in range(self.ar_start[q], self.ar_start[q + 1]):
                if st[self.o_status + self.around[j]] == HELD:
                    return self._block(q, p)
            self._capture(q, p, base)
            for j in range(self.in_start[q], self.in_start[q + 1]):
                t = self.inside[j]
                if st[self.o_status + t] == HELD:
                    self._remove(t)
        elif rule == R_EXCLUSIVE:
            for j in range(self.bx_start[q], self.bx_start[q + 1]):
                b = self.boxes[j]
                if st[self.o_cover + b] + st[self.o_cover + self.b_count + b] > 0:
                    return self._block(q, p)
            self._capture(q, p, base)
        elif rule == R_TAKEOVER:
            self._capture(q, p, base)
            for j in range(self.in_start[q], self.in_start[q + 1]):
                t = self.inside[j]
                if st[self.o_status + t] == HELD and st[self.o_owner + t] == o:
                    self._take_over(t, p)
        elif rule == R_PROTECTED:
            for j in range(self.in_start[q], self.in_start[q + 1]):
                if st[self.o_status + self.inside[j]] == HELD:
                    return self._block(q, p)
            self._capture(q, p, base)
        elif rule in (R_LAYERED, R_CAPPED_LAYERED):
            for j in range(self.bx_start[q], self.bx_start[q + 1]):
                b = st[self.o_cover + p * self.b_count + self.boxes[j]]
                if rule == R_LAYERED:
                    bonus += b
                elif b > 0:
                    bonus += 1
            self._capture(q, p, base + bonus)
        elif rule == R_VOLATILE:
            self._capture(q, p, base)
            for j in range(self.in_start[q], self.in_start[q + 1]):
                t = self.inside[j]
                if st[self.o_status + t] == HELD and st[self.o_owner + t] == o:
                    self._remove(t)
        elif rule == R_BUILDER:
            for j in range(self.in_start[q], self.in_start[q + 1]):
                t = self.inside[j]
                if st[self.o_status + t] == HELD and st[self.o_owner + t] == p:
                    bonus += self.size[t] * self.size[t]
            self._capture(q, p, base + bonus)
        elif rule == R_TERRITORY:
            self._capture(q, p, 0)
            for j in range(self.bx_start[q], self.bx_start[q + 1]):
                b = self.boxes[j]
                t = st[self.o_holder + b]
                if t != p:
                    if t == o:
                        self._add(SCORE + o, -1)
                    self._set(self.o_holder + b, p)
                    self._add(SCORE + p, 1)
        elif rule == R_MAJORITY:
            if k > 1:
                for j in range(self.in_start[q], self.in_start[q + 1]):
                    t = self.inside[j]
                    if self.size[t] == 1 and st[self.o_status + t] == HELD:
                        if st[self.o_owner + t] == p:
                            mine += 1
                        else:
                            theirs += 1
            self._capture(q, o if theirs > mine else p, base)
        elif rule == R_FORTRESS:
            for j in range(self.in_start[q], self.in_start[q + 1]):
                t = self.inside[j]
                if st[self.o_status + t] == HELD and st[self.o_owner + t] == o:
                    return self._block(q, p)
            self._capture(q, p, base)
        elif rule == R_HOME_TURF:
            for j in range(self.ar_start[q], self.ar_start[q + 1]):
                t = self.around[j]
                if st[self.o_status + t] == HELD:
                    if st[self.o_owner + t] == p:
                        mine = 1
                    else:
                        theirs = 1
            if mine and not theirs:
                base *= 2
            elif theirs and not mine:
                base = 0
            self._capture(q, p, base)
        return 1

    @cython.cfunc
    def _capture(self, q: cython.int, p: cython.int, points: cython.int) -> cython.void:
        j: cython.int
        self._set(self.o_status + q, HELD)
        self._set(self.o_owner + q, p)
        self._set(self.o_points + q, points)
        self._add(SCORE + p, points)
        if self.track_cover:
            for j in range(self.bx_start[q], self.bx_start[q + 1]):
                self._add(self.o_cover + p * self.b_count + self.boxes[j], 1)
        if self.recording:
            self.events.append((EV_CAPTURE, q, p, points))

    @cython.cfunc
    def _block(self, q: cython.int, p: cython.int) -> cython.int:
        self._set(self.o_status + q, DEAD)
        if self.recording:
            self.events.append((EV_BLOCKED, q, p, 0))
        return 0

    @cython.cfunc
    def _remove(self, t: cython.int) -> cython.void:
        owner: cython.int = self.st[self.o_owner + t]
        points: cython.int = self.st[self.o_points + t]
        j: cython.int
        self._set(self.o_status + t, REMOVED)
        self._add(SCORE + owner, -points)
        if self.track_cover:
            for j in range(self.bx_start[t], self.bx_start[t + 1]):
                self._add(self.o_cover + owner * self.b_count + self.boxes[j], -1)
        if self.recording:
            self.events.append((EV_REMOVED, t, owner, -points))

    @cython.cfunc
    def _take_over(self, t: cython.int, p: cython.int) -> cython.void:
        points: cython.int = self.st[self.o_points + t]
        self._set(self.o_owner + t, p)
        self._add(SCORE + 1 - p, -points)
        self._add(SCORE + p, points)
        if self.recording:
            self.events.append((EV_TAKEN_OVER, t, p, points))

    @cython.cfunc
    def _capturable(self, q: cython.int) -> cython.bint:
        """Whether an incomplete square's rule could still let it be captured."""
        st: cython.int[::1] = self.st
        rule: cython.int = self.rule
        j: cython.int
        b: cython.int
        t: cython.int
        seen0: cython.bint = False
        seen1: cython.bint = False
        if rule == R_EXCLUSIVE:
            for j in range(self.bx_start[q], self.bx_start[q + 1]):
                b = self.boxes[j]
                if st[self.o_cover + b] + st[self.o_cover + self.b_count + b] > 0:
                    return False
        elif rule == R_CONSUME:
            for j in range(self.ar_start[q], self.ar_start[q + 1]):
                if st[self.o_status + self.around[j]] == HELD:
                    return False
        elif rule == R_PROTECTED:
            for j in range(self.in_start[q], self.in_start[q + 1]):
                if st[self.o_status + self.inside[j]] == HELD:
                    return False
        elif rule == R_FORTRESS:
            for j in range(self.in_start[q], self.in_start[q + 1]):
                t = self.inside[j]
                if st[self.o_status + t] == HELD:
                    if st[self.o_owner + t] == 0:
                        seen0 = True
                    else:
                        seen1 = True
            return not (seen0 and seen1)
        return True

    @cython.cfunc
    def _over(self) -> cython.bint:
        """The game is over when no open edge can lead to a capture."""
        q: cython.int
        if self.st[OPEN_EDGES] == 0:
            return True
        if not self.can_block:
            return False
        for q in range(self.s_count):
            if self.st[self.o_status + q] == OPEN and self._capturable(q):
                return False
        return True

    # --- reading the position ------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self.st[TO_MOVE]

    @property
    def phase(self) -> int:
        return self.st[PHASE]

    @property
    def over(self) -> bool:
        return self.st[PHASE] == PHASE_OVER

    @property
    def edges_left(self) -> int:
        return self.st[EDGES_LEFT]

    @property
    def drawn_this_turn(self) -> int:
        return self.st[DRAWN_THIS_TURN]

    @property
    def open_edges(self) -> int:
        return self.st[OPEN_EDGES]

    @property
    def capturing_edge_free(self) -> bool:
        """chain_reaction's rule: an edge that captures does not count against the roll."""
        return self.free_capture

    @property
    def turn(self) -> int:
        return self.st[TURN]

    def score(self, player: cython.int) -> int:
        return self.st[SCORE + player]

    def drawn_by(self, edge: cython.int) -> int:
        """0 for an open edge, else the player who drew it plus one."""
        return self.st[self.o_drawn + edge]

    def square_status(self, q: cython.int) -> int:
        return self.st[self.o_status + q]

    def square_owner(self, q: cython.int) -> int:
        return self.st[self.o_owner + q]

    def square_points(self, q: cython.int) -> int:
        return self.st[self.o_points + q]

    def missing(self, q: cython.int) -> int:
        """How many outline edges of a square are still open."""
        return self.st[self.o_missing + q]

    def box_holder(self, box: cython.int) -> int:
        """Under territory, who holds a box (-1: nobody)."""
        return self.st[self.o_holder + box]

    def capturable(self, q: cython.int) -> bool:
        """Whether a square is incomplete and can still be captured."""
        return self.st[self.o_status + q] == OPEN and self._capturable(q)

    def edge_dead(self, edge: cython.int) -> bool:
        """Whether an open edge can no longer lead to a capture."""
        return self._edge_dead(edge)

    @cython.cfunc
    def _edge_dead(self, edge: cython.int) -> cython.bint:
        j: cython.int
        q: cython.int
        for j in range(self.on_start[edge], self.on_start[edge + 1]):
            q = self.on_edge[j]
            if self.st[self.o_status + q] == OPEN and self._capturable(q):
                return False
        return True

    def open_edge_list(self) -> list:
        return [e for e in range(self.e_count) if self.st[self.o_drawn + e] == 0]

    # The view reads these on every action: one pass each in C rather than a call per edge or
    # square from Python.

    def drawn_codes(self) -> list:
        """The drawn edges in edge order, each as ``edge * 2 + the player who drew it``."""
        e: cython.int
        by: cython.int
        found: list = []
        for e in range(self.e_count):
            by = self.st[self.o_drawn + e]
            if by != 0:
                found.append(e * 2 + by - 1)
        return found

    def held_list(self) -> list:
        """The held squares in id order, each as ``(square, the player who holds it plus one
        (as drawn_by), points)``."""
        q: cython.int
        found: list = []
        for q in range(self.s_count):
            if self.st[self.o_status + q] == HELD:
                found.append((q, self.st[self.o_owner + q] + 1, self.st[self.o_points + q]))
        return found

    def dead_edge_list(self) -> list:
        """The open edges that can no longer lead to a capture, in edge order."""
        e: cython.int
        found: list = []
        for e in range(self.e_count):
            if self.st[self.o_drawn + e] == 0 and self._edge_dead(e):
                found.append(e)
        return found

    def capturing_edge(self) -> int:
        """The lowest open edge that would complete a square that can still be captured, or -1."""
        e: cython.int
        j: cython.int
        q: cython.int
        for e in range(self.e_count):
            if self.st[self.o_drawn + e] != 0:
                continue
            for j in range(self.on_start[e], self.on_start[e + 1]):
                q = self.on_edge[j]
                if self.st[self.o_missing + q] == 1 and self._capturable(q):
                    return e
        return -1

    def one_short(self) -> int:
        """Squares one edge short of complete that can still be captured."""
        q: cython.int
        count: cython.int = 0
        for q in range(self.s_count):
            if self.st[self.o_missing + q] == 1 and self.capturable(q):
                count += 1
        return count

    # --- playouts --------------------------------------------------------------------------

    def playout(self, seed: cython.ulonglong, max_turns: cython.int = -1) -> None:
        """Plays on with uniformly random edges and rolls until the game ends, or until
        ``max_turns`` more turns have begun. Nothing it does can be taken back."""
        open_list: cython.int[::1] = self.open_list
        n_open: cython.int = 0
        e: cython.int
        i: cython.int
        stop_turn: cython.int = self.st[TURN] + max_turns
        x: cython.ulonglong = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E5) & MASK64
        if x == 0:
            x = 0x2545F4914F6CDD1D
        for e in range(self.e_count):
            if self.st[self.o_drawn + e] == 0:
                open_list[n_open] = e
                n_open += 1
        self.journaling = False
        self.recording = False
        self.marks = []
        self.jlen = 0
        while self.st[PHASE] != PHASE_OVER:
            if max_turns >= 0 and self.st[TURN] >= stop_turn:
                break
            x = _next_random(x)
            if self.st[PHASE] == PHASE_ROLL:
                self._roll(cython.cast(cython.int, (x >> 11) % cython.cast(cython.ulonglong, self.die)) + 1)
                continue
            i = cython.cast(cython.int, (x >> 11) % cython.cast(cython.ulonglong, n_open))
            e = open_list[i]
            n_open -= 1
            open_list[i] = open_list[n_open]
            self._draw(e)
        self.journaling = True
