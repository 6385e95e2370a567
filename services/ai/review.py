"""The review of a finished game: for each turn, from the mover's side, the expected final margin
with best play before the turn and after the turn as played, the best turn found, and the points
the played turn lost against it. Pure: a game in, figures out; where it runs is ``review_work``.

A turn is judged where its player decides: in dice games once the roll is known (the luck of the
roll is nobody's mistake; before and after are expected values over the dice still to come), in
standard at the turn's first line. "After" is the same player's expected final margin once the
turn is over (the opponent to move). Values are exact where the solver reaches
(``solver.solve_standard`` for standard endgames, expectimax over the die where the table of the
rest of the game is small, ``solver_link``'s horizon); elsewhere they are estimated by Expert's
candidate turns with the played turn added, each played out for longer than Expert thinks in
play (``ESTIMATE_SECONDS``). An estimated loss is never below 0: a played turn that comes out
above every candidate is the best found.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from boxedin.engine.actions import Draw, EndTurn, Roll, Timeout, Undo
from boxedin.engine.board import geometry
from boxedin.engine.game import Game
from boxedin.engine.rules import Overlap, RuleSet
from boxedin.engine.view import held_squares_json

from . import solver
from .context import PlanContext, Position
from .evaluation import CandidateStats, after_turn, evaluate_candidates
from .expert import dice_candidates, standard_candidates
from .playout import margin

# Estimated turns: the playouts' time a turn, in one process (Expert's in-play budget is 0.7 s
# spread over the pool; a review has no clock to beat).
ESTIMATE_SECONDS = 1.0
# Exact dice values where the table of every set of drawn lines holds at most this many values
# (19 open lines with a d6 or 18 with a d8 to d12: well under a second here).
REVIEW_TABLE_CELLS = 1 << 22
# Exact values past the whole boards below: the solver's own horizon
# (``standard_endgame_small_enough``) or a small dice table, each position given this long before
# the turn is estimated instead (`boxedin bench review` met a 5x5 endgame taking 20 s on a loaded
# machine). A whole board up to 3x3 always finishes (1.2 s from empty here): it has no limit.
ENDGAME_EXACT_SECONDS = 2.0
# Standard boards this small are solved whole, from the first line (3x3 from empty: about 1.2 s,
# once; the solver's table keeps it for every later turn of the game).
WHOLE_BOARD_BOXES = 3
# Each player's biggest mistakes marked on the advantage graph.
MISTAKES_MARKED = 3


@dataclass(frozen=True, slots=True)
class TurnPlay:
    """One turn as it was played. ``position``: where its player decided (the roll made);
    ``edges``: the lines the turn kept (an undone line is not part of it), engine edge ids;
    ``board``: the board after the turn, as the client draws it."""

    turn: int
    player: int
    roll: int | None
    position: Position
    edges: tuple[int, ...]
    board: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TurnReview:
    """The figures of one turn, for its player (1 or 2): expected final margins before (with the
    best turn) and after the played turn, the best turn's lines, the points lost, and whether
    the figures are exact."""

    turn: int
    player: int
    roll: int | None
    played: tuple[list[object], ...]
    best: tuple[list[object], ...]
    before: float
    after: float
    loss: float
    exact: bool
    board: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "player": self.player,
            "roll": self.roll,
            "played": list(self.played),
            "best": list(self.best),
            "before": round(self.before, 3),
            "after": round(self.after, 3),
            "loss": round(self.loss, 3),
            "exact": self.exact,
            "board": self.board,
        }


def _fresh(game: Game) -> Game:
    """A game of the same rules, first player and options, before any action: the rolls are in
    the actions, so no seed is needed to replay them."""
    return Game(game.rules, mode=game.mode, first=game.first, undo_allowed=True)


def _board(game: Game) -> dict[str, Any]:
    drawn = game.geo.drawn_edge_json
    return {
        "edges": [drawn[code] for code in game.position.drawn_codes()],
        "squares": held_squares_json(game),
        "scores": list(game.scores),
    }


def turns_of(game: Game) -> list[TurnPlay]:
    """Every turn of the game in which its player decided something (a turn cut short by a
    resignation is left out: nobody chose it), by replaying its actions."""
    replay = _fresh(game)
    kept: dict[int, list[int]] = {}
    for move in game.history:
        kept.setdefault(move.turn, []).append(game.geo.edge_id(move.edge))
    turns: list[TurnPlay] = []
    decided: tuple[int, int, int | None, Position] | None = None

    def close() -> None:
        nonlocal decided
        if decided is not None:
            turn, player, roll, position = decided
            turns.append(TurnPlay(turn, player, roll, position, tuple(kept.get(turn, ())), _board(replay)))
            decided = None

    for action in game.actions:
        if replay.over:
            break
        before_turn = int(replay.position.turn)
        if decided is None and replay.phase == "draw":
            # Standard, or a resumed dice turn: the turn's decisions start here.
            decided = (before_turn, replay.to_move or 0, replay.current_roll, replay.position.copy())
        replay.apply(action)
        if isinstance(action, Roll) and replay.phase == "draw":
            decided = (before_turn, replay.to_move or 0, replay.current_roll, replay.position.copy())
        if int(replay.position.turn) != before_turn or replay.over:
            if replay.resigned is not None:
                decided = None
                break
            close()
    return turns


# --- values -----------------------------------------------------------------------------------


def _simple_scoring(rules: RuleSet) -> bool:
    return rules.sizes == (1,) or rules.overlap is Overlap.INDEPENDENT


def _exact_margin(pos: Position, me: int, rules: RuleSet) -> float | None:
    """The expected final margin of core player ``me`` with best play from ``pos``, exactly, or
    None outside the solver's horizon."""
    if pos.over:
        return float(margin(pos, me))
    sign = 1.0 if pos.to_move == me else -1.0
    deadline = _exact_deadline(rules)
    if rules.die is None:
        if not (rules.capture_owes_line and rules.sizes == (1,)):
            return None
        if rules.boxes > WHOLE_BOARD_BOXES and not solver.standard_endgame_small_enough(pos, rules):
            return None
        found = solver.solve_standard(pos.copy(), deadline=deadline, rules=rules)
        if found is None:
            return None
        return float(margin(pos, me)) + sign * found.value
    if not _exact_dice(pos, rules):
        return None
    turn = solver.best_dice_turn(pos.copy(), deadline=deadline, rules=rules)
    return None if turn is None else sign * turn.margin


def _exact_dice(pos: Position, rules: RuleSet) -> bool:
    die = rules.die or 0
    if _simple_scoring(rules):
        return (die + 1) << pos.open_edges <= REVIEW_TABLE_CELLS
    # Other overlap rules search the engine's own moves: the rule book's 14 open lines.
    return pos.open_edges <= 14 and not rules.capturing_edge_free


def _exact_deadline(rules: RuleSet) -> float | None:
    if rules.die is None and rules.boxes <= WHOLE_BOARD_BOXES:
        return None
    return time.perf_counter() + ENDGAME_EXACT_SECONDS


def _exact_best(pos: Position, rules: RuleSet) -> tuple[int, ...] | None:
    deadline = _exact_deadline(rules)
    if rules.die is None:
        found = solver.solve_standard(pos.copy(), deadline=deadline, rules=rules)
        return None if found is None else found.line
    turn = solver.best_dice_turn(pos.copy(), deadline=deadline, rules=rules)
    return None if turn is None else turn.edges


def _seed(game_seed: str, turn: int) -> int:
    return int.from_bytes(hashlib.blake2b(f"review:{game_seed}:{turn}".encode(), digest_size=8).digest(), "big")


def _estimate(play: TurnPlay, rules: RuleSet, seed: str, seconds: float) -> tuple[float, float, tuple[int, ...]]:
    """(best mean, played mean, best candidate) over Expert's candidates and the played turn,
    played out in growing batches for ``seconds``; every candidate meets the same dice."""
    pos = play.position
    ctx = PlanContext(rules, geometry(rules.boxes, rules.sizes), seed, play.turn, budget=seconds)
    found = dice_candidates(pos.copy(), ctx) if rules.die else standard_candidates(pos.copy(), ctx)
    candidates = [play.edges, *(c for c in found if c != play.edges)] if play.edges else found
    totals = [CandidateStats() for _ in candidates]
    deadline = time.perf_counter() + seconds
    batch, done = (rules.die or 2), 0
    while True:
        started = time.perf_counter()
        stats = evaluate_candidates(
            pos, candidates, playouts=batch, seed=_seed(seed, play.turn), die=rules.die, first_playout=done
        )
        totals = [a + b for a, b in zip(totals, stats, strict=True)]
        done += batch
        spent = time.perf_counter() - started
        if deadline - time.perf_counter() <= spent * 1.2:
            break
        if spent < 0.05:
            batch *= 2
    means = [t.mean for t in totals]
    best = max(range(len(candidates)), key=lambda i: means[i])
    played = means[0] if play.edges else means[best]
    return means[best], played, candidates[best]


def review_turn(game: Game, play: TurnPlay, *, estimate_seconds: float = ESTIMATE_SECONDS) -> TurnReview:
    """The figures of one turn of ``game``."""
    rules = game.rules
    me = play.player - 1
    pos = play.position
    after = after_turn(pos, play.edges, rules.die)
    edge_json = game.geo.edge_json
    before_value = _exact_margin(pos, me, rules)
    after_value = _exact_margin(after, me, rules) if before_value is not None else None
    best = _exact_best(pos, rules) if after_value is not None else None
    if before_value is not None and after_value is not None and best is not None:
        exact = True
        # Exact values are consistent: the played turn never beats the best one.
        loss = max(0.0, before_value - after_value)
    else:
        exact = False
        before_value, after_value, best = _estimate(play, rules, game.dice.seed or "", estimate_seconds)
        loss = max(0.0, before_value - after_value)
        if loss == 0.0:
            best = play.edges
            before_value = after_value
    return TurnReview(
        play.turn,
        play.player,
        play.roll,
        tuple(edge_json[e] for e in play.edges),
        tuple(edge_json[e] for e in best),
        before_value,
        after_value,
        loss,
        exact,
        play.board,
    )


def biggest_mistakes(losses: Iterable[tuple[int, int, float]], player: int, count: int = MISTAKES_MARKED) -> list[int]:
    """The turns (their numbers) where ``player`` lost the most, biggest first, from (turn,
    player, loss) of each turn reviewed; turns that lost nothing are no mistakes."""
    lost = [(turn, loss) for turn, who, loss in losses if who == player and loss > LOSS_NOISE]
    lost.sort(key=lambda t: (-t[1], t[0]))
    return [turn for turn, _ in lost[:count]]


# Losses below this are noise of the estimates (or rounding), not mistakes.
LOSS_NOISE = 0.05


def transcript(game: Game) -> dict[str, Any]:
    """The game in the replay format (shared/spec/replay-format.md), which ``boxedin replay``
    reads back: resume marks and a resignation are not transcript actions and are left out."""
    data: dict[str, Any] = {"mode": game.mode.id if game.mode else None, "first": game.first}
    if game.rules.has_overlap:
        data["overlap"] = game.rules.overlap.id
    data["actions"] = [a.to_json() for a in game.actions if isinstance(a, _TRANSCRIPT_ACTIONS)]
    return data


_TRANSCRIPT_ACTIONS = (Roll, Draw, EndTurn, Undo, Timeout)
