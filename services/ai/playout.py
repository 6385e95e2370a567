"""The AI's playout policies on the engine's ``Position``, whichever core it comes from: the
estimates the players call many times a turn (``margin``, ``new_shorts``, ``new_twos``,
``reply_total``) and the seeded playout policy behind Expert's evaluation (``policy_playout``).

They live in ``_playout`` (Cython pure-Python mode, like the engine core). Compiled, it works on
a compiled ``Position``'s C layout (``engine/_core.pxd``) and hands a position of the plain-Python
core (``BOXEDIN_ENGINE=python``, or a ``Game`` built with ``backend="python"``) to its
plain-Python build, the same source run as plain Python: a position always gets the policies of
its own core's kind. Not built, ``_playout`` is that source, for plain-Python positions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, cast

from boxedin.engine.backend import Backend, load_build

from ._playout import margin, new_shorts, new_twos, policy_playout, reply_total
from .context import Position

__all__ = ["Policies", "load", "margin", "new_shorts", "new_twos", "policy_playout", "reply_total"]

_SOURCE = Path(__file__).with_name("_playout.py")


class Policies(Protocol):
    """What either build of ``_playout`` offers (see there)."""

    def margin(self, pos: Position, player: int, /) -> int: ...

    def new_shorts(self, pos: Position, edge: int, /) -> int: ...

    def new_twos(self, pos: Position, edge: int, /) -> int: ...

    def reply_total(self, pos: Position, player: int, /) -> int: ...

    def policy_playout(self, pos: Position, seed: int, max_turns: int = -1, /) -> None: ...


def load(kind: Backend) -> Policies:
    """One build of ``_playout``, as ``engine.backend.load`` gives one build of the core (the
    tests compare the two): the compiled one (BackendUnavailable when it is not built), or the
    plain-Python one (its source imported as ``boxedin.ai._playout_python``)."""
    return cast(Policies, load_build("boxedin.ai._playout", _SOURCE, kind))
