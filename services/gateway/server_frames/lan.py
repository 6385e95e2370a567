"""Same Wi-Fi frames (docs/protocol.md, Same Wi-Fi): a boxedin lan process to its own browser."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    StrictStr,
)

from .base import (
    Absent,
    ReplyTo,
    _Model,
)

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

