"""Structured logs: one JSON object a line on standard error, with the service's name; and a rate
limit for lines a client can cause at will."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HELD_BACK = "log lines held back"
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "service": self.service,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD:
                # A field passed in extra never hides the entry's own (time, level, message...).
                entry[f"{key}_" if key in entry else key] = value
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def setup_logging(service: str, level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(service))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


class RateLimitedLog:
    """Writes at most ``per_window`` lines of each key (a reason code, say) in every window of
    ``window`` seconds, so that a client repeating one bad frame cannot flood the log. The lines
    held back are counted, and once their window has passed one line ("log lines held back", with
    the key and ``held_back``, their number) says how many there were: at the next line of that
    key, at ``flush()``, or, when an asyncio loop runs, by a timer set at the first line held back.
    Each key's window starts at its first line; the keys should be few (reason codes, not ids)."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        per_window: int = 10,
        window: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        key_field: str = "key",
    ) -> None:
        if per_window < 1 or window <= 0:
            raise ValueError("a rate limit lets at least one line through in a window of some length")
        self.logger = logger
        self.per_window = per_window
        self.window = window
        self.clock = clock
        self.key_field = key_field  # the field that names the key in the line of lines held back
        self._windows: dict[str, _Window] = {}

    def log(
        self, key: str, message: str, /, *, level: int = logging.INFO, exc_info: bool = False, **fields: Any
    ) -> bool:
        """Writes the line unless ``key`` has had its lines in this window; True when written."""
        now = self.clock()
        current = self._windows.get(key)
        if current is None or now >= current.start + self.window:
            if current is not None:
                self._report(key, current)
            current = self._windows[key] = _Window(now, level)
        if current.written < self.per_window:
            current.written += 1
            self.logger.log(level, message, exc_info=exc_info, extra=fields)
            return True
        current.held_back += 1
        if current.held_back == 1:
            self._flush_later(current.start + self.window - now)
        return False

    def flush(self) -> None:
        """Reports the lines held back in every window that has passed, and forgets those windows."""
        now = self.clock()
        for key, passed in [(k, w) for k, w in self._windows.items() if now >= w.start + self.window]:
            del self._windows[key]
            self._report(key, passed)

    def _report(self, key: str, passed: _Window) -> None:
        if passed.held_back:
            self.logger.log(
                passed.level,
                HELD_BACK,
                extra={self.key_field: key, "held_back": passed.held_back, "window_seconds": self.window},
            )
            passed.held_back = 0

    def _flush_later(self, delay: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: reported at the key's next line or at flush()
        # A little after the window's end, so that the clock has passed it when flush() reads it.
        loop.call_later(max(0.0, delay) + 0.01, self.flush)


@dataclass
class _Window:
    start: float
    level: int
    written: int = 0
    held_back: int = 0


# Lines a library writes when a client sends what it cannot read: the client's doing, not the
# server's, so they are written at info and without a traceback (which would only show the
# library's own frames).
CLIENT_CAUSED = frozenset({"Invalid UTF-8 sequence received from client.", "Invalid HTTP request received."})


class ThrottleLines(logging.Filter):
    """A filter for a library's logger (uvicorn's) whose warnings and errors a client can cause at
    will: at most ``per_window`` lines of each message a window, the rest counted in a "log lines
    held back" line (RateLimitedLog). Lines below warning pass as they are."""

    def __init__(self, *, per_window: int = 2, window: float = 1.0) -> None:
        super().__init__()
        self.limit: RateLimitedLog | None = None
        self.per_window = per_window
        self.window = window

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or getattr(record, "throttled", False) or record.msg == HELD_BACK:
            return True
        if self.limit is None:
            self.limit = RateLimitedLog(
                logging.getLogger(record.name), per_window=self.per_window, window=self.window, key_field="line"
            )
        key = str(record.msg)
        client_caused = key in CLIENT_CAUSED
        self.limit.log(
            key,
            record.getMessage(),
            level=logging.INFO if client_caused else record.levelno,
            # Written from inside the library's handler: the exception is still being handled.
            exc_info=bool(record.exc_info) and not client_caused,
            throttled=True,
        )
        return False
