"""An action sent again is answered, not applied again (docs/protocol.md, Actions sent again).
A client that got no answer to an action (its connection died on the way) sends it again with
the same `id` once it is connected again, perhaps through another gateway replica.

An action with an `id` goes to the engine with a repeat key: a digest of who sent it (the
device's hash), the game, the seq it was sent at, the action and its id. The engine is the one
that knows whether an action was applied: the commit that applies it keeps the seq it made
under that key for a minute, and the same action again comes back as a repeat of it (the
gateway answers `ack` with that seq). A refusal is the gateway's to keep: it is kept a minute
here, and when the same action comes again and is refused as stale (the game moved on since),
the first refusal is the answer. So an action costs no call to Redis here unless it is refused."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import cast

import redis.asyncio as redis

from boxedin.common.devices import device_hash
from boxedin.common.keys import Keys
from boxedin.common.reasons import Refusal

from . import client_frames

# How long a refusal is kept (the engine keeps an applied action's seq as long).
KEPT_SECONDS = 60
# Refusals that decide nothing: the same action may be tried again, so none is kept.
_UNDECIDED = ("unavailable", "busy", "internal")


@dataclass(frozen=True, slots=True)
class Refused:
    """The first sending was refused."""

    reason: str
    message: str


class ActionAnswers:
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self.redis = client
        self.keys = keys

    @staticmethod
    def repeat_key(device: str, frame: client_frames.Play | client_frames.Draw) -> str:
        """The action's identity: the same for the same action sent again, by the same device."""
        sent = [device_hash(device), frame.game, frame.seq, frame.type, getattr(frame, "edge", None), frame.id]
        return hashlib.sha256(json.dumps(sent, separators=(",", ":")).encode()).hexdigest()[:32]

    async def first_refusal(self, game_id: str, repeat_key: str) -> Refused | None:
        """The refusal the first sending of this action met, if it was refused within a minute."""
        raw = cast("bytes | None", await self.redis.get(self.keys.action_refused(game_id, repeat_key)))
        if raw is None:
            return None
        kept = json.loads(raw)
        return Refused(kept["reason"], kept["message"])

    async def refused(self, game_id: str, repeat_key: str, refusal: Refusal) -> None:
        if refusal.reason in _UNDECIDED:
            return
        kept = json.dumps({"reason": refusal.reason, "message": refusal.message})
        await self.redis.set(self.keys.action_refused(game_id, repeat_key), kept, ex=KEPT_SECONDS)
