"""The gateway's log lines about refused frames, rate-limited (docs/protocol.md, Frames): one line
per refusal, but at most ``REFUSALS_PER_SECOND`` lines a second for each reason code in this
process, and at most ``FAILURES_PER_SECOND`` tracebacks a second for each kind of unexpected
failure; a line after each busy second says how many were held back. A client can send bad frames
as fast as it likes; the log grows by a bounded number of lines a second whatever it sends."""

from __future__ import annotations

import logging
import sys
from typing import Any

from boxedin.common.logs import RateLimitedLog

REFUSALS_PER_SECOND = 20
FAILURES_PER_SECOND = 2

_log = logging.getLogger("boxedin.gateway.session")
REFUSALS = RateLimitedLog(_log, per_window=REFUSALS_PER_SECOND, window=1.0, key_field="reason")
FAILURES = RateLimitedLog(_log, per_window=FAILURES_PER_SECOND, window=1.0, key_field="failure")


def refused(reason: str, **fields: Any) -> bool:
    """Logs that a frame was refused with ``reason`` (at info), unless this reason had its lines
    this second; True when the line was written."""
    return REFUSALS.log(reason, "refused", reason=reason, **fields)


def failed(**fields: Any) -> bool:
    """Logs the exception being handled (with its traceback, at error) as a frame that failed in a
    way nobody foresaw, unless this kind of exception had its lines this second."""
    kind = type(sys.exc_info()[1]).__name__
    return FAILURES.log(kind, "a frame failed", level=logging.ERROR, exc_info=True, failure=kind, **fields)
