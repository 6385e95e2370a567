"""Watching an online game by its link (docs/protocol.md, Watching): the link's id, random and
unguessable, neither a device token nor the game id. The store keeps which game it leads to."""

from __future__ import annotations

import re
import secrets

from boxedin.common.reasons import Refusal

# 18 random bytes as URL-safe base64: 24 characters, 144 bits nobody guesses.
WATCH_ID = re.compile(r"[A-Za-z0-9_-]{24}")


def new_watch_id() -> str:
    return secrets.token_urlsafe(18)


def check_watch_id(watch_id: str) -> None:
    if not WATCH_ID.fullmatch(watch_id):
        raise Refusal("no_watch", "a watch link ends in 24 letters, digits, - or _")
