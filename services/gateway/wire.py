"""A frame's bytes on the wire, made once for every socket that sends it. The hub hands an update's
text (one str object) to the game's players and every one of its watchers; the frame made of it
is the same bytes for all of them, so it is framed once here and written to each socket as it is
(connection.py, keepalive.GatewayWebSocketProtocol.write_frame).

Such a frame goes out uncompressed. With per-message deflate each socket compresses with a window
of its own, so a compressed frame is never the same bytes twice: 1,000 watchers of a game meant
1,000 compressions of each update, and with the ASGI send around each, most of the gateway's time
(`boxedin load --watchers`). RFC 7692 lets any message go uncompressed on a connection that
negotiated deflate (its RSV1 bit clear), the client's window then being left as it was. An update
is a few hundred bytes; a frame above ``UNCOMPRESSED_MAX_BYTES`` (a big board's whole state, a
review) still goes the ASGI way, compressed for its one socket."""

from __future__ import annotations

from collections import OrderedDict

from websockets.frames import Frame, Opcode

# Updates are about 500 bytes (2 KB at most, Big Squares' largest captures): all of them below.
UNCOMPRESSED_MAX_BYTES = 4096
# The texts framed last, by identity: one update's followers ask for its frame one after another
# (or, those whose socket was busy, a little later), never for many frames at once.
_KEPT = 32


class WireFrames:
    def __init__(self, kept: int = _KEPT) -> None:
        self.kept = kept
        # id(text) -> (text, its frame): holding the text keeps its id from being reused.
        self._frames: OrderedDict[int, tuple[str, bytes]] = OrderedDict()
        self.framed = 0  # frames made, for the test that each is made once

    def frame(self, text: str) -> bytes | None:
        """The text frame of ``text`` as the bytes a server writes (unmasked, uncompressed), or
        None when it is too large to go uncompressed."""
        found = self._frames.get(id(text))
        if found is not None and found[0] is text:
            return found[1]
        if len(text) > UNCOMPRESSED_MAX_BYTES:  # at least as many bytes as characters
            return None
        data = text.encode()
        if len(data) > UNCOMPRESSED_MAX_BYTES:
            return None
        wire = Frame(Opcode.TEXT, data).serialize(mask=False)
        self.framed += 1
        self._frames[id(text)] = (text, wire)
        if len(self._frames) > self.kept:
            self._frames.popitem(last=False)
        return wire


WIRE = WireFrames()
