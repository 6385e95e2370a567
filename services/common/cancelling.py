"""Cancelling tasks and waiting for their end, where a cancellation can be lost.

redis-py 8 makes every command under a socket timeout (5 s unless set), through
``asyncio.wait_for``. On Python before 3.12, ``wait_for`` drops the cancellation of the task
awaiting it when the call it waits on completes in the same moment (CPython gh-86296): the
command returns normally, and a loop goes round again in the cancelling state, never to end.
The engine's deadline loop met this on about one SIGTERM in five, and the service hung in its
stop. So a stop cancels again until the task has ended: each cancellation lands at the task's
next await, and a second coincidence is as unlikely as the first."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

# How long a cancelled task has to end before it is cancelled again: a task that keeps its
# cancellation ends at its next await, well within this.
RECANCEL_SECONDS = 0.05


async def cancel_and_wait(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """Cancels the tasks until every one has ended. Their results and errors are left to the
    caller, read from the ended tasks."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=RECANCEL_SECONDS)


async def stop_task(task: asyncio.Future[Any]) -> None:
    """Cancels ``task`` until it has ended; raises what it raised, unless it ended cancelled."""
    await cancel_and_wait([task])
    with contextlib.suppress(asyncio.CancelledError):
        await task
