"""The statistics as the stats service sends them (proto/boxedin/v1/stats.proto): the model's
records turned into typed messages, with every achievement's progress."""

from __future__ import annotations

from boxedin.engine.rules import mode_by_id
from boxedin.v1 import stats_pb2

from . import model
from .achievements import CATEGORIES
from .model import ACHIEVEMENTS, DeviceStats, progress


def _mode_name(mode: str) -> str:
    try:
        return mode_by_id(mode).name
    except ValueError:
        return mode


def achievement_message(stats: DeviceStats, achievement: model.Achievement) -> stats_pb2.AchievementState:
    return stats_pb2.AchievementState(
        id=achievement.id,
        category=CATEGORIES[achievement.category],  # as the player reads it
        name=achievement.name,
        description=achievement.description,
        target=achievement.target,
        progress=progress(stats, achievement),
        unlocked_at=stats.achievements.get(achievement.id, 0.0),
    )


def _entry(entry: model.Entry) -> stats_pb2.LeaderboardEntry:
    return stats_pb2.LeaderboardEntry(
        game_id=entry.game_id,
        mode=entry.mode,
        level=entry.level,
        points=entry.points,
        my_score=entry.my_score,
        their_score=entry.their_score,
        seconds=entry.seconds,
        ended=entry.ended,
    )


def statistics_message(stats: DeviceStats) -> stats_pb2.DeviceStatistics:
    message = stats_pb2.DeviceStatistics(
        games=stats.games,
        wins=stats.wins,
        losses=stats.losses,
        ties=stats.ties,
        win_rate=stats.win_rate,
        current_streak=stats.current_streak,
        best_streak=stats.best_streak,
        squares_captured=stats.squares_captured,
        points_scored=stats.points_scored,
        highest_score=stats.highest_score,
        biggest_margin=stats.biggest_margin or 0,
        play_seconds=stats.play_seconds,
        longest_game_seconds=stats.longest_game_seconds,
        fastest_win_seconds=stats.fastest_win_seconds or 0.0,
        has_win=stats.wins > 0,
        dice={face: count for face, count in stats.dice.items()},
        achievements=[achievement_message(stats, a) for a in ACHIEVEMENTS],
    )
    for target, table in (
        (message.by_mode, stats.by_mode),
        (message.by_level, stats.by_level),
        (message.by_overlap, stats.by_overlap),
    ):
        for key, row in table.items():
            target[key].games = row["games"]
            target[key].wins = row["wins"]
    message.leaderboards.append(stats_pb2.Leaderboard(mode="all", entries=[_entry(e) for e in stats.leaderboard_all]))
    for mode, entries in stats.leaderboard.items():
        if entries:
            message.leaderboards.append(stats_pb2.Leaderboard(mode=mode, entries=[_entry(e) for e in entries]))
    return message


def result_message(game_id: str, stats: DeviceStats, outcome: model.GameResult) -> stats_pb2.GameResult:
    """What one game meant: its leaderboard line and the achievements it unlocked."""
    by_id = {a.id: a for a in ACHIEVEMENTS}
    result = stats_pb2.GameResult(
        game_id=game_id, unlocked=[achievement_message(stats, by_id[i]) for i in outcome.unlocked]
    )
    line = outcome.leaderboard
    if line is not None:
        result.leaderboard.CopyFrom(
            stats_pb2.LeaderboardLine(
                points=line.points,
                mode=line.mode,
                place=line.place or 0,
                all_place=line.all_place or 0,
                sentence=line.sentence(_mode_name(line.mode)),
            )
        )
    return result
