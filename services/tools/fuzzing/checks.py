"""What the protocol allows back (docs/protocol.md): the documented error codes, the closes a
client's messages cause and the gateway's limits' closes; and the tally of what came back."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from boxedin.common.reasons import CLIENT_CODES
from boxedin.gateway.client_frames import MAX_READ_BYTES

# Every error code docs/protocol.md lists (its Errors tables): the catalogue's codes for a client.
DOCUMENTED_ERRORS = CLIENT_CODES
# Codes nothing a client sends may cause.
FAILURE_ERRORS = frozenset({"internal", "unavailable"})
# The closes a client's messages cause (docs/protocol.md, Sizes).
TOO_BIG, NOT_UTF8 = 1009, 1007
# The closes of the gateway's limits on a client (docs/protocol.md, Limits): too many connections
# from one address, no hello in time or no frame for too long, frames sent too fast. Counted, not
# violations: a run paced under the limits (or against a gateway with them raised) sees none.
LIMIT_CLOSES = frozenset({1013, 4408, 4429})
# A connection that never says hello is closed with this once the hello timeout passes: some of
# the fuzzed connections never do.
HELLO_TIMEOUT = 4408


def expected_close(payload: str | bytes, text: bool) -> int | None:
    """The close code the protocol gives this message, or None when it is answered."""
    size = len(payload.encode("utf-8")) if isinstance(payload, str) else len(payload)
    if size > MAX_READ_BYTES:
        return TOO_BIG
    if text and isinstance(payload, bytes):
        try:
            payload.decode("utf-8")
        except UnicodeDecodeError:
            return NOT_UTF8
    return None


# --- what comes back ---------------------------------------------------------------------------


@dataclass
class Summary:
    sent: int = 0
    received: int = 0
    seconds: float = 0.0
    connections: int = 0
    kinds: Counter[str] = field(default_factory=Counter)  # the client frame types sent (not junk)
    replies: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)  # documented closes, by code
    limited: Counter[int] = field(default_factory=Counter)  # connections the gateway's limits closed
    dropped: int = 0  # connections closed for no documented reason
    violations: list[str] = field(default_factory=list)
    held_game: str = ""
    held_seq: tuple[int, int] = (-1, -1)  # before, after
    rss_kib: tuple[int, int] | None = None  # before, after

    def violate(self, what: str) -> None:
        if len(self.violations) < 200:
            self.violations.append(what)

    def lines(self) -> list[str]:
        rate = self.sent / self.seconds if self.seconds else 0.0
        out = [
            f"frames sent: {self.sent} in {self.seconds:.1f} s ({rate:.0f}/s) over {self.connections} connections",
            f"frames received: {self.received}; by type: " + _counts(self.replies),
            "errors by code: " + _counts(self.errors),
            "connections closed as documented: "
            + (", ".join(f"{code} x{n}" for code, n in sorted(self.closes.items())) or "none")
            + f"; by the gateway's limits: {_counts(self.limited)}; for no documented reason: {self.dropped}",
            f"held game {self.held_game}: seq {self.held_seq[0]} before, {self.held_seq[1]} after",
        ]
        if self.rss_kib is not None:
            before, after = self.rss_kib
            out.append(
                f"gateway RSS: {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after "
                f"({(after - before) / 1024:+.1f} MiB)"
            )
        if self.errors["too_fast"] or self.limited:
            out.append(
                "the gateway's limits (docs/protocol.md, Limits) refused frames or closed connections: "
                "slow down (--rate) or raise them on a test gateway"
            )
        out.append(f"violations: {len(self.violations)}")
        out.extend(f"  {line}" for line in self.violations[:20])
        return out


def _counts(counter: Counter[Any]) -> str:
    return ", ".join(f"{key} {n}" for key, n in counter.most_common()) or "none"
