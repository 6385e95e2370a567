"""The link between two ``boxedin lan`` processes, authenticated and encrypted end to end.

The handshake: ephemeral X25519 keys, the joiner committing to its key before it sees the
host's, so that nobody in between can try keys until the two codes happen to agree:

    joiner -> host   COMMIT  magic | SHA-256(joiner key | joiner nonce)
    host -> joiner   OFFER   host key | host nonce
    joiner -> host   REVEAL  joiner key | joiner nonce   (the host checks the commitment)

Both sides then hash the transcript (the three messages). The six-digit code the two screens
show comes from that hash: a machine in between that swaps in keys of its own leaves the two
sides with different transcripts, so with different codes, and it had to fix its keys before it
saw what it could aim for. One key for each direction comes from HKDF over the shared secret,
salted with the transcript hash.

Every message after the handshake is ChaCha20-Poly1305 sealed, its sequence number (sent in
front, 8 bytes) the nonce and the associated data: a message tampered with, replayed or out of
order is refused with a ``ChannelError`` that says which, and the channel is left as it was.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import struct
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

MAGIC = b"boxedin-lan/1"
KEY_BYTES = 32
NONCE_BYTES = 32
# A message of the link is a frame (JSON) at most this long, sealed: the game's largest state is
# well under it.
MAX_MESSAGE_BYTES = 256 * 1024
_SEQ = struct.Struct(">Q")
_LENGTH = struct.Struct(">I")
CODE_DIGITS = 6


class ChannelError(Exception):
    """A message the link refuses (tampered, replayed, out of order, malformed), or a broken
    handshake. ``reason`` is a stable word; the text says what happened."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _public_bytes(key: X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def commitment(public: bytes, nonce: bytes) -> bytes:
    return hashlib.sha256(MAGIC + b"commit" + public + nonce).digest()


def code_of(transcript_hash: bytes) -> str:
    """The six-digit code both screens show (from the transcript hash alone)."""
    digest = hashlib.sha256(MAGIC + b"code" + transcript_hash).digest()
    return str(int.from_bytes(digest[:8], "big") % 10**CODE_DIGITS).zfill(CODE_DIGITS)


class Sealer:
    """One direction's sending half: seals each message under the next sequence number."""

    def __init__(self, key: bytes) -> None:
        self._aead = ChaCha20Poly1305(key)
        self.seq = 0

    def seal(self, plaintext: bytes) -> bytes:
        if len(plaintext) > MAX_MESSAGE_BYTES:
            raise ChannelError("too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes")
        header = _SEQ.pack(self.seq)
        sealed = header + self._aead.encrypt(b"\0\0\0\0" + header, plaintext, header)
        self.seq += 1
        return sealed


class Opener:
    """One direction's receiving half: opens only the next message in order, exactly once."""

    def __init__(self, key: bytes) -> None:
        self._aead = ChaCha20Poly1305(key)
        self.seq = 0

    def open(self, sealed: bytes) -> bytes:
        if len(sealed) < _SEQ.size + 16:
            raise ChannelError("malformed", f"a sealed message has at least 24 bytes, not {len(sealed)}")
        header = sealed[: _SEQ.size]
        (seq,) = _SEQ.unpack(header)
        if seq < self.seq:
            raise ChannelError("replayed", f"message #{seq} was received already (the next is #{self.seq}): refused")
        if seq > self.seq:
            raise ChannelError("out_of_order", f"message #{seq} came before #{self.seq}: refused")
        try:
            plaintext = self._aead.decrypt(b"\0\0\0\0" + header, sealed[_SEQ.size :], header)
        except InvalidTag:
            problem = f"message #{seq} fails authentication (changed on the way): refused"
            raise ChannelError("tampered", problem) from None
        self.seq += 1
        return plaintext


@dataclass
class Keys:
    """What a finished handshake gives one side."""

    code: str
    sealer: Sealer
    opener: Opener
    transcript_hash: bytes = field(repr=False)


def _derive(private: X25519PrivateKey, peer_public: bytes, transcript: bytes, *, host: bool) -> Keys:
    try:
        shared = private.exchange(X25519PublicKey.from_public_bytes(peer_public))
    except ValueError as exc:
        raise ChannelError("handshake", f"the other side's key is not usable: {exc}") from None
    digest = hashlib.sha256(transcript).digest()

    def key(direction: bytes) -> bytes:
        return HKDF(hashes.SHA256(), KEY_BYTES, salt=digest, info=MAGIC + direction).derive(shared)

    to_joiner, to_host = key(b" host->joiner"), key(b" joiner->host")
    return Keys(
        code=code_of(digest),
        sealer=Sealer(to_joiner if host else to_host),
        opener=Opener(to_host if host else to_joiner),
        transcript_hash=digest,
    )


class JoinerHandshake:
    """The joiner's side: ``commit()``, then ``reveal(offer)`` gives the last message and keys."""

    def __init__(self) -> None:
        self._private = X25519PrivateKey.generate()
        self._public = _public_bytes(self._private)
        self._nonce = os.urandom(NONCE_BYTES)
        self._commit = MAGIC + commitment(self._public, self._nonce)

    def commit(self) -> bytes:
        return self._commit

    def reveal(self, offer: bytes) -> tuple[bytes, Keys]:
        if len(offer) != KEY_BYTES + NONCE_BYTES:
            raise ChannelError("handshake", f"the host's offer has {len(offer)} bytes, not {KEY_BYTES + NONCE_BYTES}")
        reveal = self._public + self._nonce
        keys = _derive(self._private, offer[:KEY_BYTES], self._commit + offer + reveal, host=False)
        return reveal, keys


class HostHandshake:
    """The host's side: ``offer(commit)``, then ``finish(reveal)`` gives the keys."""

    def __init__(self) -> None:
        self._private = X25519PrivateKey.generate()
        self._offer = _public_bytes(self._private) + os.urandom(NONCE_BYTES)
        self._commit: bytes | None = None

    def offer(self, commit: bytes) -> bytes:
        if not commit.startswith(MAGIC) or len(commit) != len(MAGIC) + 32:
            raise ChannelError("handshake", "not a Boxed In joiner (the first message is not a commitment)")
        self._commit = commit
        return self._offer

    def finish(self, reveal: bytes) -> Keys:
        if self._commit is None:
            raise ChannelError("handshake", "the reveal came before the commitment")
        if len(reveal) != KEY_BYTES + NONCE_BYTES:
            raise ChannelError("handshake", f"the reveal has {len(reveal)} bytes, not {KEY_BYTES + NONCE_BYTES}")
        expected = self._commit[len(MAGIC) :]
        if not hmac.compare_digest(commitment(reveal[:KEY_BYTES], reveal[KEY_BYTES:]), expected):
            raise ChannelError("handshake", "the joiner's key is not the one it committed to: refused")
        return _derive(self._private, reveal[:KEY_BYTES], self._commit + self._offer + reveal, host=True)


# --- over a byte stream ---------------------------------------------------------------------------


async def read_record(reader: asyncio.StreamReader) -> bytes:
    """One length-prefixed record; ``asyncio.IncompleteReadError`` when the stream ends."""
    (length,) = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
    if length > MAX_MESSAGE_BYTES + 64:
        raise ChannelError("too_large", f"a record of {length} bytes is over the link's limit")
    return await reader.readexactly(length)


def write_record(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(_LENGTH.pack(len(data)) + data)


async def join(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float = 10.0) -> Keys:
    """The joiner's handshake over a connected stream."""
    handshake = JoinerHandshake()
    write_record(writer, handshake.commit())
    await writer.drain()
    offer = await asyncio.wait_for(read_record(reader), timeout)
    reveal, keys = handshake.reveal(offer)
    write_record(writer, reveal)
    await writer.drain()
    return keys


async def host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float = 10.0) -> Keys:
    """The host's handshake over an accepted stream."""
    handshake = HostHandshake()
    commit = await asyncio.wait_for(read_record(reader), timeout)
    write_record(writer, handshake.offer(commit))
    await writer.drain()
    return handshake.finish(await asyncio.wait_for(read_record(reader), timeout))


class Channel:
    """A finished handshake over its stream: JSON-free bytes in, bytes out, sealed."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, keys: Keys) -> None:
        self.reader = reader
        self.writer = writer
        self.keys = keys

    @property
    def code(self) -> str:
        return self.keys.code

    async def send(self, plaintext: bytes) -> None:
        write_record(self.writer, self.keys.sealer.seal(plaintext))
        await self.writer.drain()

    async def receive(self) -> bytes:
        return self.keys.opener.open(await read_record(self.reader))

    def close(self) -> None:
        self.writer.close()
