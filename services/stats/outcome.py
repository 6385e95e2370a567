"""What one finished game means for one device, its outcome: what the statistics, the achievements and
the leaderboard are worked out from, read once from a ``FinishedGame``.

The record (``boxedin.engine.codec``) holds the rules and every action, so everything is
recomputed from it: scores from the restored game, captures from its move history, the rolls of
each seat from its roll history (the capped roll the player saw, not the face the die showed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from boxedin.common.choices import LEVELS
from boxedin.engine.codec import CodecError, decode
from boxedin.engine.game import Game
from boxedin.v1 import common_pb2

# Who the device played against.
AGAINST = ("ai", "local", "practice", "online")
OUTCOMES = ("win", "loss", "tie")


@dataclass(frozen=True)
class GameOutcome:
    """Everything the statistics need about one finished game, from one device's seat.

    ``seat`` is the device's seat (1 or 2); in a local game, where the device holds both seats,
    it is 1, and ``outcome``, the scores and the rolls are seat 1's (a local game counts only as
    finished, so they are not used). ``overlap`` is None in modes with 1x1 boxes only.
    """

    game_id: str
    mode: str
    overlap: str | None
    against: str  # "ai", "local", "practice" or "online"
    level: str | None  # the AI's level when against == "ai"
    seat: int
    my_score: int
    their_score: int
    outcome: str  # "win", "loss" or "tie"
    resigned: bool  # the game ended by a resignation (the outcome says whose)
    squares_captured: int  # squares this seat captured, whatever became of them later
    captured_by_size: dict[int, int] = field(default_factory=dict)  # size -> squares captured
    taken_over: int = 0  # the opponent's squares this seat took over (Takeover rule)
    largest_deficit: int = 0  # most points this seat was ever behind (0: never behind)
    die: int | None = None  # faces of the mode's die; None in games without dice
    my_rolls: tuple[int, ...] = ()  # this seat's rolls in order, capped at the open edges
    their_rolls: tuple[int, ...] = ()
    created: float = 0.0  # server clock, epoch seconds
    ended: float = 0.0
    seconds: float = 0.0  # ended - created (never negative)

    @property
    def won(self) -> bool:
        return self.outcome == "win"

    @property
    def margin(self) -> int:
        return self.my_score - self.their_score


def game_outcome(finished: common_pb2.FinishedGame, device: str) -> GameOutcome:
    """The outcome of a finished game for the device (the SHA-256 hex of its token).

    ``ValueError`` when the device holds no seat, the seats are not two known kinds, the record
    does not decode, is not one of the modes, or the game is not over.
    """
    seats = list(finished.seats)
    if len(seats) != 2:
        raise ValueError(f"a finished game has two seats, not {len(seats)}")
    mine = [i + 1 for i, s in enumerate(seats) if s.kind == "human" and device and s.device == device]
    if not mine:
        raise ValueError("the device holds no seat in this game")
    seat = mine[0]
    other = seats[2 - seat]
    if len(mine) == 2:
        against, level = "local", None
    elif other.kind == "ai":
        if other.level not in LEVELS:
            raise ValueError(f"unknown AI level {other.level!r}; the levels are {', '.join(LEVELS)}")
        against, level = "ai", other.level
    elif other.kind == "practice":
        against, level = "practice", None
    elif other.kind == "human":
        against, level = "online", None
    else:
        raise ValueError(f"unknown seat kind {other.kind!r}")

    try:
        game = decode(finished.record)
    except CodecError as exc:
        raise ValueError(f"the record of game {finished.game_id!r} does not decode: {exc}") from None
    if game.mode is None:
        raise ValueError("the game was not played in one of the modes")
    if not game.over:
        raise ValueError(f"game {finished.game_id!r} is not over")

    scores = game.scores
    winner = game.winner
    outcome = "tie" if winner == 0 else "win" if winner == seat else "loss"
    by_size: dict[int, int] = {}
    taken_over = 0
    deficit = 0
    running = [0, 0]
    for move in game.history:
        for change in move.changes:
            if change.player != seat:
                continue
            if change.kind == "captured":
                by_size[change.square.size] = by_size.get(change.square.size, 0) + 1
            elif change.kind == "taken_over":
                taken_over += 1
        running[0] += move.score_change[0]
        running[1] += move.score_change[1]
        deficit = max(deficit, running[2 - seat] - running[seat - 1])
    rolls = _rolls_by_seat(game)
    return GameOutcome(
        game_id=finished.game_id,
        mode=game.mode.id,
        overlap=game.rules.overlap.id if game.rules.has_overlap else None,
        against=against,
        level=level,
        seat=seat,
        my_score=scores[seat - 1],
        their_score=scores[2 - seat],
        outcome=outcome,
        resigned=game.resigned is not None,
        squares_captured=sum(by_size.values()),
        captured_by_size=dict(sorted(by_size.items())),
        taken_over=taken_over,
        largest_deficit=deficit,
        die=game.rules.die,
        my_rolls=rolls[seat - 1],
        their_rolls=rolls[2 - seat],
        created=finished.created,
        ended=finished.ended,
        seconds=max(0.0, finished.ended - finished.created),
    )


def _rolls_by_seat(game: Game) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The rolls each seat made, as the engine counts them: capped at the open edges, the number
    the player saw (Undo never takes a roll back, so every roll in the record counts)."""
    rolls: tuple[list[int], list[int]] = ([], [])
    for player, roll in game.roll_history:
        rolls[player - 1].append(roll)
    return tuple(rolls[0]), tuple(rolls[1])
