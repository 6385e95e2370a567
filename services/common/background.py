"""A task a service runs beside its calls (a loop of figures, deadlines, reports), from
``start()`` until ``stop()`` cancels it."""

from __future__ import annotations

import asyncio

from .cancelling import stop_task
from .progress import WATCH, Loop


class Background:
    _task: asyncio.Task[None] | None = None
    _progress: Loop | None = None

    async def round(self, name: str, interval: float) -> None:
        """Reports a round of the loop ``name`` to the process's health (boxedin.common.progress),
        whose rounds come every ``interval`` seconds; blocks while a test freezes it."""
        if self._progress is None:
            self._progress = WATCH.loop(name, interval)
        await self._progress.round()

    async def _run(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            await stop_task(self._task)
            self._task = None
        if self._progress is not None:
            WATCH.forget(self._progress.name)
            self._progress = None
