"""Online games (the rule book, "Playing Online"): two devices through the server. The server
rolls, there is no Undo and no move clock; a Find Match game gives every move a time limit, and
a player whose connection drops has a grace time to come back. Either running out, or leaving,
loses the game: a forfeit, stored in the game as the loser's resignation. After the game both
may ask for a rematch, in which the player who went second goes first.

Everything here is pure: it changes a game and its table and says what it did; the service
stores the change."""

from __future__ import annotations

import secrets
import time
from typing import Any

from boxedin.common.names import check_name
from boxedin.common.reasons import Refusal
from boxedin.engine.actions import Resign
from boxedin.engine.game import Game
from boxedin.engine.rules import Overlap, RulesError, mode_by_id

from .seats import Seat
from .table import ForfeitReason, OnlineTable, Table

VIAS = ("room", "find_match")
# Forfeits after which the loser is not there to play again: Leave, and a grace that ran out (a
# move limit that ran out leaves both players at the table).
GONE_FOR_GOOD: frozenset[ForfeitReason] = frozenset({"left", "away"})


def new_online_game(
    seats: list[tuple[str, str]],
    *,
    mode: str,
    overlap: str,
    via: str,
    move_limit: int,
    grace: int,
    lease: float = 30.0,
    settle: float = 0.0,
    first: int = 0,
) -> tuple[Game, Table]:
    """The game and table of an online game between two devices, ``seats`` (device hash, name)
    for seats 1 and 2; ``first`` 0 picks who moves first at random."""
    if len(seats) != 2:
        raise Refusal("bad_setup", f"an online game has two players, not {len(seats)}")
    (device1, name1), (device2, name2) = seats
    if not device1 or not device2:
        raise Refusal("bad_device", "both seats of an online game need a device")
    if device1 == device2:
        raise Refusal("bad_setup", "nobody plays an online game against themself")
    if via not in VIAS:
        raise Refusal("bad_setup", f"an online game starts through a room or Find Match, not {via!r}")
    try:
        chosen = mode_by_id(mode)
        rules = chosen.rules_with(Overlap.from_id(overlap) if overlap else None)
    except RulesError as exc:
        raise Refusal("bad_setup", str(exc)) from None
    if chosen.practice:
        raise Refusal("bad_setup", f"{chosen.name} is not played online")
    game = Game(rules, mode=chosen, first=first or secrets.choice((1, 2)), undo_allowed=False)
    now = time.time()
    state = OnlineTable(
        move_limit=move_limit if via == "find_match" else 0,
        grace=grace,
        lease=lease,
        settle=settle,
        # Nobody is connected until their gateway says so: a player who never comes loses after
        # the grace, like one who went away.
        away=[now + grace, now + grace],
    )
    table = Table(
        seats=(Seat.person(device1, check_name(name1)), Seat.person(device2, check_name(name2))),
        created=now,
        updated=now,
        saved=False,
        online=via,
        online_state=state,
    )
    restart_move_limit(game, table, now)
    return game, table


def rematch_game(game: Game, table: Table) -> tuple[Game, Table]:
    """The next game of two players who both asked: same seats, names, rules and way of meeting;
    the player who went second goes first."""
    state = online_state(table)
    seats = [(seat.device or "", seat.name) for seat in table.seats]
    overlap = game.rules.overlap.id if game.rules.has_overlap else ""
    assert game.mode is not None, "an online game is played in a mode"
    return new_online_game(
        seats,
        mode=game.mode.id,
        overlap=overlap,
        via=table.online or "room",
        move_limit=state.move_limit or 0,
        grace=state.grace,
        lease=state.lease,
        settle=state.settle,
        first=3 - game.first,
    )


def online_state(table: Table) -> OnlineTable:
    if table.online is None or table.online_state is None:
        raise Refusal("not_online", "this is not an online game")
    return table.online_state


def restart_move_limit(game: Game, table: Table, now: float) -> None:
    """After a player's move: the full limit for whoever is to move now."""
    state = table.online_state
    if state is None:
        return
    state.move_deadline = now + state.move_limit if state.move_limit and not game.over else None


def settle_after_end(table: Table) -> None:
    """Nothing runs out in a finished game."""
    state = table.online_state
    if state is not None:
        state.move_deadline = None
        state.away = [None, None]
        state.leases = [None, None]
        state.connections = [{}, {}]


def forfeit(game: Game, table: Table, player: int, reason: ForfeitReason) -> dict[str, Any]:
    """``player`` loses the running game; the update's action."""
    state = online_state(table)
    game.apply(Resign(player))
    state.forfeit_player, state.forfeit_reason = player, reason
    settle_after_end(table)
    return {"forfeit": reason, "by": player}


def due_forfeit(game: Game, table: Table, now: float) -> tuple[int, ForfeitReason] | None:
    """Who loses the game now because a deadline ran out, if anyone: an away player whose grace
    ran out (the first of them), else the player to move past the move limit."""
    state = table.online_state
    if state is None or game.over:
        return None
    away = [(moment, player) for player, moment in enumerate(state.away, start=1) if moment is not None]
    if away:
        moment, player = min(away)
        if moment <= now:
            return player, "away"
    if state.move_deadline is not None and state.move_deadline <= now and game.to_move is not None:
        return game.to_move, "move_limit"
    return None


# The connections one seat's device may hold open on a game at once (tabs, a phone and a
# laptop): more are dropped oldest lease first, so a client cannot grow the stored table.
MOST_CONNECTIONS = 16


def set_connected(table: Table, seat: int, connected: bool, now: float, connection: str = "") -> bool:
    """A connection of the seat's device came to the game or left it; True when the player came
    back or went away. The player is away only when no connection of theirs follows the game:
    a second tab closing leaves them there. When the last one leaves, the player is away only
    once ``settle`` seconds pass without a return (the seat holds a lease that short), so a
    device that reconnects at once commits no change at all."""
    state = online_state(table)
    connections = state.connections[seat - 1]
    _drop_lapsed(connections, now)
    if connected:
        connections[connection] = now + state.lease
        _keep_at_most(connections)
        state.leases[seat - 1] = max(connections.values())
        if state.away[seat - 1] is None:
            return False
        state.away[seat - 1] = None
        return True
    connections.pop(connection, None)
    if state.away[seat - 1] is not None:
        return False
    if connections:
        state.leases[seat - 1] = max(connections.values())
        return False
    if state.settle > 0:
        state.leases[seat - 1] = now + state.settle
        return False
    went_away(table, seat, now)
    return True


def went_away(table: Table, seat: int, now: float) -> None:
    """No connection of the seat's device follows the game any more: its grace starts."""
    state = online_state(table)
    state.connections[seat - 1].clear()
    state.leases[seat - 1] = None
    state.away[seat - 1] = now + state.grace


def acted(table: Table, seat: int, now: float) -> None:
    """A player who acts is connected, whatever their last connection said (the lease holds
    until their gateway vouches for the connection it came through)."""
    state = online_state(table)
    state.away[seat - 1] = None
    state.leases[seat - 1] = max(state.leases[seat - 1] or 0.0, now + state.lease)


def _drop_lapsed(connections: dict[str, float], now: float) -> None:
    for connection in [c for c, lease in connections.items() if lease <= now]:
        del connections[connection]


def _keep_at_most(connections: dict[str, float]) -> None:
    while len(connections) > MOST_CONNECTIONS:
        del connections[min(connections, key=connections.__getitem__)]


def is_presence(action: dict[str, Any]) -> bool:
    """Whether an update's action is a player going away or coming back, which changes no board."""
    return action.keys() == {"connected", "by"}


def note_change(table: Table, action: dict[str, Any], seq: int) -> None:
    """Records a change made at ``seq`` (to ``seq + 1``): a change of presence keeps the seq
    from which the board has stood as it is; any other change starts a new board."""
    state = table.online_state
    if state is None:
        return
    if not is_presence(action):
        state.board_seq = None
    elif state.board_seq is None:
        state.board_seq = seq


def chosen_on_this_board(table: Table, expected_seq: int, seq: int) -> bool:
    """Whether an action chosen at ``expected_seq`` was chosen on the board as it stands at
    ``seq``: the same seq, or one that only changes of presence have followed (an opponent who
    drops and comes back must not make the other player's moves stale)."""
    if expected_seq == seq:
        return True
    state = table.online_state
    return state is not None and state.board_seq is not None and state.board_seq <= expected_seq < seq


def keep_connected(table: Table, seat: int, now: float, connection: str = "") -> bool:
    """Renews the lease of a connection the connected seat holds; False when the player is away
    or the seat does not hold it (nothing to keep). A renewal never adds a connection: a
    gateway's round, sent before the connection's goodbye, may come after it, and would keep a
    closed page's player here for a lease."""
    state = online_state(table)
    if state.away[seat - 1] is not None:
        return False
    connections = state.connections[seat - 1]
    if connection not in connections:
        return False
    _drop_lapsed(connections, now)
    connections[connection] = now + state.lease
    _keep_at_most(connections)
    state.leases[seat - 1] = max(connections.values())
    return True


def lapsed_lease(game: Game, table: Table, now: float) -> int | None:
    """A connected seat whose lease ran out (nobody vouches for its connection any more)."""
    state = table.online_state
    if state is None or game.over:
        return None
    for seat, lease in enumerate(state.leases, start=1):
        if lease is not None and lease <= now and state.away[seat - 1] is None:
            return seat
    return None


def ask_rematch(game: Game, table: Table, seat: int, want: bool) -> dict[str, Any]:
    """Records a seat's rematch ask (or its refusal); the update's action."""
    state = online_state(table)
    if not game.over:
        raise Refusal("not_over", "a rematch is asked for after the game")
    if state.next_game is not None:
        raise Refusal("rematch_over", "the rematch has started already")
    if state.declined is not None:
        raise Refusal("rematch_over", "a rematch was declined")
    if want and state.forfeit_reason in GONE_FOR_GOOD:
        # The player who left, or who lost by a grace that ran out, has gone for good: an ask
        # would wait for ever for somebody who is not there, so neither seat may ask.
        raise Refusal("player_gone")
    if want:
        state.rematch[seat - 1] = True
    else:
        state.declined = seat
    return {"rematch": want, "by": seat}


def both_asked(table: Table) -> bool:
    state = table.online_state
    return state is not None and all(state.rematch) and state.next_game is None


def view(table: Table, game: Game, now: float) -> dict[str, Any] | None:
    """The game state's ``online`` object (docs/protocol.md), null for other games."""
    state = table.online_state
    if table.online is None or state is None:
        return None

    def left(moment: float | None) -> int | None:
        return None if moment is None else max(0, round((moment - now) * 1000))

    forfeit_view = None
    if state.forfeit_player is not None:
        forfeit_view = {"player": state.forfeit_player, "reason": state.forfeit_reason}
    return {
        "move_limit": state.move_limit,
        "move_remaining_ms": None if game.over else left(state.move_deadline),
        "connected": [moment is None for moment in state.away],
        "away_remaining_ms": [left(moment) for moment in state.away],
        "forfeit": forfeit_view,
        "rematch": list(state.rematch),
        "declined": state.declined,
        "next_game": state.next_game,
        "via": table.online,
    }
