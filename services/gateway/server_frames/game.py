"""The game's frames (docs/protocol.md, Frames): the game state, what an update applied, and
welcome, state, update, saved, error, ack, pong and reconnect."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
)

from boxedin.common.choices import Level

from .base import (
    Absent,
    Count,
    DrawnEdge,
    EdgeRef,
    Opponent,
    PlayerNo,
    Positive,
    ReplyTo,
    ScorePair,
    Winner,
    _Model,
    given,
)

# --- the game state ------------------------------------------------------------------------------


class Player(_Model):
    name: StrictStr
    kind: Literal["human", "ai", "practice"]


class SquareChange(_Model):
    """What an edge did to one square; ``points``: the change to ``player``'s score from it."""

    size: Positive
    row: Count
    col: Count
    kind: Literal["captured", "blocked", "removed", "taken_over"]
    player: PlayerNo
    points: StrictInt


class HeldSquare(_Model):
    size: Positive
    row: Count
    col: Count
    owner: PlayerNo
    points: StrictInt


class HistoryEntry(_Model):
    turn: Count
    player: PlayerNo
    edge: EdgeRef
    changes: list[SquareChange]
    score_change: ScorePair


class EdgePreview(_Model):
    dead: StrictBool
    captures: list[SquareChange]
    score_change: ScorePair
    continuation: Count
    one_short: Count


class Forfeit(_Model):
    """Who lost an online game without playing it to its end, and why."""

    player: PlayerNo
    reason: Literal["move_limit", "away", "left"]


class OnlineState(_Model):
    """What an online game has besides the game (docs/protocol.md, Online play)."""

    move_limit: Count  # seconds per move, 0 for none
    move_remaining_ms: Count | None
    connected: tuple[StrictBool, StrictBool]
    away_remaining_ms: tuple[Count | None, Count | None]
    forfeit: Forfeit | None
    rematch: tuple[StrictBool, StrictBool]
    declined: PlayerNo | None
    next_game: StrictStr | None
    via: Literal["room", "find_match"]


class GameState(_Model):
    """Everything the client draws (docs/protocol.md, "The game state"): the service's fields,
    then the engine's view (boxedin.engine.view.game_view)."""

    game: StrictStr
    seq: Count
    opponent: Opponent
    level: Level | None  # null unless the opponent is the AI
    clock: Count  # seconds per move, 0 for no clock
    ai_speed: Literal["normal", "fast"]
    seed: StrictStr | None
    players: tuple[Player, Player]
    ai_thinking: StrictBool
    clock_remaining_ms: Count | None
    online: OnlineState | None  # null unless the opponent is online
    mode: StrictStr
    overlap: StrictStr | None  # null in 1x1 modes
    boxes: Positive
    die: Positive | None  # null: no dice
    sizes: list[Positive]
    capturing_edge_free: StrictBool
    capture_owes_line: StrictBool
    first: PlayerNo
    to_move: PlayerNo | None
    phase: Literal["roll", "draw", "over"]
    roll: Positive | None
    edges_left: Count | None
    drawn_this_turn: Count
    turn: Count
    round: Positive
    scores: ScorePair
    over: StrictBool
    winner: Winner | None
    resigned: PlayerNo | None
    ended_with_open_edges: StrictBool
    can_undo: StrictBool
    can_end_turn: StrictBool
    open_edges: Count
    edges: list[DrawnEdge]
    squares: list[HeldSquare]
    box_holders: list[PlayerNo | None] | Absent = None  # territory only
    dead_edges: list[EdgeRef]
    history: list[HistoryEntry]
    previews: dict[StrictStr, EdgePreview] | Absent = None  # practice games, while running


class SavedSummary(_Model):
    game: StrictStr
    mode: StrictStr
    overlap: StrictStr | None
    opponent: Opponent
    level: Level | None
    scores: ScorePair
    round: Positive
    updated: StrictFloat  # epoch seconds


# --- what an update applied ----------------------------------------------------------------------


class RollAction(_Model):
    roll: Positive  # the roll as it counts (capped at the open edges)
    by: PlayerNo


class DrawAction(_Model):
    draw: EdgeRef
    by: PlayerNo


class EndTurnAction(_Model):
    end_turn: Literal[True]
    by: PlayerNo


class UndoAction(_Model):
    undo: Literal[True]
    by: PlayerNo


class TimeoutAction(_Model):
    timeout: Literal[True]
    by: PlayerNo


class ResignAction(_Model):
    resign: Literal[True]
    by: PlayerNo


class ResumeAction(_Model):
    """The game was reopened: not a player's action, so no ``by``."""

    resume: Literal[True]


class VisibilityAction(_Model):
    """A game with a move clock went off (false) or came back on (true) screen."""

    visibility: StrictBool


class ForfeitAction(_Model):
    """``by`` lost the online game: the move limit or the grace ran out, or they left."""

    forfeit: Literal["move_limit", "away", "left"]
    by: PlayerNo


class ConnectedAction(_Model):
    """A player's connection to an online game dropped (false) or came back (true)."""

    connected: StrictBool
    by: PlayerNo


class RematchAction(_Model):
    """A player asked for (true) or declined (false) a rematch of a finished online game."""

    rematch: StrictBool
    by: PlayerNo


_ACTION_KEYS = (
    "roll", "draw", "end_turn", "undo", "timeout", "resign", "resume", "visibility", "forfeit", "connected", "rematch",
)  # fmt: skip


def _action_kind(value: Any) -> str | None:
    """The action's kind is the key it has, so a bad action is reported against its own shape
    rather than against all of them."""
    keys = value.keys() if isinstance(value, dict) else type(value).model_fields if isinstance(value, _Model) else ()
    return next((key for key in _ACTION_KEYS if key in keys), None)


UpdateAction = Annotated[
    Annotated[RollAction, Tag("roll")]
    | Annotated[DrawAction, Tag("draw")]
    | Annotated[EndTurnAction, Tag("end_turn")]
    | Annotated[UndoAction, Tag("undo")]
    | Annotated[TimeoutAction, Tag("timeout")]
    | Annotated[ResignAction, Tag("resign")]
    | Annotated[ResumeAction, Tag("resume")]
    | Annotated[VisibilityAction, Tag("visibility")]
    | Annotated[ForfeitAction, Tag("forfeit")]
    | Annotated[ConnectedAction, Tag("connected")]
    | Annotated[RematchAction, Tag("rematch")],
    Discriminator(_action_kind),
]



# --- the frames ----------------------------------------------------------------------------------
# ``reply_to`` is on every reply to a client frame that had an ``id`` (docs/protocol.md, Frames):
# welcome (to hello), state, saved, error, ack and pong. An update answers no one in particular.


class Welcome(_Model):
    type: Literal["welcome"]
    device: StrictStr
    saved: SavedSummary | None
    server_time: StrictFloat  # epoch seconds
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(
        cls, device: str, saved: SavedSummary | None, server_time: float, reply_to: str | int | None = None
    ) -> Welcome:
        return cls(type="welcome", device=device, saved=saved, server_time=server_time, **given(reply_to=reply_to))


class State(_Model):
    type: Literal["state"]
    seq: Count
    game: GameState
    reply_to: ReplyTo | Absent = None


Splice = tuple[Count, Count, list[Any]]  # [at, removed, items put in]


class StateChanges(_Model):
    """What an update changed in the game state (docs/protocol.md, "The update frame";
    boxedin.common.delta): fields gone, fields set whole, lists spliced and objects changed in
    part. It never repeats the history or the board."""

    drop: list[StrictStr] | Absent = None
    set: dict[StrictStr, Any] | Absent = None
    splice: dict[StrictStr, list[Splice]] | Absent = None
    patch: dict[StrictStr, StateChanges] | Absent = None


class Update(_Model):
    type: Literal["update"]
    seq: Count
    action: UpdateAction
    changes: StateChanges


class Saved(_Model):
    type: Literal["saved"]
    saved: SavedSummary | None
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, saved: SavedSummary | None, reply_to: str | int | None = None) -> Saved:
        return cls(type="saved", saved=saved, **given(reply_to=reply_to))


class Error(_Model):
    type: Literal["error"]
    code: StrictStr
    message: StrictStr  # a sentence to show
    reply_to: ReplyTo | Absent = None
    seq: Count | Absent = None  # the game's seq, when the error concerns a game

    @classmethod
    def build(cls, code: str, message: str, *, reply_to: str | int | None = None, seq: int | None = None) -> Error:
        return cls(type="error", code=code, message=message, **given(reply_to=reply_to, seq=seq))


class Ack(_Model):
    type: Literal["ack"]
    reply_to: ReplyTo | Absent = None
    # An action sent again: the seq it made the first time (docs/protocol.md, Actions sent again).
    seq: Count | Absent = None

    @classmethod
    def build(cls, reply_to: str | int | None = None, seq: int | None = None) -> Ack:
        return cls(type="ack", **given(reply_to=reply_to, seq=seq))


class Pong(_Model):
    type: Literal["pong"]
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, reply_to: str | int | None = None) -> Pong:
        return cls(type="pong", **given(reply_to=reply_to))


class Reconnect(_Model):
    """The gateway is going away (a rollout: docs/protocol.md, Reconnecting): the client
    reconnects once, ``after`` seconds from now, through the same address (another replica takes
    it). Until then the connection works as ever."""

    type: Literal["reconnect"]
    after: Annotated[StrictFloat, Field(ge=0)]  # seconds

    @classmethod
    def build(cls, after: float) -> Reconnect:
        return cls(type="reconnect", after=round(after, 3))


