"""The 36 achievements: what each one asks for, when it unlocks and how far along it is.

Two kinds. A counting achievement reads a number from the statistics (games finished, best
streak, squares captured, ...) and unlocks when it reaches ``target``; its progress bar is that
number, up to ``target``. Some count to 1 (the first win, a win in a mode). A feat (``target`` 1)
is one game's deed - a shutout, a comeback - and unlocks in the game that does it.

All but the four under Other players are earned in finished games against the AI; local,
practice and online games count towards Other players and nothing else. Each achievement unlocks
once: ``unlock`` skips those already unlocked (Reset statistics erases them, and they can then be
earned again). The ids are stable: they are stored in the statistics record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from boxedin.common.choices import LEVELS
from boxedin.engine.rules import MODES

from .outcome import GameOutcome

if TYPE_CHECKING:
    from .model import DeviceStats

Counter = Callable[["DeviceStats"], int]
Feat = Callable[[GameOutcome], bool]

CATEGORIES: dict[str, str] = {
    "first_steps": "First Steps",
    "levels": "AI Levels",
    "modes": "Game Modes",
    "overlap": "Overlap Rules",
    "streaks": "Streaks",
    "scoring": "Scoring Feats",
    "dice": "Dice Luck",
    "other_players": "Other Players",
}

# A comeback win: the player was this many points behind at some moment.
COMEBACK_DEFICIT = 10


@dataclass(frozen=True)
class Achievement:
    id: str
    category: str  # a key of CATEGORIES
    name: str
    description: str
    target: int  # 1 for a one-off; more for a counting one (a progress bar)


_COUNTERS: dict[str, Counter] = {}
_FEATS: dict[str, Feat] = {}


def _counted(aid: str, category: str, name: str, description: str, target: int, counter: Counter) -> Achievement:
    _COUNTERS[aid] = counter
    return Achievement(aid, category, name, description, target)


def _feat(aid: str, category: str, name: str, description: str, feat: Feat) -> Achievement:
    _FEATS[aid] = lambda facts: facts.against == "ai" and feat(facts)
    return Achievement(aid, category, name, description, 1)


# --- the counters and feats ----------------------------------------------------------------


def _level_wins(level: str) -> Counter:
    return lambda stats: stats.by_level.get(level, {}).get("wins", 0)


def _mode_wins(mode: str) -> Counter:
    return lambda stats: stats.by_mode.get(mode, {}).get("wins", 0)


def _rules_won(stats: DeviceStats) -> int:
    return sum(1 for row in stats.by_overlap.values() if row.get("wins", 0) > 0)


def _streak(stats: DeviceStats) -> int:
    return stats.best_streak


def _shutout(f: GameOutcome) -> bool:
    return f.won and f.their_score == 0 and f.my_score > 0


def _landslide(f: GameOutcome) -> bool:
    return f.won and f.my_score > 0 and f.my_score >= 2 * f.their_score


def _photo_finish(f: GameOutcome) -> bool:
    return f.won and f.margin == 1


def _nine_pointer(f: GameOutcome) -> bool:
    return f.captured_by_size.get(3, 0) > 0


def _comeback(f: GameOutcome) -> bool:
    return f.won and f.largest_deficit >= COMEBACK_DEFICIT


def _hostile_takeover(f: GameOutcome) -> bool:
    return f.won and f.taken_over > 0


def _hot_hand(f: GameOutcome) -> bool:
    """Three of the player's own rolls in a row, in one game, were the die's top face (the roll
    as shown, capped at the open edges)."""
    run = 0
    for roll in f.my_rolls:
        run = run + 1 if roll == f.die else 0
        if run == 3:
            return True
    return False


def _low_roller(f: GameOutcome) -> bool:
    """A win in which every own roll was in the lower half of the die (1-2 on a d4, 1-3 on a
    d6, 1-4 on a d8, 1-5 on a d10, 1-6 on a d12)."""
    die = f.die
    return f.won and die is not None and bool(f.my_rolls) and all(roll <= die // 2 for roll in f.my_rolls)


_LEVEL_NAMES = {
    "easy": ("Easy Does It", "Beat the Easy AI."),
    "normal": ("Nothing Normal About It", "Beat the Normal AI."),
    "hard": ("Hard Earned", "Beat the Hard AI."),
    "expert": ("Machine Tamer", "Beat the Expert AI - it plays out many games before every move."),
}
_MODE_NAMES = {
    "mini": "Small Wonder",
    "standard": "Pen and Paper",
    "quick": "Quick on the Draw",
    "classic": "A True Classic",
    "chain_reaction": "Domino Effect",
    "marathon": "Long Haul",
    "strategic": "Thinking in Squares",
    "big_squares": "Go Big",
    "expert": "Grand Master of the Grid",
}

ACHIEVEMENTS: tuple[Achievement, ...] = (
    # First steps
    _counted(
        "first_game", "first_steps", "Opening Move", "Finish your first game against the AI.", 1,
        lambda s: s.games,
    ),
    _counted("first_win", "first_steps", "First Victory", "Win a game against the AI.", 1, lambda s: s.wins),
    _counted("games_10", "first_steps", "Getting Hooked", "Finish 10 games against the AI.", 10, lambda s: s.games),
    _counted("games_100", "first_steps", "Dot Devotee", "Finish 100 games against the AI.", 100, lambda s: s.games),
    # Each AI level beaten
    *(
        _counted(f"beat_{level}", "levels", *_LEVEL_NAMES[level], 1, _level_wins(level))
        for level in LEVELS
    ),
    # A win in each of the nine modes
    *(
        _counted(
            f"win_{mode}", "modes", name, f"Win a game of {MODES[mode].name} against the AI.", 1, _mode_wins(mode)
        )
        for mode, name in _MODE_NAMES.items()
    ),
    # Overlap rules
    _counted("rules_3", "overlap", "Rule Bender", "Win under 3 different overlap rules.", 3, _rules_won),
    _counted("rules_13", "overlap", "Read Every Page", "Win under all 13 overlap rules.", 13, _rules_won),
    _feat(
        "hostile_takeover", "overlap", "Hostile Takeover",
        "Win a game in which you took over at least one of the AI's squares.", _hostile_takeover,
    ),
    # Streaks
    _counted("streak_3", "streaks", "Hat Trick", "Win 3 games in a row against the AI.", 3, _streak),
    _counted("streak_5", "streaks", "On a Roll", "Win 5 games in a row against the AI.", 5, _streak),
    _counted("streak_10", "streaks", "Unstoppable", "Win 10 games in a row against the AI.", 10, _streak),
    # Scoring feats
    _feat("shutout", "scoring", "Clean Sheet", "Win a game in which the AI scores no points at all.", _shutout),
    _feat("landslide", "scoring", "Landslide", "Win with at least twice as many points as the AI.", _landslide),
    _feat("photo_finish", "scoring", "Photo Finish", "Win by a single point.", _photo_finish),
    _feat("nine_pointer", "scoring", "Nine-Pointer", "Capture a 3×3 square, worth 9 points.", _nine_pointer),
    _counted(
        "squares_500", "scoring", "Square Hoarder",
        "Capture 500 squares against the AI. Squares you lose again still count.", 500,
        lambda s: s.squares_captured,
    ),
    _feat(
        "comeback", "scoring", "Comeback Kid",
        f"Win a game after trailing by {COMEBACK_DEFICIT} points or more.", _comeback,
    ),
    # Dice luck
    _counted(
        "top_face_50", "dice", "Top of the Die", "Roll the highest face of your die 50 times.", 50,
        lambda s: s.top_face_rolls,
    ),
    _feat(
        "hot_hand", "dice", "Hot Hand", "Roll the highest face of the die three times running in one game.",
        _hot_hand,
    ),
    _feat(
        "low_roller", "dice", "Low Roller",
        "Win a dice game in which every one of your rolls was in the lower half of the die.", _low_roller,
    ),
    # Other players: local, practice and online games count here and nowhere else
    _counted(
        "local_game", "other_players", "Pass the Phone", "Finish a game against a friend on this device.", 1,
        lambda s: s.other_players.local_games,
    ),
    _counted(
        "practice_game", "other_players", "Practice Makes Perfect", "Finish a practice game.", 1,
        lambda s: s.other_players.practice_games,
    ),
    _counted(
        "online_win", "other_players", "Worldwide Winner",
        "Win an online game against another player (a win by forfeit counts too).", 1,
        lambda s: s.other_players.online_wins,
    ),
    _counted(
        "people_10", "other_players", "Good Company",
        "Finish 10 games against other people, on this device or online.", 10,
        lambda s: s.other_players.people_games,
    ),
)  # fmt: skip

_BY_ID = {a.id: a for a in ACHIEVEMENTS}
assert len(ACHIEVEMENTS) == 36 and len(_BY_ID) == 36


def achievement(achievement_id: str) -> Achievement:
    try:
        return _BY_ID[achievement_id]
    except KeyError:
        raise ValueError(f"no achievement {achievement_id!r}") from None


def progress(stats: DeviceStats, achievement: Achievement) -> int:
    """How far along an achievement is, 0 to its target (the target once unlocked)."""
    if achievement.id in stats.achievements:
        return achievement.target
    counter = _COUNTERS.get(achievement.id)
    if counter is None:
        return 0
    return max(0, min(achievement.target, counter(stats)))


def unlock(stats: DeviceStats, facts: GameOutcome, now: float) -> list[str]:
    """Unlocks what the statistics (already counting the game) and the game's facts have earned
    and not yet unlocked; returns their ids, in the order of ``ACHIEVEMENTS``."""
    unlocked = []
    for a in ACHIEVEMENTS:
        if a.id in stats.achievements:
            continue
        counter = _COUNTERS.get(a.id)
        met = counter(stats) >= a.target if counter is not None else _FEATS[a.id](facts)
        if met:
            stats.achievements[a.id] = now
            unlocked.append(a.id)
    return unlocked
