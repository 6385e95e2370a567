"""A device's statistics, achievements and leaderboard, and how one finished game changes them.

The rule book ("Statistics"): only finished games against the AI are counted. Games against
other people (local or online) and practice games count towards the achievements under Other
players and nothing else. Scoring is about the device's own seat: squares captured (squares lost
again later are not subtracted), final scores added up, the highest score and the biggest winning
margin. Time played comes from the server clock (``ended - created``). Games in modes with 1x1
boxes only are not listed under an overlap rule. Dice: the device's own rolls, each the number the
player saw (the face capped at the open edges).

Everything here is pure: no clock (the caller passes ``now``), no storage. The stored form is the
versioned JSON of ``DeviceStats.to_json`` (docs/stats-records.md).

This module is the stats service's one import: it also re-exports the facts, the leaderboard and
the achievements.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from boxedin.common.choices import LEVELS

from . import jsonread as read
from .achievements import ACHIEVEMENTS, CATEGORIES, Achievement, achievement, progress, unlock
from .leaderboard import KEPT, Entry, LeaderboardLine, entry_for, place, share_percent, win_points
from .outcome import AGAINST, OUTCOMES, GameOutcome, game_outcome

__all__ = [
    "ACHIEVEMENTS",
    "AGAINST",
    "CATEGORIES",
    "KEPT",
    "LEVELS",
    "OUTCOMES",
    "STATS_VERSION",
    "Achievement",
    "DeviceStats",
    "Entry",
    "GameOutcome",
    "GameResult",
    "LeaderboardLine",
    "OtherPlayers",
    "achievement",
    "apply_game",
    "game_outcome",
    "progress",
    "reset",
    "share_percent",
    "win_points",
]

STATS_VERSION = 1

# games and wins, by mode, by AI level or by overlap rule
Tally = dict[str, dict[str, int]]


@dataclass
class OtherPlayers:
    """Games not against the AI: they count towards the Other players achievements only.
    ``online_by_mode`` counts online games finished per mode (the menu's "Your most played")."""

    local_games: int = 0
    practice_games: int = 0
    online_games: int = 0
    online_wins: int = 0
    online_by_mode: dict[str, int] = field(default_factory=dict)

    @property
    def people_games(self) -> int:
        """Games finished against other people: on this device or online."""
        return self.local_games + self.online_games

    def to_json(self) -> dict[str, Any]:
        return {
            "local_games": self.local_games,
            "practice_games": self.practice_games,
            "online_games": self.online_games,
            "online_wins": self.online_wins,
            "online_by_mode": dict(self.online_by_mode),
        }

    @classmethod
    def from_json(cls, raw: object) -> OtherPlayers:
        data = read.obj(raw, "other_players")

        def count(key: str) -> int:
            return read.whole(read.field(data, key, "other_players"), f"other_players.{key}")

        return cls(
            local_games=count("local_games"),
            practice_games=count("practice_games"),
            online_games=count("online_games"),
            online_wins=count("online_wins"),
            online_by_mode=read.counts(read.field(data, "online_by_mode", "other_players"), "online_by_mode"),
        )


@dataclass
class DeviceStats:
    """One device's record. A fresh ``DeviceStats()`` is the state after Reset statistics."""

    games: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    current_streak: int = 0  # wins in a row up to the last game; a loss or a tie ends a run
    best_streak: int = 0
    squares_captured: int = 0
    points_scored: int = 0
    highest_score: int = 0  # 0 until a game is counted
    biggest_margin: int | None = None  # wins only; None until a win
    play_seconds: float = 0.0
    longest_game_seconds: float = 0.0
    fastest_win_seconds: float | None = None
    by_mode: Tally = field(default_factory=dict)
    by_level: Tally = field(default_factory=dict)
    by_overlap: Tally = field(default_factory=dict)  # modes with 1x1 boxes only are not listed
    dice: dict[str, int] = field(default_factory=dict)  # roll (as text) -> own rolls of that number
    top_face_rolls: int = 0  # own rolls of the die's highest face, after the cap (any die)
    other_players: OtherPlayers = field(default_factory=OtherPlayers)
    achievements: dict[str, float] = field(default_factory=dict)  # id -> unlocked at (epoch s)
    leaderboard: dict[str, list[Entry]] = field(default_factory=dict)  # mode -> 10 best wins
    leaderboard_all: list[Entry] = field(default_factory=list)  # All games: 10 best wins

    @property
    def win_rate(self) -> float:
        """Wins per game counted, 0.0 to 1.0 (0.0 before the first game)."""
        return self.wins / self.games if self.games else 0.0

    # --- the stored form -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": STATS_VERSION,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
            "current_streak": self.current_streak,
            "best_streak": self.best_streak,
            "squares_captured": self.squares_captured,
            "points_scored": self.points_scored,
            "highest_score": self.highest_score,
            "biggest_margin": self.biggest_margin,
            "play_seconds": self.play_seconds,
            "longest_game_seconds": self.longest_game_seconds,
            "fastest_win_seconds": self.fastest_win_seconds,
            "by_mode": _copy_tally(self.by_mode),
            "by_level": _copy_tally(self.by_level),
            "by_overlap": _copy_tally(self.by_overlap),
            "dice": dict(self.dice),
            "top_face_rolls": self.top_face_rolls,
            "other_players": self.other_players.to_json(),
            "achievements": dict(self.achievements),
            "leaderboard": {mode: [e.to_json() for e in board] for mode, board in self.leaderboard.items()},
            "leaderboard_all": [e.to_json() for e in self.leaderboard_all],
        }

    def to_json(self) -> str:
        """The stored form: compact JSON text with ``"version": STATS_VERSION``."""
        return json.dumps(self.to_dict(), separators=(",", ":"), sort_keys=True, allow_nan=False)

    @classmethod
    def from_dict(cls, raw: object) -> DeviceStats:
        """Reads the stored form; ``ValueError`` for another version or a malformed record."""
        data = read.obj(raw, "a statistics record")
        version = data.get("version")
        if version != STATS_VERSION:
            raise ValueError(f"statistics record version {version!r} is not {STATS_VERSION}: migrate it first")

        def get(key: str) -> Any:
            return read.field(data, key, "the statistics record")

        def count(key: str) -> int:
            return read.whole(get(key), key)

        def seconds(key: str) -> float:
            return read.number(get(key), key)

        def optional_seconds(key: str) -> float | None:
            value: float | None = read.optional(get(key), key, read.number)
            return value

        margin: int | None = read.optional(get("biggest_margin"), "biggest_margin", read.whole)
        boards = read.obj(get("leaderboard"), "leaderboard")
        return cls(
            games=count("games"),
            wins=count("wins"),
            losses=count("losses"),
            ties=count("ties"),
            current_streak=count("current_streak"),
            best_streak=count("best_streak"),
            squares_captured=count("squares_captured"),
            points_scored=count("points_scored"),
            highest_score=count("highest_score"),
            biggest_margin=margin,
            play_seconds=seconds("play_seconds"),
            longest_game_seconds=seconds("longest_game_seconds"),
            fastest_win_seconds=optional_seconds("fastest_win_seconds"),
            by_mode=_read_tally(get("by_mode"), "by_mode"),
            by_level=_read_tally(get("by_level"), "by_level"),
            by_overlap=_read_tally(get("by_overlap"), "by_overlap"),
            dice=read.counts(get("dice"), "dice"),
            top_face_rolls=count("top_face_rolls"),
            other_players=OtherPlayers.from_json(get("other_players")),
            achievements={
                str(k): read.number(v, f"achievements[{k!r}]")
                for k, v in read.obj(get("achievements"), "achievements").items()
            },
            leaderboard={str(mode): _read_board(board, f"leaderboard[{mode!r}]") for mode, board in boards.items()},
            leaderboard_all=_read_board(get("leaderboard_all"), "leaderboard_all"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> DeviceStats:
        try:
            raw = json.loads(text)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"a statistics record is JSON: {exc}") from None
        return cls.from_dict(raw)


@dataclass(frozen=True)
class GameResult:
    """What counting a game meant, for the result window: the achievements it unlocked (ids, in
    the order of ``ACHIEVEMENTS``) and, for a win against the AI, its leaderboard line."""

    unlocked: list[str]
    leaderboard: LeaderboardLine | None

    def to_json(self) -> dict[str, Any]:
        return {
            "unlocked": list(self.unlocked),
            "leaderboard": None if self.leaderboard is None else self.leaderboard.to_json(),
        }


def apply_game(stats: DeviceStats, facts: GameOutcome, now: float) -> GameResult:
    """Counts one finished game (changing ``stats``) and says what it unlocked and where it
    stands. Achievements unlocked now get ``now`` as their time. The caller counts a game once."""
    line = None
    if facts.against == "ai":
        _count_ai_game(stats, facts)
        if facts.won:
            line = _place_win(stats, facts)
    else:
        _count_other_game(stats.other_players, facts)
    return GameResult(unlock(stats, facts, now), line)


def reset(stats: DeviceStats) -> None:
    """Reset statistics: erases everything - games, streaks, play time, other players' games,
    achievements and the leaderboard - leaving the record as a fresh one."""
    fresh = DeviceStats()
    for f in fields(DeviceStats):
        setattr(stats, f.name, getattr(fresh, f.name))


def _count_ai_game(stats: DeviceStats, facts: GameOutcome) -> None:
    stats.games += 1
    won = facts.won
    if won:
        stats.wins += 1
        stats.current_streak += 1
        stats.best_streak = max(stats.best_streak, stats.current_streak)
        stats.biggest_margin = _max(stats.biggest_margin, facts.margin)
        stats.fastest_win_seconds = _min(stats.fastest_win_seconds, facts.seconds)
    else:
        if facts.outcome == "tie":
            stats.ties += 1
        else:
            stats.losses += 1
        stats.current_streak = 0
    stats.squares_captured += facts.squares_captured
    stats.points_scored += facts.my_score
    stats.highest_score = max(stats.highest_score, facts.my_score)
    stats.play_seconds += facts.seconds
    stats.longest_game_seconds = max(stats.longest_game_seconds, facts.seconds)
    _tally(stats.by_mode, facts.mode, won)
    if facts.level is not None:
        _tally(stats.by_level, facts.level, won)
    if facts.overlap is not None:
        _tally(stats.by_overlap, facts.overlap, won)
    for roll in facts.my_rolls:
        stats.dice[str(roll)] = stats.dice.get(str(roll), 0) + 1
        if roll == facts.die:
            stats.top_face_rolls += 1


def _count_other_game(other: OtherPlayers, facts: GameOutcome) -> None:
    if facts.against == "local":
        other.local_games += 1
    elif facts.against == "practice":
        other.practice_games += 1
    elif facts.against == "online":
        other.online_games += 1
        other.online_wins += facts.won
        other.online_by_mode[facts.mode] = other.online_by_mode.get(facts.mode, 0) + 1
    else:
        raise ValueError(f"unknown opponent {facts.against!r}")


def _place_win(stats: DeviceStats, facts: GameOutcome) -> LeaderboardLine:
    entry = entry_for(facts)
    mode_place = place(stats.leaderboard.setdefault(facts.mode, []), entry)
    all_place = place(stats.leaderboard_all, entry)
    return LeaderboardLine(entry.points, facts.mode, mode_place, all_place)


def _tally(table: Tally, key: str, won: bool) -> None:
    row = table.setdefault(key, {"games": 0, "wins": 0})
    row["games"] += 1
    row["wins"] += won


def _max(current: int | None, value: int) -> int:
    return value if current is None else max(current, value)


def _min(current: float | None, value: float) -> float:
    return value if current is None else min(current, value)


def _copy_tally(table: Tally) -> Tally:
    return {key: {"games": row["games"], "wins": row["wins"]} for key, row in table.items()}


def _read_tally(raw: object, what: str) -> Tally:
    table: Tally = {}
    for key, row in read.obj(raw, what).items():
        data: Mapping[str, Any] = read.obj(row, f"{what}[{key!r}]")
        table[str(key)] = {
            "games": read.whole(read.field(data, "games", what), f"{what}[{key!r}].games"),
            "wins": read.whole(read.field(data, "wins", what), f"{what}[{key!r}].wins"),
        }
    return table


def _read_board(raw: object, what: str) -> list[Entry]:
    if not isinstance(raw, list):
        raise ValueError(f"{what} is a list of entries, not {raw!r}")
    return [Entry.from_json(item) for item in raw]
