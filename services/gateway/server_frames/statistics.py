"""Statistics frames (docs/protocol.md, Statistics): stats, a game's result, the reset
confirmation."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    StrictFloat,
    StrictInt,
    StrictStr,
)

from .base import (
    Absent,
    Count,
    Positive,
    ReplyTo,
    ScorePair,
    _Model,
    given,
)

# --- statistics (docs/protocol.md, Statistics) ----------------------------------------------------


class StatsOverview(_Model):
    games: Count
    wins: Count
    losses: Count
    ties: Count
    win_rate: StrictFloat  # 0 to 1
    current_streak: Count
    best_streak: Count
    squares_captured: Count
    points_scored: StrictInt
    highest_score: StrictInt
    biggest_margin: StrictInt | None  # null before the first win
    play_seconds: StrictFloat
    longest_game_seconds: StrictFloat
    fastest_win_seconds: StrictFloat | None  # null before the first win


class WinsAndGames(_Model):
    games: Count
    wins: Count


class StatsDetails(_Model):
    by_mode: dict[StrictStr, WinsAndGames]
    by_level: dict[StrictStr, WinsAndGames]
    by_overlap: dict[StrictStr, WinsAndGames]
    dice: dict[StrictStr, Count]  # face -> own rolls


class AchievementState(_Model):
    id: StrictStr
    category: StrictStr
    name: StrictStr
    description: StrictStr
    target: Positive
    progress: Count
    unlocked_at: StrictFloat | None  # epoch seconds; null while locked


class LeaderboardEntry(_Model):
    game: StrictStr
    mode: StrictStr
    level: StrictStr
    points: Count
    scores: ScorePair  # yours, theirs
    seconds: StrictFloat
    ended: StrictFloat


class LeaderboardLine(_Model):
    points: Count
    mode: StrictStr
    place: Positive | None  # null: not in the mode's top 10
    all_place: Positive | None
    sentence: StrictStr


class Stats(_Model):
    type: Literal["stats"]
    overview: StatsOverview
    details: StatsDetails
    achievements: list[AchievementState]
    leaderboards: dict[StrictStr, list[LeaderboardEntry]]  # "all", then modes
    reply_to: ReplyTo | Absent = None


class Result(_Model):
    type: Literal["result"]
    game: StrictStr
    leaderboard: LeaderboardLine | None  # null unless the game was a win against the AI
    achievements: list[AchievementState]  # unlocked by the game, in order
    reply_to: ReplyTo | Absent = None


class ResetConfirm(_Model):
    type: Literal["reset_confirm"]
    token: StrictStr
    expires_in: StrictFloat  # seconds
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, token: str, expires_in: float, reply_to: str | int | None = None) -> ResetConfirm:
        return cls(type="reset_confirm", token=token, expires_in=expires_in, **given(reply_to=reply_to))


