"""Server frames of the websocket protocol (docs/protocol.md) as models: the one definition of
their types, from which scripts/gen_catalog.py generates the web client's
(web/src/generated/frames.ts), and what the tests hold every frame of the real server to.

Two kinds of "nothing" are kept apart, because the client tells them apart:
- a required field that may be null (``level``, ``seed``, ``to_move``, ``winner``, ``saved``...)
  is always sent, as ``null`` when there is nothing;
- an optional field (``reply_to``, the error's ``seq``, ``previews``, ``box_holders``) is left
  out when there is nothing, and is never ``null``.
Required fields have no default; optional ones default to ``None``, which ``_Model`` refuses as
input and leaves out of the JSON, and which the JSON schema does not offer (``Absent``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    TypeAdapter,
    model_serializer,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from boxedin.common.choices import Level


def _not_bool(value: Any) -> Any:
    """Literals of numbers take ``True`` for 1 (``True == 1``); the protocol sends numbers."""
    if isinstance(value, bool):
        raise ValueError("a number, not true or false")
    return value


Absent = SkipJsonSchema[None]  # an optional field's "not sent": no null in the schema
PlayerNo = Annotated[Literal[1, 2], BeforeValidator(_not_bool)]
Winner = Annotated[Literal[0, 1, 2], BeforeValidator(_not_bool)]  # 0: a tie
Orientation = Literal["h", "v"]
Count = Annotated[StrictInt, Field(ge=0)]
Positive = Annotated[StrictInt, Field(ge=1)]
ReplyTo = Annotated[StrictStr, Field(max_length=64)] | StrictInt  # a client frame's id (client_frames.py)
EdgeRef = tuple[Orientation, Count, Count]  # ["h", row, col]
DrawnEdge = tuple[Orientation, Count, Count, PlayerNo]  # ["h", row, col, who drew it]
ScorePair = tuple[StrictInt, StrictInt]  # players 1 and 2
Opponent = Literal["ai", "local", "practice", "online"]


def _no_null_default(schema: dict[str, Any]) -> None:
    """An optional field's ``None`` means "not sent": the schema offers no null, so no default."""
    for prop in schema.get("properties", {}).values():
        if "default" in prop and prop["default"] is None:
            del prop["default"]


class _Model(BaseModel):
    """Strict about what is there (``extra="forbid"``: a field the protocol does not name is an
    error) and exact about what is not (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=_no_null_default)
    _optional: ClassVar[frozenset[str]] = frozenset()  # the fields left out when None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._optional = frozenset(name for name, field in cls.model_fields.items() if not field.is_required())

    @model_validator(mode="before")
    @classmethod
    def _absent_is_not_null(cls, data: Any) -> Any:
        if cls._optional and isinstance(data, dict):
            for name in cls._optional:
                if name in data and data[name] is None:
                    raise ValueError(f"{name} is left out when there is none, never null")
        return data

    @model_serializer(mode="wrap")
    def _leave_out_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if self._optional and isinstance(data, dict):
            for name in self._optional:
                if name in data and data[name] is None:
                    del data[name]
        return data

    def to_json(self) -> str:
        """Compact JSON, as sent on the websocket."""
        return self.model_dump_json()


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


def _given(**optional: Any) -> dict[str, Any]:
    """The optional fields that have a value: the others are left out, not set to null."""
    return {name: value for name, value in optional.items() if value is not None}


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
        return cls(type="welcome", device=device, saved=saved, server_time=server_time, **_given(reply_to=reply_to))


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
        return cls(type="saved", saved=saved, **_given(reply_to=reply_to))


class Error(_Model):
    type: Literal["error"]
    code: StrictStr
    message: StrictStr  # a sentence to show
    reply_to: ReplyTo | Absent = None
    seq: Count | Absent = None  # the game's seq, when the error concerns a game

    @classmethod
    def build(cls, code: str, message: str, *, reply_to: str | int | None = None, seq: int | None = None) -> Error:
        return cls(type="error", code=code, message=message, **_given(reply_to=reply_to, seq=seq))


class Ack(_Model):
    type: Literal["ack"]
    reply_to: ReplyTo | Absent = None
    # An action sent again: the seq it made the first time (docs/protocol.md, Actions sent again).
    seq: Count | Absent = None

    @classmethod
    def build(cls, reply_to: str | int | None = None, seq: int | None = None) -> Ack:
        return cls(type="ack", **_given(reply_to=reply_to, seq=seq))


class Pong(_Model):
    type: Literal["pong"]
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, reply_to: str | int | None = None) -> Pong:
        return cls(type="pong", **_given(reply_to=reply_to))


class Reconnect(_Model):
    """The gateway is going away (a rollout: docs/protocol.md, Reconnecting): the client
    reconnects once, ``after`` seconds from now, through the same address (another replica takes
    it). Until then the connection works as ever."""

    type: Literal["reconnect"]
    after: Annotated[StrictFloat, Field(ge=0)]  # seconds

    @classmethod
    def build(cls, after: float) -> Reconnect:
        return cls(type="reconnect", after=round(after, 3))


# --- statistics (docs/protocol.md, Statistics) ----------------------------------------------------


class StatsOverview(_Model):
    games: Count
    wins: Count
    losses: Count
    ties: Count
    win_rate: StrictFloat  # 0 to 1
    current_streak: Count
    best_streak: Count
    squares_captured: Count
    points_scored: StrictInt
    highest_score: StrictInt
    biggest_margin: StrictInt | None  # null before the first win
    play_seconds: StrictFloat
    longest_game_seconds: StrictFloat
    fastest_win_seconds: StrictFloat | None  # null before the first win


class WinsAndGames(_Model):
    games: Count
    wins: Count


class StatsDetails(_Model):
    by_mode: dict[StrictStr, WinsAndGames]
    by_level: dict[StrictStr, WinsAndGames]
    by_overlap: dict[StrictStr, WinsAndGames]
    dice: dict[StrictStr, Count]  # face -> own rolls


class AchievementState(_Model):
    id: StrictStr
    category: StrictStr
    name: StrictStr
    description: StrictStr
    target: Positive
    progress: Count
    unlocked_at: StrictFloat | None  # epoch seconds; null while locked


class LeaderboardEntry(_Model):
    game: StrictStr
    mode: StrictStr
    level: StrictStr
    points: Count
    scores: ScorePair  # yours, theirs
    seconds: StrictFloat
    ended: StrictFloat


class LeaderboardLine(_Model):
    points: Count
    mode: StrictStr
    place: Positive | None  # null: not in the mode's top 10
    all_place: Positive | None
    sentence: StrictStr


class Stats(_Model):
    type: Literal["stats"]
    overview: StatsOverview
    details: StatsDetails
    achievements: list[AchievementState]
    leaderboards: dict[StrictStr, list[LeaderboardEntry]]  # "all", then modes
    reply_to: ReplyTo | Absent = None


class Result(_Model):
    type: Literal["result"]
    game: StrictStr
    leaderboard: LeaderboardLine | None  # null unless the game was a win against the AI
    achievements: list[AchievementState]  # unlocked by the game, in order
    reply_to: ReplyTo | Absent = None


class ReviewBoard(_Model):
    """The board after a turn."""

    edges: list[DrawnEdge]
    squares: list[HeldSquare]
    scores: ScorePair


class TurnFigures(_Model):
    """One turn of a review, for its player: expected final margins before (with the best turn)
    and after the turn played, in dice games over the dice to come (boxedin.ai.review)."""

    turn: Count
    player: PlayerNo
    roll: Positive | None  # null without dice
    played: list[EdgeRef]
    best: list[EdgeRef]
    before: StrictFloat | StrictInt
    after: StrictFloat | StrictInt
    loss: StrictFloat | StrictInt
    exact: StrictBool  # from the solver; false: estimated by Expert's search
    board: ReviewBoard
    seconds: StrictFloat | StrictInt  # how long the turn took to analyse


class Review(_Model):
    """A finished game's review as it stands: the turns analysed so far (null where not yet),
    and the game as a transcript (the replay format)."""

    type: Literal["review"]
    game: StrictStr
    total: Count
    done: Count
    turns: list[TurnFigures | None]
    # Players 1 and 2: the turns of each one's biggest mistakes, biggest first (at most three).
    mistakes: tuple[list[Count], list[Count]]
    transcript: dict[StrictStr, Any]
    reply_to: ReplyTo | Absent = None


class ResetConfirm(_Model):
    type: Literal["reset_confirm"]
    token: StrictStr
    expires_in: StrictFloat  # seconds
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, token: str, expires_in: float, reply_to: str | int | None = None) -> ResetConfirm:
        return cls(type="reset_confirm", token=token, expires_in=expires_in, **_given(reply_to=reply_to))


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
        return cls(type="online_status", game=game, room=room, waiting=waiting, **_given(reply_to=reply_to))


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
        return cls(type="match_waiting", mode=mode, **_given(reply_to=reply_to))


class MatchCancelled(_Model):
    type: Literal["match_cancelled"]
    cancelled: StrictBool
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, cancelled: bool, reply_to: str | int | None = None) -> MatchCancelled:
        return cls(type="match_cancelled", cancelled=cancelled, **_given(reply_to=reply_to))


class RoomFrame(_Model):
    type: Literal["room"]
    code: StrictStr
    mode: StrictStr
    overlap: StrictStr | None
    expires_in: StrictFloat  # seconds
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, room: OpenRoom, reply_to: str | int | None = None) -> RoomFrame:
        return cls(type="room", **room.model_dump(), **_given(reply_to=reply_to))


class RoomClosed(_Model):
    type: Literal["room_closed"]
    code: StrictStr | None
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, code: str | None, reply_to: str | int | None = None) -> RoomClosed:
        return cls(type="room_closed", code=code, **_given(reply_to=reply_to))


class Matched(_Model):
    type: Literal["matched"]
    game: StrictStr
    seat: PlayerNo
    via: Literal["room", "find_match", "rematch"]
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, game: str, seat: int, via: str, reply_to: str | int | None = None) -> Matched:
        return cls.model_validate(
            {"type": "matched", "game": game, "seat": seat, "via": via, **_given(reply_to=reply_to)}
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
        return cls(type="running_online", game=None, seat=None, state=None, **_given(reply_to=reply_to))

    @staticmethod
    def spliced(game: str, seat: int, state_json: str, reply_to: str | int | None = None) -> str:
        """The frame with the engine's state JSON as it is (never parsed here), as the feed
        passes on a state."""
        head = {"type": "running_online", "game": game, "seat": seat, **_given(reply_to=reply_to)}
        return json.dumps(head, separators=(",", ":"))[:-1] + f',"state":{state_json}}}'


# --- watching an online game (docs/protocol.md, Watching) -----------------------------------------


class WatchLink(_Model):
    """A player's link for others to watch the game: the same for both players."""

    type: Literal["watch_link"]
    game: StrictStr
    watch: StrictStr  # the watch id
    url: StrictStr  # the path to open in the web client: /watch/<watch id>
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, game: str, watch: str, reply_to: str | int | None = None) -> WatchLink:
        return cls(type="watch_link", game=game, watch=watch, url=f"/watch/{watch}", **_given(reply_to=reply_to))


class Watched(_Model):
    """The connection watches this game from now on: its state follows, then its updates."""

    type: Literal["watched"]
    game: StrictStr
    watch: StrictStr
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, game: str, watch: str, reply_to: str | int | None = None) -> Watched:
        return cls(type="watched", game=game, watch=watch, **_given(reply_to=reply_to))


class Watching(_Model):
    """How many are watching an online game, over every gateway: to its players and watchers,
    when they start to follow it and whenever it changes."""

    type: Literal["watching"]
    game: StrictStr
    count: Count

    @classmethod
    def build(cls, game: str, count: int) -> Watching:
        return cls(type="watching", game=game, count=count)


# --- Same Wi-Fi (docs/protocol.md, Same Wi-Fi): a boxedin lan process to its own browser ---------


class LanHosting(_Model):
    mode: StrictStr
    overlap: StrictStr | None
    address: StrictStr  # host:port, for a joiner whose network blocks multicast


class LanGame(_Model):
    """A game some host on the network advertises."""

    id: StrictStr
    name: StrictStr  # the host's player name
    mode: StrictStr
    overlap: StrictStr | None
    address: StrictStr


class LanLink(_Model):
    """The link to the other player's process."""

    role: Literal["host", "join"]
    state: Literal["connecting", "code", "playing"]
    code: StrictStr | None  # the six digits both screens show, once the handshake is done
    name: StrictStr | None  # the other player's name, once known


class LanStatus(_Model):
    type: Literal["lan_status"]
    hosting: LanHosting | None
    link: LanLink | None
    games: list[LanGame]
    reply_to: ReplyTo | Absent = None


class LanClosed(_Model):
    type: Literal["lan_closed"]
    reason: Literal["cancelled", "host_left", "unreachable", "refused", "broken"]
    message: StrictStr  # a sentence to show


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
