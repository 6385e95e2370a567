"""The choices of a new game that more than one service, and the web client, know: the AI levels
with their names, and the move clocks. Each is written here only; scripts/gen_catalog.py copies
them into web/src/generated/facts.ts."""

from __future__ import annotations

from typing import Literal, get_args

# The AI's levels, weakest first: the menu offers them in this order, and the leaderboard
# multiplies a win's share by 1 to 4 in it.
Level = Literal["easy", "normal", "hard", "expert"]
LEVELS: tuple[Level, ...] = get_args(Level)
LEVEL_NAMES: dict[str, str] = {level: level.capitalize() for level in LEVELS}

# A move clock's seconds for each roll or edge; 0 is no clock.
CLOCKS: tuple[int, ...] = (0, 10, 20, 30, 60)
