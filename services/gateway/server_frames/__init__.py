"""Server frames of the websocket protocol (docs/protocol.md) as models: the one definition of
their types, from which scripts/gen_catalog.py generates the web client's
(web/src/generated/frames.ts), and what the tests hold every frame of the real server to. One
module a family of frames (base: what they are built of); here, the union of them all."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from .base import (
    Absent,
    Count,
    DrawnEdge,
    EdgeRef,
    Opponent,
    Orientation,
    PlayerNo,
    Positive,
    ReplyTo,
    ScorePair,
    Winner,
)
from .game import (
    Ack,
    ConnectedAction,
    DrawAction,
    EdgePreview,
    EndTurnAction,
    Error,
    Forfeit,
    ForfeitAction,
    GameState,
    HeldSquare,
    HistoryEntry,
    OnlineState,
    Player,
    Pong,
    Reconnect,
    RematchAction,
    ResignAction,
    ResumeAction,
    RollAction,
    Saved,
    SavedSummary,
    Splice,
    SquareChange,
    State,
    StateChanges,
    TimeoutAction,
    UndoAction,
    Update,
    UpdateAction,
    VisibilityAction,
    Welcome,
)
from .lan import LanClosed, LanGame, LanHosting, LanLink, LanStatus
from .online import (
    MatchCancelled,
    Matched,
    MatchWaiting,
    ModePresence,
    OnlineStatus,
    OpenRoom,
    PresenceFrame,
    RoomClosed,
    RoomFrame,
    RunningOnline,
)
from .review import Review, ReviewBoard, TurnFigures
from .statistics import (
    AchievementState,
    LeaderboardEntry,
    LeaderboardLine,
    ResetConfirm,
    Result,
    Stats,
    StatsDetails,
    StatsOverview,
    WinsAndGames,
)
from .watching import Watched, Watching, WatchLink

__all__ = [
    "SERVER_FRAMES",
    "Absent",
    "AchievementState",
    "Ack",
    "ConnectedAction",
    "Count",
    "DrawAction",
    "DrawnEdge",
    "EdgePreview",
    "EdgeRef",
    "EndTurnAction",
    "Error",
    "Forfeit",
    "ForfeitAction",
    "GameState",
    "HeldSquare",
    "HistoryEntry",
    "LanClosed",
    "LanGame",
    "LanHosting",
    "LanLink",
    "LanStatus",
    "LeaderboardEntry",
    "LeaderboardLine",
    "MatchCancelled",
    "MatchWaiting",
    "Matched",
    "ModePresence",
    "OnlineState",
    "OnlineStatus",
    "OpenRoom",
    "Opponent",
    "Orientation",
    "Player",
    "PlayerNo",
    "Pong",
    "Positive",
    "PresenceFrame",
    "Reconnect",
    "RematchAction",
    "ReplyTo",
    "ResetConfirm",
    "ResignAction",
    "Result",
    "ResumeAction",
    "Review",
    "ReviewBoard",
    "RollAction",
    "RoomClosed",
    "RoomFrame",
    "RunningOnline",
    "Saved",
    "SavedSummary",
    "ScorePair",
    "ServerFrame",
    "ServerFrameModel",
    "Splice",
    "SquareChange",
    "State",
    "StateChanges",
    "Stats",
    "StatsDetails",
    "StatsOverview",
    "TimeoutAction",
    "TurnFigures",
    "UndoAction",
    "Update",
    "UpdateAction",
    "VisibilityAction",
    "WatchLink",
    "Watched",
    "Watching",
    "Welcome",
    "Winner",
    "WinsAndGames",
    "server_frame",
    "server_frame_schema",
]

ServerFrame = Annotated[
    Welcome
    | State
    | Update
    | Saved
    | Error
    | Ack
    | Pong
    | Reconnect
    | Stats
    | Result
    | Review
    | ResetConfirm
    | OnlineStatus
    | PresenceFrame
    | MatchWaiting
    | MatchCancelled
    | RoomFrame
    | RoomClosed
    | Matched
    | RunningOnline
    | WatchLink
    | Watched
    | Watching
    | LanStatus
    | LanClosed,
    Field(discriminator="type"),
]
SERVER_FRAMES: TypeAdapter[ServerFrame] = TypeAdapter(ServerFrame)
# A frame the gateway (or boxedin lan, for Same Wi-Fi) builds itself (state and update frames carry
# the engine's JSON as it is, review frames the AI service's).
ServerFrameModel = (
    Welcome | Saved | Error | Ack | Pong | Reconnect | Stats | Result | ResetConfirm | OnlineStatus | PresenceFrame
    | MatchWaiting | MatchCancelled | RoomFrame | RoomClosed | Matched | RunningOnline | WatchLink | Watched | Watching
    | LanStatus | LanClosed
)  # fmt: skip


def server_frame(raw: str | bytes | dict[str, Any]) -> ServerFrameModel | State | Update | Review:
    """A frame the server sent (JSON text or parsed), as its model; ``pydantic.ValidationError``
    says what breaks the protocol."""
    if isinstance(raw, dict):
        return SERVER_FRAMES.validate_python(raw)
    return SERVER_FRAMES.validate_json(raw)


def server_frame_schema() -> dict[str, Any]:
    """The JSON schema of every server frame (what web/src/generated/frames.ts is generated from)."""
    return SERVER_FRAMES.json_schema()
