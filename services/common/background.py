"""A task a service runs beside its calls (a loop of figures, deadlines, reports), from
``start()`` until ``stop()`` cancels it."""

from __future__ import annotations

import asyncio

from .cancelling import stop_task


class Background:
    _task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            await stop_task(self._task)
            self._task = None
