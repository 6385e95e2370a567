"""Watching an online game (docs/protocol.md, Watching)."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    StrictStr,
)

from .base import (
    Absent,
    Count,
    ReplyTo,
    _Model,
    given,
)

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
        return cls(type="watch_link", game=game, watch=watch, url=f"/watch/{watch}", **given(reply_to=reply_to))


class Watched(_Model):
    """The connection watches this game from now on: its state follows, then its updates."""

    type: Literal["watched"]
    game: StrictStr
    watch: StrictStr
    reply_to: ReplyTo | Absent = None

    @classmethod
    def build(cls, game: str, watch: str, reply_to: str | int | None = None) -> Watched:
        return cls(type="watched", game=game, watch=watch, **given(reply_to=reply_to))


class Watching(_Model):
    """How many are watching an online game, over every gateway: to its players and watchers,
    when they start to follow it and whenever it changes."""

    type: Literal["watching"]
    game: StrictStr
    count: Count

    @classmethod
    def build(cls, game: str, count: int) -> Watching:
        return cls(type="watching", game=game, count=count)


