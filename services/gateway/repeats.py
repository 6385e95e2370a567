"""An action sent again is answered, not applied again (docs/protocol.md, Actions sent again).

A client that got no answer to an action (its connection died on the way) sends it again with
the same `id` once it is connected again, perhaps through another gateway replica. The first
time an action is seen, its answer is kept in Redis for a minute under a digest of who sent it
(the device's hash), the game, the seq it was sent at, the action and its id; the same action
again gets that answer: `ack` with the seq it made, or the error it met. An action taken while
its first sending is still on its way waits a moment for that answer, then goes through as a new
one: the seq it names keeps it from being applied twice (it is refused as stale), and a first
sending that never got an answer written (Redis went away meanwhile) holds nobody up for long."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from dataclasses import dataclass
from typing import cast

import redis.asyncio as redis

from boxedin.common.devices import device_hash
from boxedin.common.keys import Keys
from boxedin.common.reasons import Refusal

from . import frames

# How long an answer is kept; how long an action on its way is marked so (the engine call's own
# timeout); and how long a repeat waits for the first sending's answer.
KEPT_SECONDS = 60
PENDING_SECONDS = 10
WAIT_SECONDS = 1.0
_PENDING = b"pending"


@dataclass(frozen=True, slots=True)
class Applied:
    """The first sending was applied, making this seq."""

    seq: int


@dataclass(frozen=True, slots=True)
class Refused:
    """The first sending was refused."""

    reason: str
    message: str


Answer = Applied | Refused


class ActionAnswers:
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self.redis = client
        self.keys = keys

    def key(self, device: str, frame: frames.Play | frames.Draw) -> str:
        sent = [device_hash(device), frame.game, frame.seq, frame.type, getattr(frame, "edge", None), frame.id]
        digest = hashlib.sha256(json.dumps(sent, separators=(",", ":")).encode()).hexdigest()[:32]
        return self.keys.action_answer(frame.game, digest)

    async def first(self, key: str) -> bool:
        """Whether this is the first sending of the action (which is then on its way)."""
        return bool(await self.redis.set(key, _PENDING, nx=True, ex=PENDING_SECONDS))

    async def answer_of(self, key: str) -> Answer | None:
        """The first sending's answer, waiting while it is on its way; None when it has none (it
        failed without one, and so may be tried again)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            raw = cast("bytes | None", await self.redis.get(key))
            if raw != _PENDING or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        if raw is None or raw == _PENDING:
            return None
        kept = json.loads(raw)
        return Applied(kept["seq"]) if "seq" in kept else Refused(kept["reason"], kept["message"])

    async def applied(self, key: str, seq: int) -> None:
        await self.redis.set(key, json.dumps({"seq": seq}), ex=KEPT_SECONDS)

    async def refused(self, key: str, refusal: Refusal) -> None:
        if refusal.reason in ("unavailable", "busy", "internal"):
            # Nothing was decided: the same action may be tried again.
            await self.redis.delete(key)
        else:
            kept = json.dumps({"reason": refusal.reason, "message": refusal.message})
            await self.redis.set(key, kept, ex=KEPT_SECONDS)
