"""Reason codes of refused requests (docs/protocol.md), and how they travel over gRPC: as a
status code with the reason in the trailing metadata key ``boxedin-reason``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn, cast

import grpc

REASON_KEY = "boxedin-reason"

RULE_ERRORS = frozenset(
    {
        "game_over", "roll_not_due", "bad_roll", "roll_due", "illegal_edge", "edge_taken",
        "no_end_turn", "nothing_drawn", "nothing_to_undo", "undo_not_allowed",
    }
)  # fmt: skip

_STATUS = {
    "bad_setup": grpc.StatusCode.INVALID_ARGUMENT,
    "bad_seed": grpc.StatusCode.INVALID_ARGUMENT,
    "malformed": grpc.StatusCode.INVALID_ARGUMENT,
    "bad_device": grpc.StatusCode.INVALID_ARGUMENT,
    "no_game": grpc.StatusCode.NOT_FOUND,
    "not_your_game": grpc.StatusCode.PERMISSION_DENIED,
    "not_your_turn": grpc.StatusCode.FAILED_PRECONDITION,
    "clock_running": grpc.StatusCode.FAILED_PRECONDITION,
    "time_up": grpc.StatusCode.FAILED_PRECONDITION,
    "stale": grpc.StatusCode.ABORTED,
    "busy": grpc.StatusCode.ABORTED,
    "unavailable": grpc.StatusCode.UNAVAILABLE,
    # Online play (docs/protocol.md, Online play).
    "bad_name": grpc.StatusCode.INVALID_ARGUMENT,
    "bad_code": grpc.StatusCode.INVALID_ARGUMENT,
    "no_room": grpc.StatusCode.NOT_FOUND,
    "room_expired": grpc.StatusCode.NOT_FOUND,
    "room_closed": grpc.StatusCode.NOT_FOUND,
    "room_full": grpc.StatusCode.FAILED_PRECONDITION,
    "own_room": grpc.StatusCode.FAILED_PRECONDITION,
    "in_game": grpc.StatusCode.FAILED_PRECONDITION,
    "not_online": grpc.StatusCode.FAILED_PRECONDITION,
    "not_over": grpc.StatusCode.FAILED_PRECONDITION,
    "rematch_over": grpc.StatusCode.FAILED_PRECONDITION,
    "too_many_tries": grpc.StatusCode.RESOURCE_EXHAUSTED,
    # A call from a service that may not make it (boxedin.common.service_auth).
    "not_allowed": grpc.StatusCode.PERMISSION_DENIED,
    "unauthenticated": grpc.StatusCode.UNAUTHENTICATED,
}


class Refusal(Exception):
    """A request refused with a reason code and a sentence for the player."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    @property
    def status(self) -> grpc.StatusCode:
        if self.reason in RULE_ERRORS:
            return grpc.StatusCode.FAILED_PRECONDITION
        return _STATUS.get(self.reason, grpc.StatusCode.INTERNAL)


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
            return Refusal("unavailable", "the game service cannot be reached; the game is unchanged")
        return Refusal("internal", "something went wrong on the server; the game is unchanged")
    details = error.details() if hasattr(error, "details") else None
    return Refusal(str(reason), str(details or reason))
