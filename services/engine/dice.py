"""The die. The server keeps it: a seed string makes a game's rolls reproducible, and without one
every roll comes from the operating system's cryptographic source."""

from __future__ import annotations

import hashlib
import secrets

from .actions import GameError

SEED_MAX_LENGTH = 96


def normalise_seed(seed: str) -> str:
    """The seed as the game uses it: surrounding spaces ignored, 1 to 96 characters left."""
    trimmed = seed.strip()
    if not 1 <= len(trimmed) <= SEED_MAX_LENGTH:
        raise GameError(
            "bad_seed",
            f"a seed has 1 to {SEED_MAX_LENGTH} characters besides surrounding spaces; this one has {len(trimmed)}",
        )
    return trimmed


class Dice:
    """Faces for a game's rolls, numbered from 0 in the order they are rolled."""

    def __init__(self, seed: str | None = None) -> None:
        self.seed = None if seed is None else normalise_seed(seed)

    def face(self, index: int, sides: int) -> int:
        """The face (1 to ``sides``) of roll number ``index``."""
        if self.seed is None:
            return secrets.randbelow(sides) + 1
        # Rejection sampling over a hash stream keeps every face exactly equally likely.
        limit = (1 << 64) - (1 << 64) % sides
        counter = 0
        while True:
            digest = hashlib.sha256(f"{self.seed}\x00{index}\x00{counter}".encode()).digest()
            for offset in range(0, 32, 8):
                value = int.from_bytes(digest[offset : offset + 8], "big")
                if value < limit:
                    return value % sides + 1
            counter += 1
