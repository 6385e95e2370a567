"""Every reason code a refused request can carry, once (docs/protocol.md, Errors), and how a
refusal travels over gRPC: as a status code with the reason in the trailing metadata key
``boxedin-reason``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, NoReturn, cast

import grpc

REASON_KEY = "boxedin-reason"

# Who can be told a code: a websocket client (docs/protocol.md's Errors tables list exactly these),
# the browser of a boxedin lan process only (docs/protocol.md, Same Wi-Fi), or only another service.
Audience = Literal["client", "lan", "service"]


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason code: the gRPC status a refusal with it travels with, and a sentence for the
    player when the refusal names none of its own."""

    code: str
    status: grpc.StatusCode
    message: str
    audience: Audience = "client"


_S = grpc.StatusCode
# The statuses of a refusal of what the caller asked: a client's mistake (or a game that moved
# on), never the service failing. The error-rate alert (deploy/helm/boxedin/files/rules.yaml,
# BoxedInErrorRate) and the servers' "rpc failed" log leave exactly these out; every code the
# catalogue gives a client (or a boxedin lan browser) travels with one of them, even a code that
# never crosses gRPC (the gateway's and boxedin lan's own), so that no refusal of bad input can
# ever count as a failure. RESOURCE_EXHAUSTED is not among them: gRPC itself answers it when a
# server is over its limits.
REFUSAL_STATUSES = frozenset(
    {
        _S.FAILED_PRECONDITION,
        _S.ABORTED,
        _S.NOT_FOUND,
        _S.INVALID_ARGUMENT,
        _S.PERMISSION_DENIED,
        _S.CANCELLED,
    }
)
# The codes that say the service failed: they travel with a status the alert counts.
FAILURE_CODES = frozenset({"internal", "unavailable"})
_RULE = _S.FAILED_PRECONDITION  # the replay contract's rule errors (boxedin.engine.actions)
CATALOGUE: tuple[Reason, ...] = (
    # The frame itself (the gateway's own).
    Reason("bad_message", _S.INVALID_ARGUMENT, "the frame is not a valid frame of the protocol"),
    Reason("too_large", _S.INVALID_ARGUMENT, "the frame is too large"),
    Reason("hello_first", _S.FAILED_PRECONDITION, "say hello with your device token first"),
    Reason("too_fast", _S.FAILED_PRECONDITION, "too many frames at once: slow down"),
    # A game's setup and its calls.
    Reason("bad_device", _S.INVALID_ARGUMENT, "the device token is not valid"),
    Reason("bad_setup", _S.INVALID_ARGUMENT, "the game cannot be set up so"),
    Reason("bad_seed", _S.INVALID_ARGUMENT, "the seed is blank or too long"),
    Reason("no_game", _S.NOT_FOUND, "there is no such game"),
    Reason("not_your_game", _S.PERMISSION_DENIED, "that game is not yours"),
    Reason("stale", _S.ABORTED, "the game has moved on"),
    Reason("not_your_turn", _S.FAILED_PRECONDITION, "it is not your turn"),
    Reason("clock_running", _S.FAILED_PRECONDITION, "the move clock still has time left"),
    Reason("time_up", _S.FAILED_PRECONDITION, "the move clock ran out: the turn is over"),
    Reason("malformed", _S.INVALID_ARGUMENT, "the action is not well formed"),
    # The rules.
    Reason("game_over", _RULE, "the game is over: no more actions are possible"),
    Reason("roll_not_due", _RULE, "it is not time to roll"),
    Reason("bad_roll", _RULE, "that roll is not possible"),
    Reason("roll_due", _RULE, "roll first"),
    Reason("illegal_edge", _RULE, "there is no such edge on this board"),
    Reason("edge_taken", _RULE, "that edge is drawn already"),
    Reason("no_end_turn", _RULE, "the turn cannot end yet"),
    Reason("nothing_drawn", _RULE, "nothing was drawn this turn"),
    Reason("nothing_to_undo", _RULE, "there is nothing to undo"),
    Reason("undo_not_allowed", _RULE, "Undo is not allowed in this game"),
    # The services behind the gateway.
    Reason("busy", _S.ABORTED, "another action on the game came at the same moment; try again"),
    Reason("bad_token", _S.PERMISSION_DENIED, "the confirmation token is wrong or has expired; ask again"),
    Reason("internal", _S.INTERNAL, "something went wrong on the server; the game is unchanged"),
    Reason("unavailable", _S.UNAVAILABLE, "the game service cannot be reached; the game is unchanged"),
    # Online play (docs/protocol.md, Online play).
    Reason("bad_name", _S.INVALID_ARGUMENT, "that name is not allowed"),
    Reason("bad_code", _S.INVALID_ARGUMENT, "that is not a room code"),
    Reason("no_room", _S.NOT_FOUND, "no room has this code: check it with your friend"),
    Reason("room_expired", _S.NOT_FOUND, "this room waited 30 minutes and closed: ask your friend for a new one"),
    Reason("room_closed", _S.NOT_FOUND, "the friend who made this room closed it"),
    Reason("room_full", _S.FAILED_PRECONDITION, "somebody has joined this room already"),
    Reason("own_room", _S.FAILED_PRECONDITION, "this is your own room: pass the code on to a friend"),
    Reason("too_many_tries", _S.FAILED_PRECONDITION, "too many tries to join a room: wait a minute and check the code"),
    Reason("not_online", _S.FAILED_PRECONDITION, "that is not an online game"),
    Reason("not_over", _S.FAILED_PRECONDITION, "the game is still running"),
    Reason("rematch_over", _S.FAILED_PRECONDITION, "the rematch was declined or has started"),
    Reason(
        "player_gone", _S.FAILED_PRECONDITION, "a player left or did not come back in time, so there is no rematch"
    ),
    Reason("in_game", _S.FAILED_PRECONDITION, "you are playing an online game"),
    # Watching an online game by its link (docs/protocol.md, Watching).
    Reason("no_watch", _S.NOT_FOUND, "this watch link leads to no game: it is mistyped, or the game is gone"),
    Reason("watcher", _S.PERMISSION_DENIED, "you are watching this game: a watcher cannot act in it"),
    # Same Wi-Fi: a boxedin lan process to its own browser (docs/protocol.md, Same Wi-Fi).
    Reason("bad_address", _S.INVALID_ARGUMENT, "name a game of the list or type its address", "lan"),
    Reason("nobody_waiting", _S.FAILED_PRECONDITION, "nobody is waiting to be let in", "lan"),
    Reason("host_left", _S.FAILED_PRECONDITION, "the host closed the game", "lan"),
    # A call from a service that may not make it (boxedin.common.service_auth).
    Reason("not_allowed", _S.PERMISSION_DENIED, "this service may not make that call", "service"),
    Reason("unauthenticated", _S.UNAUTHENTICATED, "the calling service is not authenticated", "service"),
)
REASONS: dict[str, Reason] = {reason.code: reason for reason in CATALOGUE}
CLIENT_CODES = frozenset(reason.code for reason in CATALOGUE if reason.audience == "client")


class Refusal(Exception):
    """A request refused with a reason code and a sentence for the player (by default the
    catalogue's for the code)."""

    def __init__(self, reason: str, message: str | None = None) -> None:
        if message is None:
            message = REASONS[reason].message if reason in REASONS else reason
        super().__init__(message)
        self.reason = reason
        self.message = message

    @property
    def status(self) -> grpc.StatusCode:
        known = REASONS.get(self.reason)
        return known.status if known is not None else grpc.StatusCode.INTERNAL


async def abort(context: grpc.aio.ServicerContext[Any, Any], refusal: Refusal) -> NoReturn:
    await context.abort(refusal.status, refusal.message, trailing_metadata=((REASON_KEY, refusal.reason),))
    raise AssertionError("unreachable: abort raises")


def refusal_of(error: grpc.RpcError) -> Refusal:
    """The refusal a failed call carries; an unreachable service is ``unavailable``."""
    reason = None
    trailing = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    # (key, value) pairs: grpc's are namedtuples, grpc.aio's a Metadata of tuples; typeshed types
    # the former as a _Metadatum class that cannot be unpacked.
    for key, value in cast("Iterable[tuple[str, str | bytes]]", trailing or ()):
        if key == REASON_KEY:
            reason = value
    code = error.code() if hasattr(error, "code") else None
    if reason is None:
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            return Refusal("unavailable")
        return Refusal("internal")
    details = error.details() if hasattr(error, "details") else None
    return Refusal(str(reason), str(details or reason))
