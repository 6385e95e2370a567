"""The Same Wi-Fi frames a browser sends its own ``boxedin lan`` process on ``/lan``
(docs/protocol.md, "Same Wi-Fi"), validated as strictly as the gateway's: unknown fields and
wrong kinds are refused with a reason. The game itself goes over ``/ws`` with the gateway's own
frames (boxedin.gateway.client_frames)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

from boxedin.gateway.client_frames import RequestId, parse_typed

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
    return parse_typed(text, FRAME_TYPES, _ADAPTER)
