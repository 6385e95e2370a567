"""The one apply pipeline: every change to a game, whoever makes it (a person, the computer, a
deadline) and wherever it runs (the engine service, a Same Wi-Fi host), is judged and applied
here. Given the game, its table, the caller and the action, it authorises, refuses what may not
be done (a stale seq, a finished game, a clock with time left), applies, and says what it did:
the update's action, the seat that acted and whether the game ended.

Everything here is pure: it changes the game and the table in place and returns what was
applied, or raises a ``Refusal``; the caller stores the change. A refused action changes
nothing, except ``time_up``, which the caller must store (the turn ended when the clock ran out)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from boxedin.common.reasons import Refusal
from boxedin.engine.actions import Action, Draw, EndTurn, GameError, Resign, Roll, Timeout, Undo, edge_from_json
from boxedin.engine.game import Game

from . import clock, online
from .seats import COMPUTER, DEADLINE, Caller, authorize
from .table import ForfeitReason, Table

# The actions a client names by kind alone (docs/protocol.md, Client frames).
_SIMPLE: dict[str, Action] = {"roll": Roll(), "end_turn": EndTurn(), "undo": Undo(), "timeout": Timeout()}


def action_of(kind: str | None, edge: Any = None) -> Action:
    """The action a client frame or an engine request names: its kind, and for a draw its edge
    as ``[orientation, row, col]``. ``kind`` None: the request names none."""
    if kind == "draw":
        try:
            return Draw(edge_from_json(list(edge) if isinstance(edge, tuple | list) else edge))
        except GameError as exc:
            raise Refusal("malformed", exc.message) from None
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind == "resign":
        return Resign(0)  # the seat is filled in from who resigns
    if kind is None:
        raise Refusal("malformed", "the request names no action")
    raise Refusal("malformed", f"{kind!r} is not an action")


def action_json(action: Action, game: Game, by: int) -> dict[str, Any]:
    """The update's action (docs/protocol.md, Server frames), after ``action`` was applied."""
    if isinstance(action, Roll):
        return {"roll": game.current_roll, "by": by}
    if isinstance(action, Resign):
        return {"resign": True, "by": action.player}
    return {**action.to_json(), "by": by}


@dataclass(frozen=True, slots=True)
class Applied:
    """What a change did: the update's action, the seat it was made for, and whether it ended
    the game (a change after the end, such as a rematch ask, does not end it again)."""

    action: dict[str, Any]
    seat: int
    finishes: bool
    # The move clock had run out before the action came: the turn ended instead, and the
    # action is refused "time_up" once this change is stored.
    time_up: bool = False
    # A resignation of an online game, applied as leaving it.
    left: bool = False


def apply(
    game: Game, table: Table, caller: Caller, action: Action, *, expected_seq: int, seq: int, now: float
) -> Applied:
    """Judges and applies one action. ``expected_seq``: the seq the caller saw (negative: any);
    ``seq``: the game's own."""
    seat = authorize(table, game, caller, action)
    if expected_seq >= 0 and not online.chosen_on_this_board(table, expected_seq, seq):
        raise Refusal("stale", f"the game has moved on (it is at {seq}, not {expected_seq})")
    if game.over:
        raise Refusal("game_over", "the game is over: no more actions are possible")
    mover = game.to_move or 0
    if isinstance(action, Resign):
        action = Resign(seat)
    time_up = False
    if isinstance(action, Timeout):
        if not (clock.applies(game, table) and clock.expired(table, now)):
            raise Refusal("clock_running", "the move clock still has time left")
    elif caller is not COMPUTER and clock.applies(game, table) and clock.expired(table, now):
        # Too late: the turn ended when the clock ran out, whatever this action was.
        action, time_up = Timeout(), True
    if table.online is not None and isinstance(action, Resign):
        # Resigning an online game is leaving it: it goes to the other player.
        return _leave_running(game, table, seat)
    try:
        game.apply(action)
    except GameError as exc:
        raise Refusal(exc.code, exc.message) from None
    clock.restart(game, table, now)
    if table.online_state is not None:
        online.restart_move_limit(game, table, now)
        online.acted(table, seat, now)
        if game.over:
            online.settle_after_end(table)
    return Applied(action_json(action, game, mover), seat, finishes=game.over, time_up=time_up)


# --- online games: connections, leaving, rematches ---------------------------------------------


def connect(game: Game, table: Table, seat: int, connected: bool, now: float, connection: str = "") -> Applied | None:
    """A connection of a seat's device came or left; None when that changes nothing anyone sees
    (the game is over, another connection of the device still follows it, or the seat was
    already so), though the table may have changed: the caller stores it at the same seq."""
    if game.over or not online.set_connected(table, seat, connected, now, connection):
        return None
    return Applied({"connected": connected, "by": seat}, seat, finishes=False)


def leave(game: Game, table: Table, seat: int) -> Applied | None:
    """A player leaves: a running game goes to the other player; after the game it declines a
    rematch, unless nothing is left to decline (None)."""
    if not game.over:
        return _leave_running(game, table, seat)
    state = online.online_state(table)
    if state.declined is not None or state.next_game is not None:
        return None
    return Applied(online.ask_rematch(game, table, seat, want=False), seat, finishes=False)


def _leave_running(game: Game, table: Table, seat: int) -> Applied:
    return Applied(online.forfeit(game, table, seat, "left"), seat, finishes=True, left=True)


def ask_rematch(game: Game, table: Table, seat: int, want: bool) -> tuple[Applied, tuple[Game, Table] | None]:
    """A seat asks for a rematch (or declines one); with it, the next game when both asked. The
    caller names the next game (``name_next_game``) before it stores this change."""
    applied = Applied(online.ask_rematch(game, table, seat, want), seat, finishes=False)
    return applied, online.rematch_game(game, table) if online.both_asked(table) else None


def name_next_game(table: Table, game_id: str) -> None:
    """The rematch both asked for is the game ``game_id``: this game's update names it."""
    online.online_state(table).next_game = game_id


# --- deadlines ----------------------------------------------------------------------------------

DueKind = Literal["lease", "forfeit", "clock"]


@dataclass(frozen=True, slots=True)
class Due:
    """What a deadline that ran out does now: a connected seat's lease lapsed (it is away from
    now on), a seat forfeits (its grace or the move limit ran out), or the move clock ended the
    turn of the player to move."""

    kind: DueKind
    seat: int
    reason: ForfeitReason | None = None


def due(game: Game, table: Table, now: float) -> Due | None:
    """What is due in the game at ``now``, the first of them; None when nothing is (the clock
    was stopped or restarted meanwhile)."""
    lapsed = online.lapsed_lease(game, table, now)
    if lapsed is not None:
        return Due("lease", lapsed)
    forfeit = online.due_forfeit(game, table, now)
    if forfeit is not None:
        return Due("forfeit", *forfeit)
    if clock.applies(game, table) and clock.expired(table, now):
        return Due("clock", game.to_move or 0)
    return None


def fire(game: Game, table: Table, what: Due, *, seq: int, now: float) -> Applied:
    """Applies what is due, as the deadline (the ``DEADLINE`` caller)."""
    if what.kind == "lease":
        # Nobody vouches for the player's connections any more: they are away from now on.
        online.went_away(table, what.seat, now)
        return Applied({"connected": False, "by": what.seat}, what.seat, finishes=False)
    if what.kind == "forfeit":
        assert what.reason is not None, "a forfeit has its reason"
        return Applied(online.forfeit(game, table, what.seat, what.reason), what.seat, finishes=True)
    return apply(game, table, DEADLINE, Timeout(), expected_seq=seq, seq=seq, now=now)


def forfeit_due(game: Game, table: Table, now: float) -> Applied | None:
    """The forfeit of a seat whose grace or move limit ran out, applied; None when none did."""
    forfeit = online.due_forfeit(game, table, now)
    if forfeit is None:
        return None
    return fire(game, table, Due("forfeit", *forfeit), seq=0, now=now)
