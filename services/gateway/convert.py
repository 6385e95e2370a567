"""The statistics frames: the stats service's typed replies turned into the websocket's frames
(docs/protocol.md, Statistics). The gateway computes none of it."""

from __future__ import annotations

from boxedin.v1 import stats_pb2

from . import server_frames

# A result asked for as the game ends may come before the game is counted: wait that long.
RESULT_WAIT_SECONDS = 5.0


def _wins(table: object) -> dict[str, server_frames.WinsAndGames]:
    return {
        key: server_frames.WinsAndGames(games=value.games, wins=value.wins)
        for key, value in table.items()  # type: ignore[attr-defined]
    }


def achievement(state: stats_pb2.AchievementState) -> server_frames.AchievementState:
    return server_frames.AchievementState(
        id=state.id,
        category=state.category,
        name=state.name,
        description=state.description,
        target=state.target,
        progress=state.progress,
        unlocked_at=state.unlocked_at or None,
    )


def stats_frame(stats: stats_pb2.DeviceStatistics, reply_to: str | int | None) -> server_frames.Stats:
    overview = server_frames.StatsOverview(
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
        biggest_margin=stats.biggest_margin if stats.has_win else None,
        play_seconds=stats.play_seconds,
        longest_game_seconds=stats.longest_game_seconds,
        fastest_win_seconds=stats.fastest_win_seconds if stats.has_win else None,
    )
    details = server_frames.StatsDetails(
        by_mode=_wins(stats.by_mode),
        by_level=_wins(stats.by_level),
        by_overlap=_wins(stats.by_overlap),
        dice=dict(stats.dice),
    )
    boards = {
        board.mode: [
            server_frames.LeaderboardEntry(
                game=e.game_id,
                mode=e.mode,
                level=e.level,
                points=e.points,
                scores=(e.my_score, e.their_score),
                seconds=e.seconds,
                ended=e.ended,
            )
            for e in board.entries
        ]
        for board in stats.leaderboards
    }
    return server_frames.Stats(
        type="stats",
        overview=overview,
        details=details,
        achievements=[achievement(a) for a in stats.achievements],
        leaderboards=boards,
        **({"reply_to": reply_to} if reply_to is not None else {}),
    )


def result_frame(result: stats_pb2.GameResult, reply_to: str | int | None) -> server_frames.Result:
    line = None
    if result.HasField("leaderboard"):
        board = result.leaderboard
        line = server_frames.LeaderboardLine(
            points=board.points,
            mode=board.mode,
            place=board.place or None,
            all_place=board.all_place or None,
            sentence=board.sentence,
        )
    return server_frames.Result(
        type="result",
        game=result.game_id,
        leaderboard=line,
        achievements=[achievement(a) for a in result.unlocked],
        **({"reply_to": reply_to} if reply_to is not None else {}),
    )
