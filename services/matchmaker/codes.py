"""Room codes: six characters from an alphabet without look-alikes (no 0/O, no 1/I/L), drawn
with ``secrets``; what a player types is tidied up before it is checked."""

from __future__ import annotations

import secrets

from boxedin.common.reasons import Refusal

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 6
_ALLOWED = frozenset(ALPHABET)


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def check_code(raw: str) -> str:
    """The code a player typed, upper-cased without spaces and dashes, or ``bad_code``."""
    code = raw.upper().replace(" ", "").replace("-", "")
    if len(code) != LENGTH or not _ALLOWED.issuperset(code):
        raise Refusal(
            "bad_code", f"a room code is {LENGTH} letters and digits, as the friend who made the room sees it"
        )
    return code
