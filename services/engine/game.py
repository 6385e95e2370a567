"""A game: the rules, the position, the dice and the record of what happened, with every check
the rule book makes before an action is allowed.

Every action is checked completely before anything changes, so a refused action leaves the game
exactly as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .actions import Action, Draw, EndTurn, GameError, Resign, Resume, Roll, Timeout, Undo
from .backend import Backend, core
from .board import Edge, EdgeError, EdgeId, Geometry, Square, SquareId, geometry
from .dice import Dice
from .rules import Mode, RuleSet

Player = int  # 1 or 2, as players are named everywhere outside the core
Phase = Literal["roll", "draw", "over"]
_PHASES: tuple[Phase, Phase, Phase] = ("roll", "draw", "over")
CHANGE_KINDS = {1: "captured", 2: "blocked", 3: "removed", 4: "taken_over"}


@dataclass(frozen=True, slots=True)
class SquareChange:
    """What an edge did to one square. ``kind``: captured (``player`` is the new owner; under
    majority that may be the opponent), blocked (completed, never to be captured), removed
    (``player`` lost it) or taken_over (``player`` is the new owner). ``points``: the change to
    that player's score from this square alone."""

    square: Square
    kind: str
    player: Player
    points: int

    def to_json(self) -> dict[str, Any]:
        sq = self.square
        return {
            "size": sq.size,
            "row": sq.row,
            "col": sq.col,
            "kind": self.kind,
            "player": self.player,
            "points": self.points,
        }


@dataclass(frozen=True, slots=True)
class Move:
    """One drawn edge in the move history; ``turn`` counts turns from 0 (the first mover's first)."""

    turn: int
    player: Player
    edge: Edge
    changes: tuple[SquareChange, ...]
    score_change: tuple[int, int]

    @property
    def claimed(self) -> tuple[Square, ...]:
        return tuple(c.square for c in self.changes if c.kind == "captured")

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "player": self.player,
            "edge": self.edge.to_json(),
            "changes": [c.to_json() for c in self.changes],
            "score_change": list(self.score_change),
        }


@dataclass(frozen=True, slots=True)
class HeldSquare:
    square: Square
    owner: Player
    points: int


class Game:
    """One game of Boxed In. The only place where an action is judged against the rules."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        mode: Mode | None = None,
        first: Player = 1,
        seed: str | None = None,
        undo_allowed: bool = True,
        backend: Backend | None = None,
    ) -> None:
        if first not in (1, 2):
            raise GameError("bad_first", f"the first player is 1 or 2, not {first!r}")
        self.rules = rules
        self.mode = mode
        self.first = first
        self.dice = Dice(seed)
        self.undo_allowed = undo_allowed
        self.geo: Geometry = geometry(rules.boxes, rules.sizes)
        self.position = core(backend).Position(
            self.geo,
            int(rules.overlap),
            rules.die or 0,
            rules.capturing_edge_free,
            rules.capture_owes_line,
            first - 1,
        )
        self.position.record_events(True)
        self.actions: list[Action] = []
        self.history: list[Move] = []
        self.rolls = 0
        # The current turn's roll, capped at the open edges (None before the roll).
        self.current_roll: int | None = None
        # Every roll of the game in order, as (who rolled, the roll): the capped number, which is
        # the roll for play and for statistics alike (the record keeps the face the die showed).
        self.roll_history: list[tuple[Player, int]] = []
        # Draws of the current turn that a resume put out of Undo's reach.
        self._undo_floor = 0
        self.resigned: Player | None = None

    @classmethod
    def from_mode(cls, mode: Mode, overlap: Any = None, **options: Any) -> Game:
        return cls(mode.rules_with(overlap), mode=mode, **options)

    # --- the state, as the rule book names it ----------------------------------------------

    @property
    def over(self) -> bool:
        return self.resigned is not None or bool(self.position.over)

    @property
    def phase(self) -> Phase:
        return "over" if self.resigned is not None else _PHASES[self.position.phase]

    @property
    def to_move(self) -> Player | None:
        return None if self.over else self.position.to_move + 1

    @property
    def edges_left(self) -> int | None:
        """Edges that may still be counted this turn: dice games after the roll, else None."""
        if self.rules.die is None or self.phase != "draw":
            return None
        return int(self.position.edges_left)

    @property
    def round(self) -> int:
        """Round k begins when the first mover begins their k-th turn."""
        return int(self.position.turn) // 2 + 1

    @property
    def scores(self) -> tuple[int, int]:
        return (int(self.position.score(0)), int(self.position.score(1)))

    @property
    def winner(self) -> Player | Literal[0] | None:
        """None while the game runs; then 1 or 2, or 0 for a tie."""
        if not self.over:
            return None
        if self.resigned is not None:
            return 3 - self.resigned
        a, b = self.scores
        return 1 if a > b else 2 if b > a else 0

    @property
    def open_edge_count(self) -> int:
        return int(self.position.open_edges)

    @property
    def stopped_with_open_edges(self) -> bool:
        """The game ended because no open edge could lead to a capture, with edges still open.
        A forfeit (a resignation: Leave, a grace or a move limit that ran out) is never this,
        however many edges it left open: the rules notes' Forfeits give it its own words."""
        return self.resigned is None and bool(self.position.over) and self.open_edge_count > 0

    @property
    def drawn_this_turn(self) -> int:
        return int(self.position.drawn_this_turn)

    @property
    def can_end_turn(self) -> bool:
        return self.rules.die is not None and not self.over and self.drawn_this_turn > 0

    @property
    def can_undo(self) -> bool:
        return self.undo_allowed and not self.over and self.drawn_this_turn > self._undo_floor

    def is_open(self, edge: EdgeId) -> bool:
        return bool(self.position.drawn_by(edge) == 0)

    def drawn_by(self, edge: EdgeId) -> Player | None:
        player = self.position.drawn_by(edge)
        return player or None

    def held_squares(self) -> list[HeldSquare]:
        """Squares captured and neither removed nor dead, by size, row and column."""
        squares = self.geo.squares
        return [HeldSquare(squares[q], owner, points) for q, owner, points in self.held_square_ids()]

    def held_square_ids(self) -> list[tuple[SquareId, Player, int]]:
        """``held_squares`` as square ids with owner and points (no objects made: views)."""
        held: list[tuple[SquareId, Player, int]] = self.position.held_list()
        return held

    def dead_edges(self) -> list[EdgeId]:
        """Open edges that can no longer score, in edge order (h before v, row, column)."""
        dead: list[EdgeId] = self.position.dead_edge_list()
        return dead

    def box_holders(self) -> list[Player | None]:
        """Under territory, the holder of every box (row-major); None where nobody holds it."""
        return [
            None if holder < 0 else holder + 1
            for holder in (self.position.box_holder(b) for b in range(self.rules.boxes**2))
        ]

    def square_of(self, q: SquareId) -> Square:
        return self.geo.squares[q]

    # --- acting ----------------------------------------------------------------------------

    def apply(self, action: Action) -> Move | int | None:
        """Applies one action after checking it; ``GameError`` and no change when it is refused.

        Returns the roll for a roll, the move for a draw and the move taken back for an undo.
        """
        if isinstance(action, Resume):
            self.resume()
            return None
        if self.over:
            raise GameError("game_over", "the game is over: no more actions are possible")
        if isinstance(action, Roll):
            return self._roll(action.face)
        if isinstance(action, Draw):
            return self._draw(action.edge)
        if isinstance(action, EndTurn):
            self._end_turn()
            return None
        if isinstance(action, Undo):
            return self._undo()
        if isinstance(action, Timeout):
            self._end_turn(by_clock=True)
            return None
        if isinstance(action, Resign):
            self._resign(action.player)
            return None
        raise TypeError(f"not an action: {action!r}")

    def roll(self, face: int | None = None) -> int:
        result = self.apply(Roll(face))
        assert isinstance(result, int)
        return result

    def draw(self, edge: Edge) -> Move:
        result = self.apply(Draw(edge))
        assert isinstance(result, Move)
        return result

    def end_turn(self) -> None:
        self.apply(EndTurn())

    def timeout(self) -> None:
        self.apply(Timeout())

    def undo(self) -> Move:
        result = self.apply(Undo())
        assert isinstance(result, Move)
        return result

    def resume(self) -> None:
        """Marks the game as resumed from a save: Undo starts empty."""
        self.position.forget_history()
        self._undo_floor = self.drawn_this_turn
        self.actions.append(Resume())

    def _roll(self, face: int | None) -> int:
        die = self.rules.die
        if die is None:
            raise GameError("roll_not_due", "this game has no die: draw a line instead")
        if self.phase != "roll":
            raise GameError("roll_not_due", "the die has already been rolled this turn")
        if face is None:
            face = self.dice.face(self.rolls, die)
        elif not 1 <= face <= die:
            raise GameError("bad_roll", f"a d{die} shows 1 to {die}, not {face}")
        player = self.to_move
        assert player is not None
        roll = int(self.position.roll(face))
        self.rolls += 1
        self.current_roll = roll
        self.roll_history.append((player, roll))
        self.actions.append(Roll(face))
        return roll

    def _draw(self, edge: Edge) -> Move:
        if self.phase == "roll":
            raise GameError("roll_due", "roll the die before drawing an edge")
        try:
            edge_id = self.geo.edge_id(edge)
        except EdgeError as exc:
            raise GameError("illegal_edge", str(exc)) from None
        if not self.is_open(edge_id):
            raise GameError("edge_taken", f"edge {edge} has already been drawn")
        player = self.to_move
        assert player is not None
        before = self.scores
        turn = self.position.turn
        self.position.draw(edge_id)
        after = self.scores
        move = Move(
            turn,
            player,
            self.geo.edges[edge_id],
            tuple(
                SquareChange(self.geo.squares[q], CHANGE_KINDS[kind], p + 1, points)
                for kind, q, p, points in self.position.last_events()
            ),
            (after[0] - before[0], after[1] - before[1]),
        )
        self.history.append(move)
        self.actions.append(Draw(self.geo.edges[edge_id]))
        self._close_turn_if_ended(turn)
        return move

    def _end_turn(self, *, by_clock: bool = False) -> None:
        if not by_clock:
            if self.rules.die is None:
                raise GameError("no_end_turn", "this game has no End Turn: a line that captures nothing ends the turn")
            if self.drawn_this_turn == 0:
                raise GameError("nothing_drawn", "draw at least one edge before ending the turn")
        turn = self.position.turn
        self.position.end_turn()
        self.actions.append(Timeout() if by_clock else EndTurn())
        self._close_turn_if_ended(turn)

    def _undo(self) -> Move:
        if self.drawn_this_turn <= self._undo_floor:
            raise GameError("nothing_to_undo", "there is no edge of this turn left to take back")
        if not self.undo_allowed:
            raise GameError("undo_not_allowed", "moves cannot be taken back in this game")
        self.position.undo()
        self.actions.append(Undo())
        return self.history.pop()

    def _resign(self, player: Player) -> None:
        if player not in (1, 2):
            raise GameError("malformed", f"the player who resigns is 1 or 2, not {player!r}")
        self.resigned = player
        self.position.forget_history()
        self.actions.append(Resign(player))

    def resign(self, player: Player) -> None:
        self.apply(Resign(player))

    def _close_turn_if_ended(self, turn: int) -> None:
        # Nothing before the start of a turn can be taken back, so the journal can go.
        if self.position.turn != turn or self.over:
            self.position.forget_history()
            self._undo_floor = 0
            if not self.over:
                self.current_roll = None
