"""What an update carries: the changes from the game state before an action to the state after
it (boxedin.common.delta), never the whole state. The state before is the one this process last
computed for the game, kept here; when it is not (the process restarted, or another replica made
the last change), it is computed again from the stored game."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from boxedin.common import delta

# Fields whose value depends on the moment it was computed: sent in every update, since the
# client's copy may come from a state read at another moment.
MOMENTARY = ("clock_remaining_ms", "online")
# Fields from the game's table beside the game: a state computed again from the stored game
# takes them (and the momentary ones) from the table as the change left it, so after such a
# state they are all sent.
FROM_TABLE = ("opponent", "level", "clock", "ai_speed", "seed", "players", "ai_thinking")


class LastStates:
    """The last state computed for each of the most recently changed games, with its seq."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._states: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()

    def keep(self, game_id: str, seq: int, state: dict[str, Any]) -> None:
        self._states[game_id] = (seq, state)
        self._states.move_to_end(game_id)
        while len(self._states) > self.size:
            self._states.popitem(last=False)

    def at(self, game_id: str, seq: int) -> dict[str, Any] | None:
        kept = self._states.get(game_id)
        return kept[1] if kept is not None and kept[0] == seq else None


def update_changes(before: dict[str, Any], after: dict[str, Any], *, recomputed: bool = False) -> delta.Patch:
    """The changes an update carries; ``recomputed``: ``before`` was computed again from the
    stored game rather than kept."""
    if recomputed:
        return delta.changes(before, after, MOMENTARY + FROM_TABLE)
    # A momentary field that is null is null at any moment (there is no clock, the game is not
    # online): it goes only when it changed.
    return delta.changes(before, after, [name for name in MOMENTARY if after.get(name) is not None])
