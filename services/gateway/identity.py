"""Device tokens are issued by the server (docs/protocol.md, Identity). A token is 16 random bytes
from `secrets` followed by the first 16 bytes of their HMAC-SHA256 under the installation's
device key, in base64url: 43 characters. A gateway tells a token it issued from one a client
made up by checking the HMAC, so issuing one stores nothing (a client that says hello a million
times costs no memory), and every gateway replica knows every other's tokens.

The device key is made once, by whichever gateway asks first, and kept in Redis (one key that
never expires: losing it is losing every device's identity, which only happens with the data
itself). Each hello reads it again (one GET), so that after Redis lost its data every replica
agrees on the new key at once. The services keep only a token's SHA-256
(boxedin.common.devices.device_hash)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from typing import cast

import redis.asyncio as redis

from boxedin.common.keys import Keys

_RANDOM_BYTES = 16
_MAC_BYTES = 16
TOKEN_LENGTH = 43  # base64url of 32 bytes, without padding


def issue(key: bytes) -> str:
    """A new device token, signed with ``key``."""
    random = secrets.token_bytes(_RANDOM_BYTES)
    mac = hmac.new(key, random, hashlib.sha256).digest()[:_MAC_BYTES]
    return base64.urlsafe_b64encode(random + mac).rstrip(b"=").decode()


def was_issued(token: str, key: bytes) -> bool:
    """Whether ``token`` is one of ours (issued with ``key``), not one a client made up."""
    if len(token) != TOKEN_LENGTH:
        return False
    try:
        raw = base64.urlsafe_b64decode(token + "=")
    except (binascii.Error, ValueError):
        return False
    # Only the form we issue: the last character carries four bits that decoding ignores, so
    # without this each token has twins (and decoding skips characters outside the alphabet).
    if len(raw) != _RANDOM_BYTES + _MAC_BYTES or base64.urlsafe_b64encode(raw).rstrip(b"=").decode() != token:
        return False
    random, mac = raw[:_RANDOM_BYTES], raw[_RANDOM_BYTES:]
    return hmac.compare_digest(mac, hmac.new(key, random, hashlib.sha256).digest()[:_MAC_BYTES])


class DeviceTokens:
    """Issues and checks device tokens with the installation's device key, kept in Redis (made
    there by the first gateway that needs it)."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self.redis = client
        self.keys = keys

    async def vouch(self, token: str | None) -> tuple[str, bool]:
        """The device a hello speaks for: ``token`` when we issued it, else a new token. The
        second value says whether the token is new."""
        key = await device_key(self.redis, self.keys)
        if token and was_issued(token, key):
            return token, False
        return issue(key), True


async def device_key(client: redis.Redis, keys: Keys) -> bytes:
    """The installation's device key: made by the first caller, the same for every caller after."""
    name = keys.device_token_key()
    key = cast("bytes | None", await client.get(name))
    if key is None:
        await client.set(name, secrets.token_bytes(32), nx=True)
        key = cast("bytes | None", await client.get(name))
    assert key is not None, "the device key was just made"
    return key
