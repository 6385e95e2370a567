"""Expert's evaluation of candidate turns: one pure function, so that it can run in-process or be
fanned out to worker processes (the services hand it to a Celery pool).

Same inputs and seed, same statistics: the playouts use the core's seeded policy
(``playout.policy_playout``), and playout number j uses the same seed for every candidate
(common random numbers, so that candidates are compared on the same dice). Batches compose:
``first_playout`` lets a caller (or a pool of workers) split the playouts of one evaluation into
ranges and add the statistics up.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from boxedin.engine.replay import play_transcript

from .context import Position
from .playout import margin, policy_playout, reply_total

MASK64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class CandidateStats:
    """Playout results of one candidate turn, as margins for the player who takes it (a cut
    playout's margin includes its evaluation; wins and losses count margins above and below 0)."""

    playouts: int = 0
    total: float = 0.0
    total_sq: float = 0.0
    wins: int = 0
    losses: int = 0
    # The sum over playouts of this candidate's value times the first candidate's on the same
    # dice: with it, how far a candidate differs from the first one has a standard error.
    cross: float = 0.0

    @property
    def mean(self) -> float:
        return self.total / self.playouts if self.playouts else float("-inf")

    def __add__(self, other: CandidateStats) -> CandidateStats:
        return CandidateStats(
            self.playouts + other.playouts,
            self.total + other.total,
            self.total_sq + other.total_sq,
            self.wins + other.wins,
            self.losses + other.losses,
            self.cross + other.cross,
        )

    def gain_over(self, first: CandidateStats) -> tuple[float, float]:
        """(mean of this candidate minus the first's, its standard error): playout j of both ran
        on the same dice, so the error is that of the paired differences."""
        n = self.playouts
        if n == 0 or first.playouts != n:
            return float("-inf"), 0.0
        gain = (self.total - first.total) / n
        spread = (self.total_sq - 2 * self.cross + first.total_sq) / n - gain * gain
        return gain, math.sqrt(max(spread, 0.0) / n)

    def to_json(self) -> dict[str, Any]:
        return {
            "playouts": self.playouts,
            "mean": self.mean if self.playouts else None,
            "wins": self.wins,
            "losses": self.losses,
            "total": self.total,
            "total_sq": self.total_sq,
            "cross": self.cross,
        }


def playout_seed(seed: int, index: int) -> int:
    """The seed of playout ``index``: a hash, so neighbouring playouts are unrelated."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") & MASK64


Replies = Sequence[Sequence[Sequence[int]]]


def evaluate_candidates(
    position: Position | Mapping[str, Any],
    candidates: Sequence[Sequence[int]],
    *,
    playouts: int,
    seed: int,
    die: int | None = None,
    horizon: int | None = None,
    first_playout: int = 0,
    replies: Replies | None = None,
    cut_share: float = 1.0,
) -> list[CandidateStats]:
    """Plays every candidate turn (edge ids, from ``position`` with the die rolled; the turn
    ends after them) out ``playouts`` times and returns statistics, one per candidate.

    ``position``: a core Position, or a transcript (replay format) that stops where the turn's
    edges begin (``die`` is then read from its mode). ``horizon``: playouts stop after that many
    turns and are scored by ``score_cut_playout``; None plays to the end. ``replies`` (dice
    games): the opponent's next turn after each candidate for every face of the die,
    ``replies[c][face - 1]`` its lines; playout number j (counting from ``first_playout``)
    starts after the reply to face j % die + 1. Stratified so, every ``die`` playouts meet each
    face once and the luck of that roll is gone from the comparison, while each playout is a game
    of its own for the dice after it (averaging all the faces in every playout cost ``die``
    playouts for one sample of the later dice). ``cut_share``: how much of their mean best reply
    a cut playout credits to the player about to move (``score_cut_playout``).
    """
    if isinstance(position, Mapping):
        game = play_transcript(dict(position))
        pos: Position = game.position.copy()
        die = game.rules.die
    else:
        pos = position.copy()
    if replies is not None:
        _check_replies(replies, len(candidates), die)
    me = pos.to_move
    seeds = [playout_seed(seed, j) for j in range(first_playout, first_playout + playouts)]
    results: list[CandidateStats] = []
    first_values: list[float] = []
    for c, candidate in enumerate(candidates):
        start = after_turn(pos, candidate, die)
        faces = replies[c] if replies is not None and not start.over else None
        replied = faces is not None
        leaves = [start] if faces is None else _after_replies(start, faces)
        # The reply is the first of the ``horizon`` turns.
        turns = -1 if horizon is None else max(0, horizon - replied)
        values = [0.0] * playouts
        for j in range(playouts):
            # Stratified over the reply's face (see above).
            run = leaves[(first_playout + j) % len(leaves)].copy()
            policy_playout(run, seeds[j], turns)
            value = float(margin(run, me))
            if horizon is not None and not run.over:
                value += score_cut_playout(run, me, die, cut_share)
            values[j] = value
        if not results:
            first_values = values
        results.append(
            CandidateStats(
                playouts,
                sum(values),
                sum(v * v for v in values),
                sum(v > 0 for v in values),
                sum(v < 0 for v in values),
                sum(v * f for v, f in zip(values, first_values, strict=True)),
            )
        )
    return results


def exact_lookahead(horizon: int | None, replies: Replies | None) -> bool:
    """Whether playouts cut right after the given replies (``horizon`` 1) are exact: playout j
    is then the reply to face j % die + 1 and the cut's score, with nothing random, so ``die``
    playouts are the whole evaluation and more only repeat them."""
    return horizon == 1 and replies is not None


def after_turn(pos: Position, edges: Sequence[int], die: int | None) -> Position:
    """A copy of ``pos`` after the mover draws ``edges`` and, in a dice game, ends the turn."""
    after = pos.copy()
    me = after.to_move
    for edge in edges:
        after.draw(edge)
    if not after.over and after.to_move == me and die:
        after.end_turn()
    return after


def _check_replies(replies: Replies, candidates: int, die: int | None) -> None:
    if not die:
        raise ValueError("replies are for dice games: one per face of the die")
    if len(replies) != candidates or any(len(faces) != die for faces in replies):
        raise ValueError(f"replies need one list per candidate ({candidates}) and per face (d{die})")


def _after_replies(start: Position, faces: Sequence[Sequence[int]]) -> list[Position]:
    """The positions after the opponent rolls each face and draws its reply, turn ended."""
    opponent = start.to_move
    leaves = []
    for face, reply in enumerate(faces, start=1):
        leaf = start.copy()
        leaf.roll(face)
        if not reply:
            raise ValueError(f"the reply to face {face} draws no line: a turn draws at least one")
        open_lines = set(leaf.open_edge_list())
        for edge in reply:
            if leaf.over or leaf.to_move != opponent or edge not in open_lines:
                raise ValueError(f"the reply to face {face} draws line {edge} where it cannot be drawn")
            leaf.draw(edge)
            open_lines.discard(edge)
        if not leaf.over and leaf.to_move == opponent:
            leaf.end_turn()
        leaves.append(leaf)
    return leaves


def score_cut_playout(run: Position, me: int, die: int | None, share: float = 1.0) -> float:
    """The evaluation of a playout cut at a turn's start: the player about to move is credited
    with ``share`` of their mean best reply (what is lying on the board for them; they net only
    part of it, as what their turn leaves goes to the opponent: ``expert.LOOKAHEAD_SHARES``)."""
    if not die:
        return 0.0
    bonus = share * reply_total(run, run.to_move) / die
    return bonus if run.to_move == me else -bonus
