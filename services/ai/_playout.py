"""The AI's playout policies on the engine's ``Position``: the estimates the players call many
times a turn (``margin``, ``new_shorts``, ``new_twos``, ``reply_total``) and the seeded playout
policy behind Expert's evaluation (``policy_playout``).

Written in Cython's pure-Python mode, like the engine core. Compiled, it cimports the core's C
layout (``engine/_core.pxd``) and works on a compiled ``Position``'s state and C methods
directly, as the core's own methods do; a position of the plain-Python core it hands to its own
plain-Python build (this source run as plain Python, ``boxedin.ai._playout_python``), so that
either core gets the policies of its own kind. Run as plain Python, it works on a plain-Python
``Position``. Callers import the public functions from ``boxedin.ai.playout``.

Every helper that changes the state takes it back through the position's journal before it
returns; the playout excepted, which cannot be taken back.
"""

from __future__ import annotations

from array import array
from pathlib import Path
from types import ModuleType

import cython

from boxedin.engine.backend import load_build

if cython.compiled:
    from cython.cimports.boxedin.engine._core import Position
else:
    Position = object  # a plain-Python Position: plain Python reads its attributes directly

# Layout of the core's state array and the codes it holds (see engine/_core.py).
TO_MOVE = cython.declare(cython.int, 0)
PHASE = cython.declare(cython.int, 1)
EDGES_LEFT = cython.declare(cython.int, 2)
DRAWN_THIS_TURN = cython.declare(cython.int, 3)
SCORE = cython.declare(cython.int, 4)  # two slots
OPEN_EDGES = cython.declare(cython.int, 6)
TURN = cython.declare(cython.int, 7)

PHASE_ROLL = cython.declare(cython.int, 0)
PHASE_DRAW = cython.declare(cython.int, 1)
PHASE_OVER = cython.declare(cython.int, 2)

OPEN = cython.declare(cython.int, 0)  # a square's status

MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)

_SOURCE = Path(__file__).with_name("_playout.py")
_plain_build: ModuleType | None = None


def _plain() -> ModuleType:
    """This source run as plain Python: the compiled build hands it plain-Python positions."""
    global _plain_build
    if _plain_build is None:
        _plain_build = load_build("boxedin.ai._playout", _SOURCE, "python")
    return _plain_build


# --- the public functions: each checks the position's build, the work is in C functions ------


def margin(pos: object, player: cython.int) -> int:
    """``player``'s score minus the opponent's."""
    if cython.compiled and not isinstance(pos, Position):
        return _plain().margin(pos, player)
    return _margin(pos, player)


def new_shorts(pos: object, edge: cython.int) -> int:
    """Squares that drawing ``edge`` would leave one edge short (and still capturable)."""
    if cython.compiled and not isinstance(pos, Position):
        return _plain().new_shorts(pos, edge)
    return _squares_left_missing(pos, edge, 2)


def new_twos(pos: object, edge: cython.int) -> int:
    """Squares that drawing ``edge`` would leave two edges short (and still capturable)."""
    if cython.compiled and not isinstance(pos, Position):
        return _plain().new_twos(pos, edge)
    return _squares_left_missing(pos, edge, 3)


def reply_total(pos: object, player: cython.int) -> int:
    """What ``player`` could gain in a turn starting now, summed over every face of the die
    (divide by the die for the average). Without a die: one turn of taking every square
    that is one edge short, again and again."""
    if cython.compiled and not isinstance(pos, Position):
        return _plain().reply_total(pos, player)
    return _reply_total(pos, player)


def policy_playout(pos: object, seed: cython.ulonglong, max_turns: cython.int = -1) -> None:
    """Plays on with a cheap version of the Hard player for both sides, until the game ends
    or ``max_turns`` more turns have begun (see ``_policy_playout``). Nothing it does can be
    taken back."""
    if cython.compiled and not isinstance(pos, Position):
        _plain().policy_playout(pos, seed, max_turns)
        return
    _policy_playout(pos, seed, max_turns)


# --- the policies ------------------------------------------------------------------------------


@cython.cfunc
@cython.inline
def _next_random(x: cython.ulonglong) -> cython.ulonglong:
    """xorshift64, as in the core: the same sequence compiled and in plain Python."""
    x ^= (x << 13) & MASK64
    x ^= x >> 7
    x ^= (x << 17) & MASK64
    return x


@cython.cfunc
def _rollback(pos: Position, mark: cython.int) -> cython.void:
    """Takes the state back to journal length ``mark`` (helpers' own draws, no marks)."""
    j: cython.int = pos.jlen
    while j > mark:
        j -= 2
        pos.st[pos.jr[j]] = pos.jr[j + 1]
    pos.jlen = mark


@cython.cfunc
@cython.inline
def _margin(pos: Position, player: cython.int) -> cython.int:
    return pos.st[SCORE + player] - pos.st[SCORE + 1 - player]


@cython.cfunc
def _squares_left_missing(pos: Position, edge: cython.int, before: cython.int) -> cython.int:
    j: cython.int
    q: cython.int
    count: cython.int = 0
    for j in range(pos.on_start[edge], pos.on_start[edge + 1]):
        q = pos.on_edge[j]
        if pos.st[pos.o_missing + q] == before and pos.st[pos.o_status + q] == OPEN and pos._capturable(q):
            count += 1
    return count


@cython.cfunc
def _greedy_gain(
    pos: Position,
    p: cython.int,
    budget: cython.int,
    free: cython.bint,
    skip: cython.int[::1],
    ol_start: cython.int[::1],
    outline: cython.int[::1],
) -> cython.int:
    """Margin ``p`` gains by finishing, with ``budget`` edges, the squares with the best
    points per edge one after another (a one-reply estimate). The caller rolls back."""
    st: cython.int[::1] = pos.st
    q: cython.int
    j: cython.int
    e: cython.int
    m: cython.int
    cost: cython.int
    value: cython.int
    best_q: cython.int
    best_cost: cython.int = 0
    best_value: cython.int = 0
    mark: cython.int
    before: cython.int
    start: cython.int = st[SCORE + p] - st[SCORE + 1 - p]
    for q in range(pos.s_count):
        skip[q] = 0
    # The helper draws for p without ever passing the turn.
    pos._set(TO_MOVE, p)
    pos._set(PHASE, PHASE_DRAW)
    pos._set(EDGES_LEFT, 1 << 28)
    while budget > 0 and st[PHASE] != PHASE_OVER:
        best_q = -1
        for q in range(pos.s_count):
            if st[pos.o_status + q] != OPEN or skip[q]:
                continue
            m = st[pos.o_missing + q]
            if m > budget:
                continue
            cost = m - 1 if free else m
            value = pos.size[q] * pos.size[q]
            # Best points per edge: value/cost, compared without division (cost 0 first).
            if best_q >= 0 and value * best_cost <= best_value * cost:
                continue
            if not pos._capturable(q):
                continue
            best_q = q
            best_cost = cost
            best_value = value
        if best_q < 0:
            break
        mark = pos.jlen
        before = st[SCORE + p] - st[SCORE + 1 - p]
        for j in range(ol_start[best_q], ol_start[best_q + 1]):
            e = outline[j]
            if st[pos.o_drawn + e] == 0 and st[PHASE] != PHASE_OVER:
                pos._draw(e)
        if st[SCORE + p] - st[SCORE + 1 - p] <= before:
            # Under its overlap rule this square pays p nothing: not a target.
            _rollback(pos, mark)
            skip[best_q] = 1
            continue
        budget -= best_cost
    return st[SCORE + p] - st[SCORE + 1 - p] - start


@cython.cfunc
def _reply_total(pos: Position, player: cython.int) -> cython.int:
    skip = array("i", bytes(4 * max(pos.s_count, 1)))
    ol_start: cython.int[::1] = pos.geo.outline_start
    outline: cython.int[::1] = pos.geo.outline
    face: cython.int
    total: cython.int = 0
    mark: cython.int = pos.jlen
    was_journaling: cython.bint = pos.journaling
    pos.journaling = True
    if pos.die == 0:
        total = _greedy_gain(pos, player, 1, True, skip, ol_start, outline)
        _rollback(pos, mark)
    else:
        for face in range(1, pos.die + 1):
            total += _greedy_gain(pos, player, min(face, pos.st[OPEN_EDGES]), pos.free_capture, skip, ol_start, outline)
            _rollback(pos, mark)
    pos.journaling = was_journaling
    return total


@cython.cfunc
@cython.inline
def _threat(die: cython.int, m: cython.int) -> cython.int:
    """What a square ``m`` edges short is worth to the opponent's next turn, in 1/die of
    its points: one short on every face, two short on most, more only now and then."""
    if m <= 0:
        return 0
    if m == 1:
        return die
    if m > die:
        return 0
    return (die - m + 1) // (m - 1)


@cython.cfunc
def _exposure(
    pos: Position,
    q: cython.int,
    after: cython.int,
    cnt: cython.int[::1],
    ol_start: cython.int[::1],
    outline: cython.int[::1],
) -> cython.int:
    """How much finishing square ``q`` now (with ``after`` edges left then) hands the
    opponent, in 1/die of points: the other squares its open edges bring closer, counted
    by how much cheaper they become, unless they can still be finished this turn (those
    left one edge short, the start of a chain, go to the last two slots of ``cnt``: their
    points, then the edges they need). Prohibitive (1 << 28) when it would end the turn with
    a square one edge short. ``cnt`` is scratch: zero for every square between calls."""
    st: cython.int[::1] = pos.st
    j: cython.int
    k: cython.int
    e: cython.int
    r: cython.int
    mr: cython.int
    old: cython.int
    total: cython.int = 0
    hands_over: cython.bint = False
    chain_points: cython.int = pos.s_count
    chain_edges: cython.int = pos.s_count + 1
    cnt[chain_points] = 0
    cnt[chain_edges] = 0
    for j in range(ol_start[q], ol_start[q + 1]):
        e = outline[j]
        if st[pos.o_drawn + e] != 0:
            continue
        for k in range(pos.on_start[e], pos.on_start[e + 1]):
            r = pos.on_edge[k]
            if r != q and st[pos.o_status + r] == OPEN:
                cnt[r] += 1
    for j in range(ol_start[q], ol_start[q + 1]):
        e = outline[j]
        if st[pos.o_drawn + e] != 0:
            continue
        for k in range(pos.on_start[e], pos.on_start[e + 1]):
            r = pos.on_edge[k]
            if cnt[r] == 0:
                continue
            old = st[pos.o_missing + r]
            mr = old - cnt[r]
            cnt[r] = 0
            if not pos._capturable(r):
                continue
            if mr <= after:
                if mr == 1 and cnt[chain_edges] < after:
                    # Taken next, one edge each (none with free captures).
                    cnt[chain_points] += pos.size[r] * pos.size[r]
                    cnt[chain_edges] += 0 if pos.free_capture else 1
                continue
            if mr == 1 and after == 0 and st[pos.o_missing + q] > 1:
                # It would end the turn with a square one edge short, and often a chain
                # behind it: like Hard, the playout does not start what ends that way.
                hands_over = True
            total += (_threat(pos.die, mr) - _threat(pos.die, old)) * pos.size[r] * pos.size[r]
    if hands_over:
        return 1 << 28
    return total


@cython.cfunc
def _dice_target(
    pos: Position,
    left: cython.int,
    cnt: cython.int[::1],
    ol_start: cython.int[::1],
    outline: cython.int[::1],
) -> cython.int:
    """The square to work on with ``left`` edges: the best net points per edge (its points
    less what finishing it hands the opponent, plus the squares it leaves one edge short that
    this turn can take next, as in a chain) among those finishable now; -1 for none."""
    st: cython.int[::1] = pos.st
    q: cython.int
    m: cython.int
    cost: cython.int
    value: cython.int
    net: cython.int
    best_q: cython.int = -1
    best_cost: cython.int = 0
    best_net: cython.int = 0
    for q in range(pos.s_count):
        if st[pos.o_status + q] != OPEN:
            continue
        m = st[pos.o_missing + q]
        # Squares not begun yet are left alone: their edges mostly serve the opponent.
        if m > left or m >= 4 * pos.size[q]:
            continue
        cost = m - 1 if pos.free_capture else m
        value = pos.size[q] * pos.size[q] * pos.die
        if not pos._capturable(q):
            continue
        net = value - _exposure(pos, q, left - cost, cnt, ol_start, outline)
        if net <= 0:
            continue
        net += cnt[pos.s_count] * pos.die  # the chain behind it (see _exposure)
        cost += cnt[pos.s_count + 1]
        if best_q >= 0 and net * best_cost <= best_net * cost:
            continue
        best_q = q
        best_cost = cost
        best_net = net
    return best_q


@cython.cfunc
def _policy_playout(pos: Position, seed: cython.ulonglong, max_turns: cython.int) -> cython.void:
    """Plays on with a cheap version of the Hard player for both sides, until the game ends
    or ``max_turns`` more turns have begun. Dice: take a square one edge short; else work
    on the square with the best net points per edge that can be finished with the edges left
    (a chain's first square counts the squares it lets the turn take next; a square whose
    finish would end the turn with another one edge short is left alone);
    else end the turn, or (first edge) draw the edge that leaves the fewest squares one and
    then two edges short. Without a die: take, else the safest line. Nothing it does can be
    taken back."""
    st: cython.int[::1] = pos.st
    ol_start: cython.int[::1] = pos.geo.outline_start
    outline: cython.int[::1] = pos.geo.outline
    open_list: cython.int[::1] = pos.open_list
    n_open: cython.int = 0
    e: cython.int
    i: cython.int
    j: cython.int
    k: cython.int
    q: cython.int
    m: cython.int
    cost: cython.int
    value: cython.int
    left: cython.int
    best_q: cython.int
    best_cost: cython.int = 0
    best_value: cython.int = 0
    best_e: cython.int
    harm: cython.int
    best_harm: cython.int
    offset: cython.int
    stop_turn: cython.int = st[TURN] + max_turns
    target: cython.int = -1
    cnt: cython.int[::1] = array("i", bytes(4 * (pos.s_count + 2)))  # see _exposure
    x: cython.ulonglong = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E5) & MASK64
    # The dice have a stream of their own: the k-th roll of a playout is the same whatever
    # was drawn before it, so candidate turns compared on one seed meet the same dice.
    dice: cython.ulonglong = (seed * 0xD1B54A32D192ED03 + 0x8CB92BA72F3D8DD7) & MASK64
    if x == 0:
        x = 0x2545F4914F6CDD1D
    if dice == 0:
        dice = 0x2545F4914F6CDD1D
    pos.journaling = False
    pos.recording = False
    pos.marks = []
    pos.jlen = 0
    while st[PHASE] != PHASE_OVER:
        if max_turns >= 0 and st[TURN] >= stop_turn:
            break
        if st[PHASE] == PHASE_ROLL:
            target = -1
            dice = _next_random(dice)
            pos._roll(cython.cast(cython.int, (dice >> 11) % cython.cast(cython.ulonglong, pos.die)) + 1)
            continue
        x = _next_random(x)
        left = st[EDGES_LEFT] if pos.die > 0 else 1
        if pos.die > 0:
            # Keep working on the square begun until it is finished.
            if target >= 0 and st[pos.o_status + target] == OPEN and st[pos.o_missing + target] <= left:
                best_q = target
            else:
                best_q = _dice_target(pos, left, cnt, ol_start, outline)
                target = best_q
        else:
            best_q = -1
        for q in range(pos.s_count if pos.die == 0 else 0):
            if st[pos.o_status + q] != OPEN:
                continue
            m = st[pos.o_missing + q]
            if m > left or (pos.die == 0 and m > 1):
                continue
            cost = m - 1 if pos.free_capture else m
            value = pos.size[q] * pos.size[q]
            if best_q >= 0 and value * best_cost <= best_value * cost:
                continue
            if not pos._capturable(q):
                continue
            best_q = q
            best_cost = cost
            best_value = value
        if best_q >= 0:
            k = ol_start[best_q + 1] - ol_start[best_q]
            offset = cython.cast(cython.int, (x >> 11) % cython.cast(cython.ulonglong, k))
            for i in range(k):
                e = outline[ol_start[best_q] + (i + offset) % k]
                if st[pos.o_drawn + e] == 0:
                    break
            pos._draw(e)
            continue
        if pos.die > 0 and st[DRAWN_THIS_TURN] > 0:
            pos._pass_turn()
            target = -1
            continue
        # The edge that helps the opponent least, from a random starting point.
        n_open = 0
        for e in range(pos.e_count):
            if st[pos.o_drawn + e] == 0:
                open_list[n_open] = e
                n_open += 1
        offset = cython.cast(cython.int, (x >> 11) % cython.cast(cython.ulonglong, n_open))
        best_e = -1
        best_harm = 1 << 30
        for i in range(n_open):
            e = open_list[(i + offset) % n_open]
            harm = 0
            for j in range(pos.on_start[e], pos.on_start[e + 1]):
                q = pos.on_edge[j]
                if st[pos.o_status + q] != OPEN:
                    continue
                m = st[pos.o_missing + q]
                if pos.die == 0:
                    if m == 2:
                        harm += 64 * pos.size[q] * pos.size[q]
                elif pos._capturable(q):
                    # How much cheaper it makes the square for the opponent, then (least)
                    # whether it touches a square at all: dead edges first.
                    if m == 2:
                        harm += 64 * pos.size[q] * pos.size[q]
                    elif m == 3 and pos.die > 1:
                        harm += pos.size[q] * pos.size[q]
            if harm < best_harm:
                best_harm = harm
                best_e = e
                if harm == 0:
                    break
        pos._draw(best_e)
    pos.journaling = True
