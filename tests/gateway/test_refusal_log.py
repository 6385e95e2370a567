"""One log line per refusal, rate-limited (docs/protocol.md, Refusals in the log): at most so many
lines a second for each reason, and a line saying how many were held back once the second has
passed."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from boxedin.common.logs import JsonFormatter, RateLimitedLog
from boxedin.gateway import refusal_log


class Lines(logging.Handler):
    """Keeps the lines written, as the services write them (JSON)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict[str, Any]] = []
        self.formatter_ = JsonFormatter("gateway")
        self.written = asyncio.Event() if _loop_running() else None

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.formatter_.format(record)))
        if self.written is not None:
            self.written.set()

    def messages(self) -> list[tuple[str, Any, Any]]:
        return [(line["message"], line.get("reason"), line.get("held_back")) for line in self.lines]


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def logger() -> Iterator[tuple[logging.Logger, Lines]]:
    log = logging.getLogger("test.refusal_log")
    lines = Lines()
    log.addHandler(lines)
    log.setLevel(logging.INFO)
    log.propagate = False
    yield log, lines
    log.removeHandler(lines)


def test_each_key_gets_its_lines_a_window_and_the_rest_are_counted(logger: tuple[logging.Logger, Lines]) -> None:
    log, lines = logger
    clock = Clock()
    limited = RateLimitedLog(log, per_window=3, window=1.0, clock=clock, key_field="reason")
    written = [limited.log("bad_message", "refused", reason="bad_message", game=None) for _ in range(10)]
    assert written == [True] * 3 + [False] * 7
    assert [limited.log("stale", "refused", reason="stale") for _ in range(4)] == [True, True, True, False]
    assert lines.messages() == [("refused", "bad_message", None)] * 3 + [("refused", "stale", None)] * 3
    clock.now += 0.99  # the same window
    assert not limited.log("bad_message", "refused", reason="bad_message")
    clock.now += 0.01  # the next: first the count of the lines held back, then the line
    assert limited.log("bad_message", "refused", reason="bad_message")
    assert lines.messages()[6:] == [("log lines held back", "bad_message", 8), ("refused", "bad_message", None)]
    assert lines.lines[6]["window_seconds"] == 1.0 and lines.lines[6]["level"] == "info"


def test_flush_reports_the_windows_that_passed_and_forgets_them(logger: tuple[logging.Logger, Lines]) -> None:
    log, lines = logger
    clock = Clock()
    limited = RateLimitedLog(log, per_window=1, window=2.0, clock=clock)
    for key in ("a", "a", "a", "b", "c", "c"):
        limited.log(key, "refused", reason=key)
    limited.flush()  # nothing has passed yet
    assert len(lines.lines) == 3
    clock.now += 2.0
    limited.flush()
    assert [(line["key"], line["held_back"]) for line in lines.lines[3:]] == [("a", 2), ("c", 1)]
    limited.flush()
    clock.now += 10
    limited.flush()
    assert len(lines.lines) == 5  # each count once; b held nothing back
    assert limited.log("a", "refused")  # a new window


def test_a_line_at_error_with_its_traceback(logger: tuple[logging.Logger, Lines]) -> None:
    log, lines = logger
    limited = RateLimitedLog(log, per_window=1, clock=Clock())
    try:
        raise ValueError("Value out of range: 4294967296")
    except ValueError:
        limited.log("ValueError", "a frame failed", level=logging.ERROR, exc_info=True, game="g_1")
        limited.log("ValueError", "a frame failed", level=logging.ERROR, exc_info=True, game="g_1")
    assert len(lines.lines) == 1
    assert lines.lines[0]["level"] == "error" and lines.lines[0]["game"] == "g_1"
    assert "ValueError: Value out of range" in lines.lines[0]["error"]


def test_a_limit_lets_a_line_through() -> None:
    with pytest.raises(ValueError):
        RateLimitedLog(logging.getLogger("x"), per_window=0)
    with pytest.raises(ValueError):
        RateLimitedLog(logging.getLogger("x"), window=0)


def test_under_a_running_loop_the_count_comes_when_the_window_passes(logger: tuple[logging.Logger, Lines]) -> None:
    log, _ = logger

    async def hold_back() -> list[tuple[str, Any, Any]]:
        lines = Lines()  # with an event: made under the loop
        log.addHandler(lines)
        try:
            limited = RateLimitedLog(log, per_window=2, window=0.05, key_field="reason")
            for _ in range(5):
                limited.log("too_large", "refused", reason="too_large")
            assert lines.written is not None
            async with asyncio.timeout(5):
                while len(lines.lines) < 3:
                    lines.written.clear()
                    await lines.written.wait()
            return lines.messages()
        finally:
            log.removeHandler(lines)

    assert asyncio.run(hold_back()) == [("refused", "too_large", None)] * 2 + [("log lines held back", "too_large", 3)]


def test_the_gateway_logs_refusals_and_failures_rate_limited(
    logger: tuple[logging.Logger, Lines], monkeypatch: pytest.MonkeyPatch
) -> None:
    log, lines = logger
    clock = Clock()
    refusals = RateLimitedLog(log, per_window=refusal_log.REFUSALS_PER_SECOND, clock=clock, key_field="reason")
    failures = RateLimitedLog(log, per_window=refusal_log.FAILURES_PER_SECOND, clock=clock, key_field="failure")
    monkeypatch.setattr(refusal_log, "REFUSALS", refusals)
    monkeypatch.setattr(refusal_log, "FAILURES", failures)
    for _ in range(1000):
        refusal_log.refused("bad_message", game=None, seq=-1)
        try:
            raise KeyError("missing")
        except KeyError:
            refusal_log.failed(game="g_1")
    assert len(lines.lines) == refusal_log.REFUSALS_PER_SECOND + refusal_log.FAILURES_PER_SECOND
    refused = lines.lines[0]
    assert (refused["message"], refused["reason"], refused["seq"], refused["level"]) == (
        "refused",
        "bad_message",
        -1,
        "info",
    )
    failed = lines.lines[1]
    assert (failed["message"], failed["failure"], failed["level"]) == ("a frame failed", "KeyError", "error")
    assert "KeyError: 'missing'" in failed["error"]
    clock.now += 1
    refusals.flush()
    failures.flush()
    assert [(line.get("reason") or line.get("failure"), line["held_back"]) for line in lines.lines[-2:]] == [
        ("bad_message", 1000 - refusal_log.REFUSALS_PER_SECOND),
        ("KeyError", 1000 - refusal_log.FAILURES_PER_SECOND),
    ]
