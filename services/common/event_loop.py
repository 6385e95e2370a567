"""The event loop of the engine and of `boxedin load`'s players: uvloop (libuv, in C) where it
is installed, as the gateway's uvicorn already does, else asyncio's own.

An action's round trip is mostly waiting on sockets (the gRPC call, the commit to Redis), and
asyncio's selector loop spends Python time on each wake-up; uvloop cut the engine's CPU an
action by about a tenth in `boxedin bench actions` (issue 14). grpc.aio runs on any asyncio
loop. The load's players share the machine's cores with the stack they measure: the less CPU
they take, the less they disturb it. The other services stay on asyncio's: their calls are
few. (The AI service once hung on uvloop when it could not listen: its loops were left to the
end of the run; ``grpc_server.serve`` now stops them on that path too.)"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

_T = TypeVar("_T")


def run(main: Coroutine[Any, Any, _T]) -> _T:
    """Runs ``main`` to its end on a new loop, as ``asyncio.run`` does."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)
