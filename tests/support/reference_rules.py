"""Independent reference implementation of the Boxed In rules (test oracle).

Written only from /work/shared/spec/rules-notes.md, /work/shared/spec/replay-format.md and the
rule book (/work/shared/seeds/000_e82ee6c387ffd06b.txt); it shares no code with the engine.
Clarity over speed: most facts are recomputed from scratch.

Public API:  replay_transcript(data) -> (0, output_dict) | (1, {"error": {...}})

Readings chosen where the spec is not explicit (see also the report that came with this file):
- A roll is a "whole number" if it is a JSON integer (bool excluded) or a float with an integral
  value (3.0 is accepted as 3).  3.5, inf, nan, strings, bools are `malformed`.  A whole number
  outside 1..die (0, -1, 99, 10**30) is `bad_roll`.
- `first` must be the integer 1 or 2 (not a bool, not 1.0).  Edge coordinates must be ints (not
  bools, not floats); an edge may be a list or a tuple of length 3.
- `overlap: null` is an unknown overlap rule (`malformed`), not "absent".  Unknown extra header keys
  are ignored.  All `malformed` header checks run before `overlap_not_allowed`.  The order of the
  malformed header checks: object, mode, overlap, first, actions.
- Non-standard JSON constants (NaN, Infinity) and undecodable bytes are "not JSON" (`malformed`).
  Duplicate keys in a JSON object: the last one wins (Python's json default).
- When the game is over: to_move null, phase "over", edges_left null, round stays the round of the
  turn in which the game ended; dead_edges then lists every open edge.
- "An edge that captures" (chain_reaction, and the standard extra line) = an edge that completes at
  least one square that is captured by somebody (only 1x1 modes use these, where it is the same as
  completing a box).
- Undo and timeout are allowed in the same transcript (the "no undo with a move clock" rule is an
  app setting that the transcript does not carry).  A timeout in the draw phase with nothing drawn
  passes the turn as well.
"""

import json
from functools import cache

# mode: (n boxes per side, die faces or None, square sizes, default overlap, capture is free,
#        extra line after a capture)
MODES = {
    "mini": (3, 4, (1,), None, False, False),
    "standard": (5, None, (1,), None, False, True),
    "quick": (5, 6, (1,), None, False, False),
    "classic": (7, 6, (1,), None, False, False),
    "chain_reaction": (7, 6, (1,), None, True, False),
    "marathon": (11, 8, (1,), None, False, False),
    "strategic": (9, 8, (1, 2), "independent", False, False),
    "big_squares": (9, 10, (1, 2, 3), "independent", False, False),
    "expert": (11, 12, (1, 2, 3), "consume", False, False),
    "practice_2x2": (2, None, (1,), None, False, True),
    "practice_3x3": (3, None, (1,), None, False, True),
    "practice_4x4": (4, None, (1,), None, False, True),
}
RULES = ("independent", "consume", "exclusive", "takeover", "protected", "layered", "volatile",
         "builder", "territory", "majority", "fortress", "home_turf", "capped_layered")
ACTION_KEYS = ("roll", "draw", "end_turn", "undo", "timeout")


class ReplayError(Exception):
    def __init__(self, index, code, message):
        super().__init__(message)
        self.index, self.code, self.message = index, code, message


# ---------------------------------------------------------------- geometry
# A square is a tuple (k, r, c): size k, top-left box (r, c).  An edge is ("h"|"v", r, c).

def outline(sq):
    k, r, c = sq
    edges = []
    for j in range(c, c + k):
        edges.append(("h", r, j))
        edges.append(("h", r + k, j))
    for i in range(r, r + k):
        edges.append(("v", i, c))
        edges.append(("v", i, c + k))
    return edges


def boxes_of(sq):
    k, r, c = sq
    return [(i, j) for i in range(r, r + k) for j in range(c, c + k)]


def shared_boxes(a, b):
    """Number of boxes squares a and b have in common."""
    rows = min(a[1] + a[0], b[1] + b[0]) - max(a[1], b[1])
    cols = min(a[2] + a[0], b[2] + b[0]) - max(a[2], b[2])
    return max(0, rows) * max(0, cols)


def is_inside(small, big):
    """small lies completely inside big and is strictly smaller."""
    return small[0] < big[0] and shared_boxes(small, big) == small[0] * small[0]


@cache
def geometry(n, sizes):
    squares = [(k, r, c) for k in sizes for r in range(n - k + 1) for c in range(n - k + 1)]
    all_edges = [("h", r, c) for r in range(n + 1) for c in range(n)] + \
                [("v", r, c) for r in range(n) for c in range(n + 1)]
    outlines = {q: outline(q) for q in squares}
    on_edge = {e: [] for e in all_edges}          # edge -> squares whose outline holds it
    for q in squares:
        for e in outlines[q]:
            on_edge[e].append(q)
    overlapping, inside, around = {}, {}, {}
    for q in squares:
        overlapping[q] = [t for t in squares if t != q and shared_boxes(q, t) > 0]
        inside[q] = [t for t in overlapping[q] if is_inside(t, q)]
        around[q] = [t for t in overlapping[q] if is_inside(q, t)]
    return squares, all_edges, outlines, on_edge, overlapping, inside, around


# ---------------------------------------------------------------- the game

class Game:
    def __init__(self, mode, rule, first):
        (self.n, self.die, self.sizes, _default, self.free_capture,
         self.extra_line) = MODES[mode]
        self.rule = rule
        (self.squares, self.all_edges, self.outlines, self.on_edge, self.overlapping,
         self.inside, self.around) = geometry(self.n, self.sizes)
        # --- state that undo restores
        self.drawn = set()
        self.status = {}       # square -> "held" | "removed" | "dead"; absent = never completed
        self.owner = {}        # square -> current owner (also kept for removed squares)
        self.points = {}       # square -> points it scored / carries now
        self.box_owner = {}    # territory: box -> holder
        self.scores = [0, 0]
        self.counted = 0       # edges counted against the roll this turn
        # --- turn state
        self.to_move = first
        self.turn_index = 0    # turns begun before the current one
        self.roll = None       # capped roll of the current turn (dice modes)
        self.history = []      # snapshots before each draw of the current turn
        self.over = False

    # ---- helpers
    def held(self, q):
        return self.status.get(q) == "held"

    def complete(self, q):
        return self.drawn.issuperset(self.outlines[q])

    def open_edges(self):
        return [e for e in self.all_edges if e not in self.drawn]

    def open_count(self):
        return len(self.all_edges) - len(self.drawn)  # only edges on the board are ever drawn

    def snapshot(self):
        return (set(self.drawn), dict(self.status), dict(self.owner), dict(self.points),
                dict(self.box_owner), list(self.scores), self.counted)

    def restore(self, snap):
        (self.drawn, self.status, self.owner, self.points, self.box_owner, self.scores,
         self.counted) = snap

    def can_still_capture(self, q):
        """For a square that is not complete: could its rule still let somebody capture it?"""
        if self.complete(q):
            return False
        if self.rule == "exclusive":
            return not any(self.held(t) for t in self.overlapping[q])
        if self.rule == "consume":
            return not any(self.held(t) for t in self.around[q])
        if self.rule == "protected":
            return not any(self.held(t) for t in self.inside[q])
        if self.rule == "fortress":
            return len({self.owner[t] for t in self.inside[q] if self.held(t)}) < 2
        return True

    def game_is_over(self):
        return not any(self.can_still_capture(q) for q in self.squares)

    def dead_edges(self):
        return [e for e in self.open_edges()
                if not any(self.can_still_capture(q) for q in self.on_edge[e])]

    # ---- resolving one completed square
    def capture(self, q, who, pts):
        self.status[q] = "held"
        self.owner[q] = who
        self.points[q] = pts
        self.scores[who - 1] += pts

    def remove(self, t):
        self.status[t] = "removed"
        self.scores[self.owner[t] - 1] -= self.points[t]

    def resolve(self, q, p):
        """Square q was just completed by player p.  Returns True if somebody captured it."""
        o = 3 - p
        k = q[0]
        base = k * k
        rule = self.rule
        held_inside = [t for t in self.inside[q] if self.held(t)]
        held_around = [t for t in self.around[q] if self.held(t)]

        blocked = False
        if rule == "consume":
            blocked = bool(held_around)
        elif rule == "exclusive":
            blocked = any(self.held(t) for t in self.overlapping[q])
        elif rule == "protected":
            blocked = bool(held_inside)
        elif rule == "fortress":
            blocked = k > 1 and any(self.owner[t] != p for t in held_inside)
        if blocked:
            self.status[q] = "dead"
            return False

        if rule == "consume":
            for t in held_inside:
                self.remove(t)
            self.capture(q, p, base)
        elif rule == "takeover":
            for t in held_inside:
                if self.owner[t] == o:
                    self.scores[o - 1] -= self.points[t]
                    self.scores[p - 1] += self.points[t]
                    self.owner[t] = p
            self.capture(q, p, base)
        elif rule == "volatile":
            for t in held_inside:
                if self.owner[t] == o:
                    self.remove(t)
            self.capture(q, p, base)
        elif rule == "layered":
            bonus = sum(shared_boxes(q, t) for t in self.overlapping[q]
                        if self.held(t) and self.owner[t] == p)
            self.capture(q, p, base + bonus)
        elif rule == "capped_layered":
            covered = set()
            for t in self.overlapping[q]:
                if self.held(t) and self.owner[t] == p:
                    covered.update(boxes_of(t))
            bonus = len(covered & set(boxes_of(q)))
            self.capture(q, p, base + bonus)
        elif rule == "builder":
            bonus = sum(t[0] * t[0] for t in held_inside if self.owner[t] == p)
            self.capture(q, p, base + bonus)
        elif rule == "territory":
            self.capture(q, p, 0)
            for b in boxes_of(q):
                self.box_owner[b] = p
            holders = list(self.box_owner.values())
            self.scores = [holders.count(1), holders.count(2)]
        elif rule == "majority":
            who = p
            if k > 1:
                mine = sum(1 for t in held_inside if t[0] == 1 and self.owner[t] == p)
                theirs = sum(1 for t in held_inside if t[0] == 1 and self.owner[t] == o)
                who = o if theirs > mine else p
            self.capture(q, who, base)
        elif rule == "home_turf":
            a = any(self.owner[t] == p for t in held_around)
            b = any(self.owner[t] == o for t in held_around)
            pts = 2 * base if (a and not b) else 0 if (b and not a) else base
            self.capture(q, p, pts)
        else:  # independent, exclusive / protected / fortress when not blocked
            self.capture(q, p, base)
        return True

    # ---- turns
    def pass_turn(self):
        self.to_move = 3 - self.to_move
        self.turn_index += 1
        self.roll = None
        self.counted = 0
        self.history = []

    def draw(self, edge):
        p = self.to_move
        self.history.append(self.snapshot())
        self.drawn.add(edge)
        completed = [q for q in self.on_edge[edge] if self.complete(q)]
        if self.rule in ("builder", "majority"):
            completed.sort(key=lambda q: (q[0], q[1], q[2]))
        else:
            completed.sort(key=lambda q: (-q[0], q[1], q[2]))
        captured_any = False
        for q in completed:
            if self.resolve(q, p):
                captured_any = True
        if self.game_is_over():
            self.over = True
            return
        if self.die is not None:
            if not (self.free_capture and captured_any):
                self.counted += 1
            if self.counted >= self.roll:
                self.pass_turn()
        elif not captured_any:      # standard: a line that captures nothing ends the turn
            self.pass_turn()

    def phase(self):
        if self.over:
            return "over"
        if self.die is not None and self.roll is None:
            return "roll"
        return "draw"

    def output(self):
        over = self.over
        winner = None
        if over:
            s1, s2 = self.scores
            winner = 1 if s1 > s2 else 2 if s2 > s1 else 0
        edges_left = None
        if not over and self.die is not None and self.roll is not None:
            edges_left = self.roll - self.counted
        held = sorted(q for q in self.squares if self.held(q))
        order = {"h": 0, "v": 1}
        dead = sorted(self.dead_edges(), key=lambda e: (order[e[0]], e[1], e[2]))
        return {
            "scores": list(self.scores),
            "over": over,
            "winner": winner,
            "to_move": None if over else self.to_move,
            "phase": self.phase(),
            "edges_left": edges_left,
            "round": self.turn_index // 2 + 1,
            "squares": [{"size": k, "row": r, "col": c, "owner": self.owner[(k, r, c)]}
                        for (k, r, c) in held],
            "dead_edges": [[d, r, c] for (d, r, c) in dead],
            "open_edges": len(self.open_edges()),
        }

    # ---- one action (shape already checked)
    def apply(self, i, key, value):
        if self.over:
            raise ReplayError(i, "game_over", "The game is already over; no more actions are allowed.")
        if key == "roll":
            if self.die is None:
                raise ReplayError(i, "roll_not_due", "This mode is played without a die.")
            if self.roll is not None:
                raise ReplayError(i, "roll_not_due", "The die has already been rolled this turn.")
            if not 1 <= value <= self.die:
                raise ReplayError(i, "bad_roll", f"A roll must be between 1 and {self.die}.")
            self.roll = min(int(value), self.open_count())
        elif key == "draw":
            if self.die is not None and self.roll is None:
                raise ReplayError(i, "roll_due", "The die must be rolled before drawing an edge.")
            d, r, c = value
            n = self.n
            on_board = (0 <= r <= n and 0 <= c < n) if d == "h" else (0 <= r < n and 0 <= c <= n)
            if not on_board:
                raise ReplayError(i, "illegal_edge", f"The edge {[d, r, c]} is not on this board.")
            if (d, r, c) in self.drawn:
                raise ReplayError(i, "edge_taken", f"The edge {[d, r, c]} is already drawn.")
            self.draw((d, r, c))
        elif key == "end_turn":
            if self.die is None:
                raise ReplayError(i, "no_end_turn", "This mode has no End Turn.")
            if not self.history:
                raise ReplayError(i, "nothing_drawn", "Draw at least one edge before ending the turn.")
            self.pass_turn()
        elif key == "undo":
            if not self.history:
                raise ReplayError(i, "nothing_to_undo", "There is nothing to undo in this turn.")
            self.restore(self.history.pop())
        elif key == "timeout":
            self.pass_turn()


# ---------------------------------------------------------------- input checks

def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def check_action(i, action):
    """Returns (key, value) or raises a `malformed` ReplayError."""
    def bad(msg):
        raise ReplayError(i, "malformed", msg)
    if not isinstance(action, dict) or len(action) != 1:
        bad("An action must be an object with exactly one key.")
    key, value = next(iter(action.items()))
    if key not in ACTION_KEYS:
        bad(f"Unknown action {key!r}.")
    if key == "roll":
        # Reading: JSON integers are whole numbers; a float with an integral value (3.0) is
        # accepted as whole too; booleans, 3.5, inf, nan and strings are not.
        if is_int(value):
            return key, value
        if isinstance(value, float) and value.is_integer():
            return key, int(value)
        bad("A roll must be a whole number.")
    if key == "draw":
        if (not isinstance(value, (list, tuple)) or len(value) != 3 or value[0] not in ("h", "v")
                or not isinstance(value[0], str) or not is_int(value[1]) or not is_int(value[2])):
            bad('An edge must have the form ["h" or "v", row, column] with whole-number coordinates.')
        return key, (value[0], value[1], value[2])
    if value is not True:
        bad(f"{key} must have the value true.")
    return key, value


def run(data):
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise ReplayError(None, "malformed", "The transcript is not valid UTF-8 text.") from None
    if isinstance(data, str):
        def no_constant(name):
            raise ValueError(name)
        try:
            data = json.loads(data, parse_constant=no_constant)
        except (ValueError, RecursionError):
            raise ReplayError(None, "malformed", "The transcript is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ReplayError(None, "malformed", "The transcript must be a JSON object.")
    mode = data.get("mode")
    if not isinstance(mode, str) or mode not in MODES:
        raise ReplayError(None, "malformed", "The transcript has a missing or unknown mode.")
    overlap_given = "overlap" in data
    overlap = data.get("overlap")
    if overlap_given and not (isinstance(overlap, str) and overlap in RULES):
        raise ReplayError(None, "malformed", "The overlap rule is not one of the 13 rules.")
    first = data.get("first", 1)
    if not is_int(first) or first not in (1, 2):
        raise ReplayError(None, "malformed", "first must be 1 or 2.")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise ReplayError(None, "malformed", "The transcript needs an actions list.")
    sizes = MODES[mode][2]
    if overlap_given and max(sizes) == 1:
        raise ReplayError(None, "overlap_not_allowed",
                          f"The mode {mode} has 1x1 boxes only and takes no overlap rule.")
    rule = overlap if overlap_given else (MODES[mode][3] or "independent")
    game = Game(mode, rule, first)
    for i, action in enumerate(actions):
        key, value = check_action(i, action)
        game.apply(i, key, value)
    return game.output()


def replay_transcript(data):
    try:
        return 0, run(data)
    except ReplayError as err:
        return 1, {"error": {"index": err.index, "code": err.code, "message": err.message}}


if __name__ == "__main__":
    import sys
    from pathlib import Path

    text = sys.stdin.read() if len(sys.argv) < 2 or sys.argv[1] == "-" else Path(sys.argv[1]).read_text()
    status, out = replay_transcript(text)
    print(json.dumps(out))
    sys.exit(status)
