"""New websockets let in a few at a time (issue 31): each costs the gateway about 0.35 ms of CPU
to accept and set up, and a thousand arriving together (one abusive household's idle tabs, from
ten addresses, each inside its budgets) held the event loop for 0.3-0.4 s, every player's
frames waiting behind them. Let in ``PER_TICK`` every ``TICK_SECONDS``, the setting up is spread
over loop turns between which the games already in play go on: 4,000 a second, more than a
gateway ever sees from people, and a flood waits its turn instead of everybody's."""

from __future__ import annotations

import asyncio
from collections import deque

PER_TICK = 8
TICK_SECONDS = 0.002


class Admission:
    def __init__(self, per_tick: int = PER_TICK, tick_seconds: float = TICK_SECONDS) -> None:
        self.per_tick = per_tick
        self.tick_seconds = tick_seconds
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._let_in = 0  # in this tick
        self._timer: asyncio.TimerHandle | None = None

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    async def enter(self) -> None:
        """Returns when the socket may be set up: at once while this tick has room."""
        if not self._waiting and self._let_in < self.per_tick:
            self._let_in += 1
            self._arm()
            return
        entry = asyncio.get_running_loop().create_future()
        self._waiting.append(entry)
        self._arm()
        try:
            await entry
        except asyncio.CancelledError:
            # Gone while waiting (the client hung up): its place goes to the next.
            if entry in self._waiting:
                self._waiting.remove(entry)
            raise

    def _arm(self) -> None:
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.tick_seconds, self._tick)

    def _tick(self) -> None:
        self._timer = None
        self._let_in = 0
        while self._waiting and self._let_in < self.per_tick:
            entry = self._waiting.popleft()
            if not entry.done():
                entry.set_result(None)
                self._let_in += 1
        if self._waiting or self._let_in:
            self._arm()
