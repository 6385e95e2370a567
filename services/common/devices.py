"""The device token a browser names itself with (docs/protocol.md, Identity)."""

from __future__ import annotations

import functools
import hashlib
import re

from .reasons import Refusal

DEVICE_TOKEN = re.compile(r"^[A-Za-z0-9_-]{22,64}$")


def check_device(device: str) -> str:
    if not DEVICE_TOKEN.match(device):
        raise Refusal("bad_device", "a device token is 22 to 64 letters, digits, - or _")
    return device


# Every action a person makes names the device: the hashes of the devices playing now are kept.
@functools.lru_cache(maxsize=4096)
def device_hash(device: str) -> str:
    """What the services keep of a device token: its SHA-256, never the token itself."""
    return hashlib.sha256(check_device(device).encode()).hexdigest()
