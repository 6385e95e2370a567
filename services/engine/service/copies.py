"""This engine process's copies of the games it read or changed last (issue 14, Capacity).

Replaying a game's stored actions is the dearest part of reading it, so the game object is kept
with the seq it stands at, its record's revision and the record as stored. An action on a game
whose copy is current changes the copy without reading the game first: the commit compares the
stored seq and revision, so a copy that another replica or a lease renewal left behind changes
nothing, and the game is then read. A copy found behind once is not used that way again until a
read finds it current (the gateway spreads a game's calls over replicas); meanwhile a read brings
it up to date by applying only the actions it lacks."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TypeVar

from boxedin.engine import codec
from boxedin.engine.game import Game
from boxedin.engine.session.changes import LastStates
from boxedin.engine.session.table import Table

from .store import StoredGame

_V = TypeVar("_V")


@dataclass(slots=True)
class _Copy:
    seq: int
    rev: int
    game: Game
    # The table as stored, kept as its own object (copied in and out: the one an action
    # changes is never the kept one) and as its JSON (a copy without it is not used).
    table: Table
    record_json: bytes | str


class GameCopies:
    """The copies of the most recently used games (at most ``size``). A copy is taken out while
    an action uses it, so a second action on the game meanwhile reads the game."""

    def __init__(self, size: int, *, act_from_copy: bool = True) -> None:
        self.size = size
        # False: every action reads the game first (the path `boxedin bench actions` measures
        # beside today's).
        self.act_from_copy = act_from_copy
        self._copies: OrderedDict[str, _Copy] = OrderedDict()
        self._behind: OrderedDict[str, None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._copies)

    def keep(self, stored: StoredGame, game: Game) -> None:
        """Keeps the game as read, or as just stored (``stored`` then says so)."""
        self._copies[stored.game_id] = _Copy(stored.seq, stored.rev, game, stored.table.copy(), stored.record_json)
        _bound(self._copies, stored.game_id, self.size)

    def forget(self, game_id: str) -> None:
        """Drops a copy that holds a change that was not stored."""
        self._copies.pop(game_id, None)

    def take(self, game_id: str, expected_seq: int, states: LastStates) -> tuple[StoredGame, Game] | None:
        """The copy to change without reading the game first: only when it is the copy the
        action expects (``expected_seq``, -1: any) and the state last sent for it is kept in
        ``states`` (the update is made from it)."""
        if not self.act_from_copy or game_id in self._behind:
            return None
        kept = self._copies.get(game_id)
        if kept is None or not kept.record_json or (expected_seq >= 0 and expected_seq != kept.seq):
            return None
        if states.at(game_id, kept.seq) is None:
            return None
        # Taken out, the copy is the action's own: its table was copied when it was kept.
        del self._copies[game_id]
        return StoredGame(game_id, kept.seq, b"", kept.table, kept.rev, kept.record_json, kept=True), kept.game

    def found_behind(self, game_id: str) -> None:
        """A copy taken was behind the stored game: the game's actions read it first from now."""
        self._behind[game_id] = None
        _bound(self._behind, game_id, self.size)

    def is_behind(self, game_id: str) -> bool:
        return game_id in self._behind

    def game_as_read(self, stored: StoredGame) -> Game:
        """The game just read, from its copy when there is one (taken out), caught up when it is
        behind, else decoded."""
        kept = self._copies.pop(stored.game_id, None)
        if kept is not None and kept.seq == stored.seq:
            self._behind.pop(stored.game_id, None)  # nobody else changed it since: copies serve again
            return kept.game
        if kept is not None and kept.seq < stored.seq and codec.catch_up(kept.game, stored.game):
            return kept.game
        return codec.decode(stored.game)


def _bound(entries: OrderedDict[str, _V], newest: str, size: int) -> None:
    entries.move_to_end(newest)
    while len(entries) > size:
        entries.popitem(last=False)
