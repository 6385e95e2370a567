"""A task a service runs beside its calls (a loop of figures, deadlines, reports), from
``start()`` until ``stop()`` cancels it."""

from __future__ import annotations

import asyncio
import contextlib

from .cancelling import cancel_and_wait


class Background:
    _task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait([self._task])
            with contextlib.suppress(asyncio.CancelledError):
                await self._task  # ended: raises what the loop raised, if not cancelled
            self._task = None
