"""Online play frames (docs/protocol.md, Online play): rooms, Find Match, presence, running
games."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import (
    StrictBool,
    StrictFloat,
    StrictStr,
)

from .base import (
    Absent,
    Count,
    PlayerNo,
    ReplyTo,
    _Model,
    given,
)
from .game import GameState

# --- online play (docs/protocol.md, Online play) --------------------------------------------------


class OpenRoom(_Model):
    code: StrictStr
    mode: StrictStr
    overlap: StrictStr | None
    expires_in: StrictFloat  # seconds


class OnlineStatus(_Model):
    type: Literal["online_status"]
    game: StrictStr | None  # the device's running online game
    room: OpenRoom | None
    waiting: StrictStr | None  # the mode the device looks for a game in
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(
        cls, game: str | None, room: OpenRoom | None, waiting: str | None, reply_to: str | int | None = None
    ) -> OnlineStatus:
        return cls(type="online_status", game=game, room=room, waiting=waiting, **given(reply_to=reply_to))


class ModePresence(_Model):
    waiting: StrictBool
    games_now: Count
    popular: StrictBool


class PresenceFrame(_Model):
    type: Literal["presence"]
    players_online: Count
    modes: dict[StrictStr, ModePresence]

    @classmethod
    def build(cls, players_online: int, modes: dict[str, ModePresence]) -> PresenceFrame:
        return cls(type="presence", players_online=players_online, modes=modes)


class MatchWaiting(_Model):
    type: Literal["match_waiting"]
    mode: StrictStr
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, mode: str, reply_to: str | int | None = None) -> MatchWaiting:
        return cls(type="match_waiting", mode=mode, **given(reply_to=reply_to))


class MatchCancelled(_Model):
    type: Literal["match_cancelled"]
    cancelled: StrictBool
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, cancelled: bool, reply_to: str | int | None = None) -> MatchCancelled:
        return cls(type="match_cancelled", cancelled=cancelled, **given(reply_to=reply_to))


class RoomFrame(_Model):
    type: Literal["room"]
    code: StrictStr
    mode: StrictStr
    overlap: StrictStr | None
    expires_in: StrictFloat  # seconds
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, room: OpenRoom, reply_to: str | int | None = None) -> RoomFrame:
        return cls(type="room", **room.model_dump(), **given(reply_to=reply_to))


class RoomClosed(_Model):
    type: Literal["room_closed"]
    code: StrictStr | None
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, code: str | None, reply_to: str | int | None = None) -> RoomClosed:
        return cls(type="room_closed", code=code, **given(reply_to=reply_to))


class Matched(_Model):
    type: Literal["matched"]
    game: StrictStr
    seat: PlayerNo
    via: Literal["room", "find_match", "rematch"]
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, game: str, seat: int, via: str, reply_to: str | int | None = None) -> Matched:
        return cls.model_validate(
            {"type": "matched", "game": game, "seat": seat, "via": via, **given(reply_to=reply_to)}
        )


class RunningOnline(_Model):
    """The device's running online game, for the menu to offer it back (the grace of an away
    player is in its state's ``online``), or nothing (``game`` null)."""

    type: Literal["running_online"]
    game: StrictStr | None
    seat: PlayerNo | None
    state: GameState | None
    reply_to: ReplyTo | Absent = None

    @classmethod
    def none(cls, reply_to: str | int | None = None) -> RunningOnline:
        return cls(type="running_online", game=None, seat=None, state=None, **given(reply_to=reply_to))

    @staticmethod
    def spliced(game: str, seat: int, state_json: str, reply_to: str | int | None = None) -> str:
        """The frame with the engine's state JSON as it is (never parsed here), as the feed
        passes on a state."""
        head = {"type": "running_online", "game": game, "seat": seat, **given(reply_to=reply_to)}
        return json.dumps(head, separators=(",", ":"))[:-1] + f',"state":{state_json}}}'


