"""The Same Wi-Fi frames a browser sends its own ``boxedin lan`` process on ``/lan``
(docs/protocol.md, "Same Wi-Fi"), validated as strictly as the gateway's: unknown fields and
wrong kinds are refused with a reason. The game itself goes over ``/ws`` with the gateway's own
frames (boxedin.gateway.frames)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from boxedin.common.reasons import Refusal
from boxedin.gateway.frames import MAX_FRAME_BYTES, RequestId

Name = Annotated[str, StringConstraints(max_length=64)]


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: RequestId | None = None


class LanOpen(_Frame):
    """The Same Wi-Fi tab came on screen: answered with lan_status, pushed again on every change."""

    type: Literal["lan_open"]


class LanHost(_Frame):
    type: Literal["lan_host"]
    mode: Annotated[str, StringConstraints(max_length=32)]
    overlap: Annotated[str, StringConstraints(max_length=32)] | None = None
    name: Name


class LanStop(_Frame):
    """Stops hosting (a running game is over for both), or leaves the host one joined."""

    type: Literal["lan_stop"]


class LanJoin(_Frame):
    """Joins a game of the list (``game``) or a host at a typed address (``address``)."""

    type: Literal["lan_join"]
    game: Annotated[str, StringConstraints(max_length=64)] | None = None
    address: Annotated[str, StringConstraints(max_length=300)] | None = None
    name: Name


class LanLetIn(_Frame):
    type: Literal["lan_let_in"]


class LanCancel(_Frame):
    type: Literal["lan_cancel"]


LanFrame = Annotated[LanOpen | LanHost | LanStop | LanJoin | LanLetIn | LanCancel, Field(discriminator="type")]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(LanFrame)
FRAME_TYPES = ("lan_open", "lan_host", "lan_stop", "lan_join", "lan_let_in", "lan_cancel")


def parse_lan_frame(text: str) -> Any:
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
        raise Refusal("too_large", f"a frame is at most {MAX_FRAME_BYTES} bytes")
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        raise Refusal("bad_message", "the frame is not valid JSON") from None
    if not isinstance(raw, dict) or raw.get("type") not in FRAME_TYPES:
        kind = raw.get("type") if isinstance(raw, dict) else None
        raise Refusal("bad_message", f"unknown frame type {kind!r}; the types are {', '.join(FRAME_TYPES)}")
    try:
        return _ADAPTER.validate_python(raw)
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'][1:]) or 'frame'}: {err['msg']}" for err in exc.errors()[:3]
        )
        raise Refusal("bad_message", f"{raw['type']} frame refused: {problems}") from None
