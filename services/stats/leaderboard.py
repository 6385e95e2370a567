"""The leaderboard: what a win against the AI is worth, and the 10 best wins of each mode and of
all games.

A win is worth the player's share of all points scored in the game, in percent, times 1, 2, 3 or
4 against the Easy, Normal, Hard or Expert AI (shared/spec/rules-notes.md, "Leaderboard value of
a win"). The share is rounded half up - 62.5% counts as 63% - which is what "round" means in the
rule book's arithmetic; Python's ``round`` would give 62 (it rounds halves to even), so the share
is worked out in whole numbers instead. A game in which nobody scored (only possible when a
player resigns at 0 : 0) has a share of 0.

Order: more points first; equal points, the quicker game (fewer seconds) first; still equal, the
game that ended earlier first (and, for a stable order, the smaller game id).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from boxedin.common.choices import LEVELS

from .jsonread import field, number, obj, optional, text, whole
from .outcome import GameOutcome

KEPT = 10  # wins kept per mode, and under All games
MULTIPLIER = {level: i + 1 for i, level in enumerate(LEVELS)}  # easy 1 ... expert 4


def share_percent(my_score: int, their_score: int) -> int:
    """``my_score`` as a percentage of all points scored, rounded half up, 0 to 100."""
    mine = max(0, my_score)
    total = mine + max(0, their_score)
    if total == 0:
        return 0
    return (200 * mine + total) // (2 * total)


def win_points(my_score: int, their_score: int, level: str) -> int:
    """The leaderboard value of a win: 31 : 18 against Hard is 63 x 3 = 189."""
    if level not in MULTIPLIER:
        raise ValueError(f"unknown AI level {level!r}; the levels are {', '.join(LEVELS)}")
    return share_percent(my_score, their_score) * MULTIPLIER[level]


@dataclass(frozen=True)
class Entry:
    """One win on the leaderboard."""

    game_id: str
    mode: str
    overlap: str | None
    level: str
    points: int
    my_score: int
    their_score: int
    seconds: float
    ended: float

    def sort_key(self) -> tuple[int, float, float, str]:
        return (-self.points, self.seconds, self.ended, self.game_id)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: object) -> Entry:
        data = obj(raw, "a leaderboard entry")

        def get(key: str) -> object:
            return field(data, key, "a leaderboard entry")

        return cls(
            game_id=text(get("game_id"), "game_id"),
            mode=text(get("mode"), "mode"),
            overlap=optional(get("overlap"), "overlap", text),
            level=text(get("level"), "level"),
            points=whole(get("points"), "points"),
            my_score=whole(get("my_score"), "my_score"),
            their_score=whole(get("their_score"), "their_score"),
            seconds=number(get("seconds"), "seconds"),
            ended=number(get("ended"), "ended"),
        )


def entry_for(facts: GameOutcome) -> Entry:
    """The leaderboard entry of a win against the AI."""
    if facts.against != "ai" or facts.level is None or not facts.won:
        raise ValueError("only wins against the AI go on the leaderboard")
    return Entry(
        game_id=facts.game_id,
        mode=facts.mode,
        overlap=facts.overlap,
        level=facts.level,
        points=win_points(facts.my_score, facts.their_score, facts.level),
        my_score=facts.my_score,
        their_score=facts.their_score,
        seconds=facts.seconds,
        ended=facts.ended,
    )


def place(board: list[Entry], entry: Entry) -> int | None:
    """Puts the entry on the board (in place, keeping the best ``KEPT``) and returns its place,
    1 to 10, or None when it did not make the top 10."""
    board.append(entry)
    board.sort(key=Entry.sort_key)
    index = board.index(entry)
    del board[KEPT:]
    return index + 1 if index < KEPT else None


@dataclass(frozen=True)
class LeaderboardLine:
    """What a win was worth and where it stands: ``place`` on the mode's board, ``all_place``
    under All games (None: not in that top 10)."""

    points: int
    mode: str
    place: int | None
    all_place: int | None

    def sentence(self, mode_name: str) -> str:
        """For the result window, e.g. "189 points: place 2 on your Classic leaderboard."."""
        if self.place is None:
            return f"{self.points} points: not in the top {KEPT} of your {mode_name} leaderboard."
        return f"{self.points} points: place {self.place} on your {mode_name} leaderboard."

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
