"""Client frames of the websocket protocol (docs/protocol.md), validated strictly: unknown
fields, wrong kinds and oversize frames are refused with a reason, never guessed at."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StringConstraints, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from boxedin.common.reasons import Refusal

# Sizes of a client message (docs/protocol.md, Sizes), in bytes (UTF-8 for text): up to
# MAX_FRAME_BYTES it is parsed; above, up to MAX_READ_BYTES, it is read and answered `too_large`;
# above MAX_READ_BYTES the websocket layer (uvicorn's ws_max_size, set from it in __main__.py)
# stops reading and closes the connection with 1009. MAX_READ_BYTES is what a gateway may buffer of
# one connection's message: a thousand connections trickling their largest cost 64 MiB.
MAX_FRAME_BYTES = 8 * 1024
MAX_READ_BYTES = 64 * 1024

RequestId = Annotated[str, StringConstraints(max_length=64)] | StrictInt
GameId = Annotated[str, StringConstraints(min_length=1, max_length=64)]
# Every number is bounded here, so none can overflow the gRPC request it goes into (an int64 seq,
# int32 coordinates and settings): the engine then says what is wrong with one in range.
Seq = Annotated[StrictInt, Field(ge=0, lt=2**63)]
Coordinate = Annotated[StrictInt, Field(ge=-1024, le=1024)]
SmallSetting = Annotated[StrictInt, Field(ge=0, le=3600)]


class Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: RequestId | None = None


class Hello(Frame):
    type: Literal["hello"]
    # The token the server issued this device before; none on a device's first hello.
    device: Annotated[str, StringConstraints(max_length=128)] | None = None
    game: GameId | None = None
    seq: Seq | None = None


class NewGame(Frame):
    type: Literal["new_game"]
    mode: Annotated[str, StringConstraints(max_length=32)]
    overlap: Annotated[str, StringConstraints(max_length=32)] | None = None
    opponent: Annotated[str, StringConstraints(max_length=16)] = "ai"
    level: Annotated[str, StringConstraints(max_length=16)] | None = None
    first: SmallSetting | Annotated[str, StringConstraints(max_length=16)] = 1
    clock: SmallSetting = 0
    ai_speed: Annotated[str, StringConstraints(max_length=16)] | None = None
    seed: Annotated[str, StringConstraints(max_length=512)] | None = None


class Resume(Frame):
    type: Literal["resume"]
    ai_speed: Literal["normal", "fast"] | None = None


class Discard(Frame):
    type: Literal["discard"]


class Play(Frame):
    """roll, end_turn, undo, timeout and resign: an action with nothing but the game."""

    type: Literal["roll", "end_turn", "undo", "timeout", "resign"]
    game: GameId
    seq: Seq | None = None


class Draw(Frame):
    type: Literal["draw"]
    game: GameId
    edge: tuple[Literal["h", "v"], Coordinate, Coordinate]
    seq: Seq | None = None


class Visibility(Frame):
    type: Literal["visibility"]
    game: GameId
    visible: StrictBool


class Ping(Frame):
    type: Literal["ping"]


class Stats(Frame):
    type: Literal["stats"]


class GameResult(Frame):
    type: Literal["game_result"]
    game: GameId


class Review(Frame):
    type: Literal["review"]
    game: GameId


class ResetStats(Frame):
    """Without a token: ask to reset (answered with one); with it: reset."""

    type: Literal["reset_stats"]
    token: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None


# --- online play (docs/protocol.md, Online play) --------------------------------------------------
# Names and codes are checked by the matchmaker, which says what is wrong with them; here they are
# only bounded.
Name = Annotated[str, StringConstraints(max_length=64)]
ModeId = Annotated[str, StringConstraints(max_length=32)]


class OnlineMenu(Frame):
    type: Literal["online_menu"]
    open: StrictBool


class RunningOnline(Frame):
    """The menu asks whether the device has an online game running, to offer it back."""

    type: Literal["running_online"]


class FindMatch(Frame):
    type: Literal["find_match"]
    mode: ModeId
    name: Name


class CancelMatch(Frame):
    type: Literal["cancel_match"]


class CreateRoom(Frame):
    type: Literal["create_room"]
    mode: ModeId
    overlap: Annotated[str, StringConstraints(max_length=32)] | None = None
    name: Name


class CloseRoom(Frame):
    type: Literal["close_room"]


class JoinRoom(Frame):
    type: Literal["join_room"]
    code: Annotated[str, StringConstraints(max_length=32)]
    name: Name


class Leave(Frame):
    type: Literal["leave"]
    game: GameId


class Rematch(Frame):
    type: Literal["rematch"]
    game: GameId
    want: StrictBool


# --- watching an online game (docs/protocol.md, Watching) -----------------------------------------


class WatchLinkAsk(Frame):
    """A player asks for the game's watch link."""

    type: Literal["watch_link"]
    game: GameId


class Watch(Frame):
    """Opens a watch link: the connection watches the game, and acts in none, until unwatch."""

    type: Literal["watch"]
    # Checked by the engine, which says what is wrong with one; here it is only bounded.
    watch: Annotated[str, StringConstraints(min_length=1, max_length=64)]


class Unwatch(Frame):
    type: Literal["unwatch"]


# The frames a watching connection may send: every other one is refused (``watcher``). Its
# ``review`` is of the watched game, asked by the watch id (read-only, as the players' is).
WATCHER_FRAMES = frozenset({"hello", "ping", "watch", "unwatch", "review"})


ClientFrame = Annotated[
    Hello
    | NewGame
    | Resume
    | Discard
    | Play
    | Draw
    | Visibility
    | Ping
    | Stats
    | GameResult
    | Review
    | ResetStats
    | OnlineMenu
    | RunningOnline
    | FindMatch
    | CancelMatch
    | CreateRoom
    | CloseRoom
    | JoinRoom
    | Leave
    | Rematch
    | WatchLinkAsk
    | Watch
    | Unwatch,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientFrame)
FRAME_TYPES = ("hello", "new_game", "resume", "discard", "roll", "draw", "end_turn", "undo", "timeout",
               "resign", "visibility", "ping", "stats", "game_result", "review", "reset_stats", "online_menu",
               "running_online", "find_match", "cancel_match", "create_room", "close_room", "join_room", "leave",
               "rematch", "watch_link", "watch", "unwatch")  # fmt: skip


def client_frame_schema() -> dict[str, Any]:
    """The JSON schema of every client frame (what web/src/generated/client_frames.ts is
    generated from)."""
    return _ADAPTER.json_schema()


def request_id(raw: Any) -> str | int | None:
    """The frame's id, if it is a usable one, so that even a refused frame gets its reply_to (an
    id with half a surrogate pair is not: no answer could carry it)."""
    if isinstance(raw, dict):
        value = raw.get("id")
        if isinstance(value, str) and len(value) <= 64 and _unicode(value):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _unicode(text: str) -> bool:
    """Whether the text is Unicode characters only: JSON's \\u escapes can also spell half of a
    UTF-16 surrogate pair, which no UTF-8 text (a websocket's, Redis's, gRPC's) can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_frame(text: str) -> Any:
    """The frame as a model, or a ``Refusal`` (too_large, bad_message) saying what is wrong."""
    return parse_typed(text, FRAME_TYPES, _ADAPTER)


def parse_typed(text: str, types: tuple[str, ...], adapter: TypeAdapter[Any]) -> Any:
    """A frame of one of ``types``, as ``adapter``'s model; or a ``Refusal`` (too_large,
    bad_message) saying what is wrong. Also the Same Wi-Fi app's frames (boxedin.lan.frames)."""
    # A character is 1 to 4 bytes: only a text of 2 to 8 KiB characters needs encoding to measure.
    if len(text) > MAX_FRAME_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
        raise Refusal("too_large", f"a frame is at most {MAX_FRAME_BYTES} bytes")
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        raise Refusal("bad_message", "the frame is not valid JSON") from None
    if not isinstance(raw, dict):
        raise Refusal("bad_message", "a frame is a JSON object with a type")
    # Only a \u escape can bring in a surrogate: a text frame's UTF-8 cannot.
    if "\\u" in text and not _unicode(json.dumps(raw, ensure_ascii=False)):
        raise Refusal(
            "bad_message", "the frame has a \\u escape of half a surrogate pair: text must be Unicode characters"
        )
    if raw.get("type") not in types:
        raise Refusal("bad_message", f"unknown frame type {raw.get('type')!r}; the types are {', '.join(types)}")
    try:
        return adapter.validate_python(raw)
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'][1:]) or 'frame'}: {err['msg']}" for err in exc.errors()[:3]
        )
        raise Refusal("bad_message", f"{raw['type']} frame refused: {problems}") from None
