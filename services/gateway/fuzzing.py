"""Fuzzing the websocket protocol (docs/protocol.md): hypothesis strategies over the grammar of
the client frames in frames.py, and a run that sends what they draw to a real gateway and checks
what comes back. Used by tests/services/test_fuzz_frames.py and by `boxedin fuzz` (fuzz.py).

What is drawn: a frame of every client type, valid or with its fields mutated (wrong kinds,
numbers far out of range, unicode, fields missing or unknown, nested junk), or text that is not a
frame at all, binary messages, text that is not UTF-8, and frames padded to each size class of
docs/protocol.md (Frames). What is checked, frame by frame:

- the connection stays open, except where the protocol says it closes: a message above
  ``frames.MAX_READ_BYTES`` (code 1009) and a text message that is not UTF-8 (code 1007);
- every frame is answered (a ``ping`` with a fresh id follows each one: what arrives before its
  ``pong`` is the answer), and every frame the server sends is one the protocol defines
  (``outgoing.server_frame``) with, for errors, a documented code; ``internal`` and
  ``unavailable`` count as failures, as nothing a client sends should cause them;
- a game held open by a device the fuzzed connections never are does not change, though their
  frames name it: its holder receives no update, and the game's ``seq`` and state are the same
  at the end.

The gateway process's memory (VmRSS) is read before and after when its pid is known.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import math
import string
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from boxedin.common import choices
from boxedin.common.reasons import CLIENT_CODES
from boxedin.engine.rules import MODES, Overlap
from boxedin.matchmaker import codes

from .client_frames import FRAME_TYPES, MAX_FRAME_BYTES, MAX_READ_BYTES
from .server_frames import server_frame

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


# --- what is drawn -----------------------------------------------------------------------------


class Placeholder:
    """A game id known only when the frame is sent: the held game, or the game the connection
    follows."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


HELD = Placeholder("held game")
OWN = Placeholder("own game")


@dataclass(frozen=True)
class Fuzzed:
    """One websocket message to send: a JSON value (with placeholders), or raw text or bytes."""

    value: Any = None
    raw: str | bytes | None = None
    binary: bool = False  # sent as a binary message (else text; raw bytes as text are not UTF-8)
    pad_to: int = 0  # the JSON text is padded with spaces to this many bytes
    ascii_only: bool = True

    def render(self, held: str, own: str) -> tuple[str | bytes, bool]:
        """The message and whether it goes as text."""
        if self.raw is not None:
            payload: str | bytes = self.raw
        else:

            def fill(value: object) -> str:
                if isinstance(value, Placeholder):
                    return held if value is HELD else own
                raise TypeError(f"{type(value).__name__} is not JSON")

            text = json.dumps(self.value, default=fill, ensure_ascii=self.ascii_only)
            size = len(text.encode("utf-8"))
            payload = text + " " * (self.pad_to - size) if self.pad_to > size else text
        if self.binary:
            return (payload.encode("utf-8") if isinstance(payload, str) else payload), False
        return payload, True


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


TOKEN_ALPHABET = string.ascii_letters + string.digits + "_-"
CODE_ALPHABET = codes.ALPHABET
LEVELS = choices.LEVELS[:2]  # the AI's cheap levels: the fuzz tests frames, not the AI
BOUNDARY_INTS = (0, 1, -1, 2, 1024, 1025, -1024, -1025, 3600, 3601, 2**31 - 1, 2**31, -(2**31) - 1,
                 2**53, 2**63 - 1, 2**63, -(2**63) - 1, 2**64, 10**30, -(10**30))  # fmt: skip
SIZES = (MAX_FRAME_BYTES - 1, MAX_FRAME_BYTES, MAX_FRAME_BYTES + 1, 2 * MAX_FRAME_BYTES,
         MAX_READ_BYTES - 1, MAX_READ_BYTES, MAX_READ_BYTES + 1, 2**20, 2**22)  # fmt: skip


@functools.cache
def _ints() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(BOUNDARY_INTS), st.integers(-(2**70), 2**70), st.integers(-3, 20))


@functools.cache
def _texts(max_size: int = 80) -> st.SearchStrategy[str]:
    return st.text(max_size=max_size)


@functools.cache
def junk() -> st.SearchStrategy[Any]:
    """Any JSON value: wrong kinds, huge numbers, unicode, nesting."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        _ints(),
        st.floats(allow_nan=True, allow_infinity=True),
        _texts(),
        st.sampled_from(["", " ", "h", "v", "random", "null", "true", "0", "\u0000", "\ud7ff\ue000", "💥" * 9]),
    )
    return st.recursive(
        leaves,
        lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(_texts(8), children, max_size=4)),
        max_leaves=12,
    )


@functools.cache
def _token() -> st.SearchStrategy[str]:
    return st.text(TOKEN_ALPHABET, min_size=22, max_size=64)


@functools.cache
def _game() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.just(HELD),
        st.just(OWN),
        st.builds(lambda b: "g_" + b.hex(), st.binary(min_size=1, max_size=16)),
        st.text(min_size=1, max_size=64),
    )


@functools.cache
def _edge() -> st.SearchStrategy[Any]:
    coordinate = st.one_of(st.integers(-1, 12), _ints())
    return st.one_of(
        st.tuples(st.sampled_from(["h", "v"]), st.integers(0, 12), st.integers(0, 12)).map(list),
        st.tuples(st.sampled_from(["h", "v", "d", "H", ""]), coordinate, coordinate).map(list),
        st.lists(st.one_of(st.sampled_from(["h", "v"]), coordinate), max_size=5),
    )


@functools.cache
def _name() -> st.SearchStrategy[str]:
    return st.one_of(st.text(string.ascii_letters + string.digits + " _-", min_size=1, max_size=20), _texts(30))


# The values a field of a client frame takes: mostly valid, some not; mutations add the rest.
FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "id": st.one_of(st.integers(-(2**53), 2**53), st.text(max_size=64)),
    "device": st.one_of(_token(), _texts(70)),
    "game": _game(),
    "seq": st.one_of(st.integers(0, 40), st.integers(0, 2**63 - 1)),
    "mode": st.one_of(st.sampled_from(sorted(MODES)), _texts(40)),
    "overlap": st.one_of(st.none(), st.sampled_from([rule.id for rule in Overlap]), _texts(40)),
    "opponent": st.sampled_from(["local", "local", "practice", "ai", "online", "cat"]),
    "level": st.one_of(st.none(), st.sampled_from([*LEVELS, "genius", "EASY"])),
    "first": st.sampled_from([1, 2, "random", 0, 3, "1", True]),
    "clock": st.sampled_from([*choices.CLOCKS, 15, 3600]),
    "ai_speed": st.one_of(st.none(), st.sampled_from(["normal", "fast", "slow"])),
    "seed": st.one_of(st.none(), _texts(120), st.sampled_from(["", "   ", "s", "x" * 96, "x" * 97])),
    "edge": _edge(),
    "visible": st.booleans(),
    "open": st.booleans(),
    "want": st.booleans(),
    "token": st.one_of(st.none(), _texts(80)),
    "name": _name(),
    "code": st.one_of(st.text(CODE_ALPHABET, min_size=6, max_size=6), _texts(40)),
}
# game_result makes the server wait up to 5 s for the game to be counted (docs/protocol.md):
# drawn less often so that a run stays quick.
TYPE_WEIGHTS = {"game_result": 1}
DEFAULT_TYPE_WEIGHT = 8


def _frame_fields() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each client frame type -> (its required fields, its optional ones), from frames.py."""
    from typing import get_args

    from .client_frames import ClientFrame

    union = get_args(ClientFrame)[0]
    shapes: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for model in get_args(union):
        fields = {name: info for name, info in model.model_fields.items() if name != "type"}
        required = tuple(name for name, info in fields.items() if info.is_required())
        optional = tuple(name for name, info in fields.items() if not info.is_required())
        for kind in get_args(model.model_fields["type"].annotation):
            shapes[kind] = (required, optional)
    return shapes


SHAPES = _frame_fields()
_unfuzzed = {name for required, optional in SHAPES.values() for name in required + optional} - set(FIELDS)
assert not _unfuzzed, f"fuzzing.FIELDS has no values for the frame fields {sorted(_unfuzzed)}"
assert set(SHAPES) == set(FRAME_TYPES), "frames.FRAME_TYPES and the frame models disagree"


_BOOLS = st.booleans()
_INDEX = st.integers(0, 2**16)
_MUTATIONS = st.integers(1, 3)
_HOW = st.sampled_from(["drop", "junk", "add", "type", "int", "wrap"])
_SHAPE = st.integers(0, 999)
_SIZE = st.sampled_from(SIZES)
_BINARY = st.one_of(st.binary(max_size=300), st.just(b""))
# Not UTF-8: a lone continuation byte, an overlong form, a surrogate, bytes UTF-8 never has.
_NOT_UTF8 = st.sampled_from([b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xff", b"\xf5\x80\x80\x80"])


def _client_frame(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    """A frame of one type as a JSON object: its required fields, some of its optional ones."""
    required, optional = SHAPES[kind]
    frame: dict[str, Any] = {"type": kind}
    for name in required:
        frame[name] = draw(FIELDS[name])
    for name in optional:
        if draw(_BOOLS):
            frame[name] = draw(FIELDS[name])
    return frame


@st.composite
def client_frame(draw: st.DrawFn) -> dict[str, Any]:
    """A valid-looking frame of any client type (game_result less often)."""
    return _client_frame(draw, draw(_kind()))


def _pick(draw: st.DrawFn, keys: list[str]) -> str:
    return keys[draw(_INDEX) % len(keys)]


def _mutated(draw: st.DrawFn, frame: dict[str, Any]) -> Any:
    """The frame with one to three mutations: a field dropped, replaced by junk, by a number far
    out of range or added, the type changed, or the whole frame wrapped or replaced."""
    frame = dict(frame)
    for _ in range(draw(_MUTATIONS)):
        how = draw(_HOW)
        keys = sorted(frame)
        if how == "drop" and keys:
            del frame[_pick(draw, keys)]
        elif how == "junk" and keys:
            frame[_pick(draw, keys)] = draw(junk())
        elif how == "int" and keys:
            frame[_pick(draw, keys)] = draw(_ints())
        elif how == "add":
            frame[draw(_field_name())] = draw(junk())
        elif how == "type":
            frame["type"] = draw(_junk_type())
        elif how == "wrap":
            return [frame] * (1 + draw(_BOOLS)) if draw(_BOOLS) else draw(junk())
    return frame


@functools.cache
def _field_name() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(sorted(FIELDS)), _texts(12))


@functools.cache
def _junk_type() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(FRAME_TYPES), junk(), st.just("PING"))


@functools.cache
def _raw_text() -> st.SearchStrategy[str]:
    """Text that is no frame: not JSON, JSON that is not an object, JSON cut short, deep nesting,
    numbers too long to read, two frames in one."""
    return st.one_of(
        _texts(200),
        st.sampled_from(["", " ", "null", "[]", "{}", '"ping"', "0", "NaN", "-Infinity", "{", '{"type":', "\ufeff{}"]),
        st.one_of(st.integers(1, 4000), st.integers(1, 200_000)).map(lambda depth: "[" * depth + "]" * depth),
        st.one_of(st.integers(1, 1500), st.integers(1, 100_000)).map(lambda n: '{"a":' * n + "1" + "}" * n),
        st.integers(4_000, 60_000).map(lambda digits: '{"type":"ping","id":' + "7" * digits + "}"),
        st.builds(lambda frame, cut: _dumps(frame)[:cut], client_frame(), st.integers(0, 60)),
        st.builds(lambda frame: _dumps(frame) + _dumps(frame), client_frame()),
        st.builds(lambda frame: _dumps(frame).replace("{", '{"type":"ping",', 1), client_frame()),
    )


def _dumps(frame: dict[str, Any]) -> str:
    """JSON text of a frame, a game id made up for each placeholder."""
    return json.dumps(frame, default=lambda _: "g_" + "0" * 24)


@functools.cache
def _kind() -> st.SearchStrategy[str]:
    weighted = [kind for kind in FRAME_TYPES for _ in range(TYPE_WEIGHTS.get(kind, DEFAULT_TYPE_WEIGHT))]
    return st.sampled_from(weighted)


@st.composite
def fuzzed(draw: st.DrawFn) -> Fuzzed:
    """One message: mostly a frame (valid, or mutated), sometimes raw text, binary, text that is
    not UTF-8, or a frame padded to one of the size classes."""
    shape = draw(_SHAPE)
    if shape < 40:
        return Fuzzed(raw=draw(_raw_text()))
    if shape < 55:
        return Fuzzed(raw=draw(_BINARY), binary=True)
    if shape < 60:
        return Fuzzed(raw=b'{"type":"ping","id":"' + draw(_NOT_UTF8) + b'"}')
    frame = _client_frame(draw, draw(_kind()))
    if "id" not in frame and draw(_BOOLS):
        frame["id"] = draw(FIELDS["id"])
    value = _mutated(draw, frame) if shape < 600 else frame
    binary = 600 <= shape < 620
    pad_to = draw(_SIZE) if 620 <= shape < 650 else 0
    return Fuzzed(value=value, binary=binary, pad_to=pad_to, ascii_only=draw(_BOOLS))


_MESSAGES = st.lists(fuzzed(), min_size=20, max_size=20)


@st.composite
def _one_of_each(draw: st.DrawFn) -> list[Fuzzed]:
    return [Fuzzed(value=_client_frame(draw, kind)) for kind in FRAME_TYPES]


def draw_tour(seed: int | None = None) -> list[Fuzzed]:
    """A valid-looking frame of every client type, once each: a run starts with them, so that
    every type is tried whatever the random draws (game_result is drawn rarely)."""
    drawn: list[Fuzzed] = []

    @settings(max_examples=1, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(_one_of_each())
    def collect(frames: list[Fuzzed]) -> None:
        drawn[:] = frames

    if seed is not None:
        collect = hypothesis_seed(seed)(collect)
    collect()
    return drawn


def draw_messages(count: int, seed: int | None = None) -> list[Fuzzed]:
    """``count`` messages drawn by hypothesis (its generation phase only: nothing to shrink);
    the same ``seed`` draws the same messages."""
    drawn: list[Fuzzed] = []
    for round_ in itertools.count():
        missing = count - len(drawn)
        if missing <= 0:
            break

        @settings(
            max_examples=math.ceil(missing / 20),
            phases=[Phase.generate],
            database=None,
            deadline=None,
            derandomize=False,
            verbosity=Verbosity.quiet,
            suppress_health_check=list(HealthCheck),
        )
        @given(_MESSAGES)
        def collect(messages: list[Fuzzed]) -> None:
            drawn.extend(messages)

        if seed is not None:
            collect = hypothesis_seed(seed * 1_000_003 + round_)(collect)
        collect()
    return drawn[:count]


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


def rss_kib(pid: int) -> int:
    """The resident memory of a process (VmRSS in /proc/PID/status), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def _short(fuzzed: Fuzzed | None) -> str:
    text = repr(fuzzed)
    return text if len(text) <= 300 else text[:300] + f"... ({len(text)} characters)"


class _Closed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(code)
        self.code = code


class _Connection:
    """One fuzzed connection: a device of its own; reconnects after a close. Sends one message at
    a time, at most ``run.rate`` frames a second (the message and its marker ping count two)."""

    REPLY_SECONDS = 20.0  # game_result waits up to 5 s; a busy machine may add some

    def __init__(self, run: FuzzRun, index: int) -> None:
        self.run = run
        self.index = index
        self.device: str | None = None  # issued by the server in the first welcome
        self.ws: ClientConnection | None = None
        self.game: str | None = None  # the game this connection follows
        self.said_hello = False
        self._next_send = 0.0

    async def open(self) -> ClientConnection:
        # Half the connections compress, as browsers do. No keepalive pings (none of these
        # connections idles): websockets draws their payloads from the random module, which
        # hypothesis, drawing the next messages in another thread, would see change.
        compression = "deflate" if self.index % 2 == 0 else None
        self.said_hello = False
        ws = await connect(
            self.run.ws_url, max_size=2**24, compression=compression, open_timeout=15, ping_interval=None
        )
        self.ws = ws
        self.run.summary.connections += 1
        # Most connections say hello first; some stay before hello, where frames get hello_first.
        if self.index % 8 != 7:
            hello = {"type": "hello"} if self.device is None else {"type": "hello", "device": self.device}
            await self.exchange(json.dumps(hello), True, None)
        return ws

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    async def pace(self) -> None:
        if self.run.rate:
            now = time.monotonic()
            self._next_send = max(self._next_send + 2 / self.run.rate, now)
            if self._next_send > now:
                await asyncio.sleep(self._next_send - now)

    async def send(self, message: Fuzzed) -> None:
        payload, text = message.render(self.run.held_game, self.game or self.run.held_game)
        closes = expected_close(payload, text)
        summary = self.run.summary
        try:
            await self.pace()
            if self.ws is None:
                await self.open()
            replies = await self.exchange(payload, text, message)
        except _Closed as closed:
            self.ws = None
            if closes is not None and closed.code in (closes, None):
                # Closed at once, the gateway may reset a connection still sending (docs/protocol.md).
                summary.closes[str(closes) if closed.code else f"{closes} (seen as a reset)"] += 1
            elif closed.code == HELLO_TIMEOUT and not self.said_hello:
                summary.closes[f"{HELLO_TIMEOUT} (no hello in time)"] += 1
            elif closed.code in LIMIT_CLOSES:
                summary.limited[closed.code] += 1
            else:
                summary.dropped += 1
                summary.violate(
                    f"connection closed with {closed.code} (expected {closes or 'none'}) after {_short(message)}"
                )
            return
        finally:
            summary.sent += 1
            kind = message.value.get("type") if isinstance(message.value, dict) else None
            if isinstance(kind, str) and kind in SHAPES:
                summary.kinds[kind] += 1
        if closes is not None:
            summary.violate(f"not closed with {closes} after {_short(message)}")
        elif not replies:
            summary.violate(f"no answer to {_short(message)}")

    async def exchange(self, payload: str | bytes, text: bool, message: Fuzzed | None) -> list[dict[str, Any]]:
        """Sends the message and a marker ping; returns what came before the marker's answer."""
        ws = self.ws
        assert ws is not None
        marker = f"fuzz-{next(self.run.markers)}"
        replies: list[dict[str, Any]] = []
        try:
            await ws.send(payload, text=text)
            await ws.send(json.dumps({"type": "ping", "id": marker}))
            async with asyncio.timeout(self.REPLY_SECONDS):
                while True:
                    frame = self.check(await ws.recv(), message)
                    if frame.get("reply_to") == marker:
                        return replies
                    replies.append(frame)
        except ConnectionClosed as closed:
            raise _Closed(closed.rcvd.code if closed.rcvd is not None else None) from None
        except TimeoutError:
            self.run.summary.violate(f"no answer within {self.REPLY_SECONDS:.0f} s to {_short(message)}")
            await ws.close()
            raise _Closed(None) from None

    def check(self, raw: str | bytes, message: Fuzzed | None) -> dict[str, Any]:
        summary = self.run.summary
        summary.received += 1
        try:
            frame: dict[str, Any] = json.loads(raw)
            server_frame(frame)
        except (ValueError, ValidationError) as exc:
            summary.violate(f"undocumented frame {str(raw)[:200]!r} ({str(exc)[:200]}) after {_short(message)}")
            return {}
        kind = frame["type"]
        summary.replies[kind] += 1
        if kind == "error":
            code = frame["code"]
            summary.errors[code] += 1
            if code not in self.run.documented or code in FAILURE_ERRORS:
                summary.violate(f"error {code} ({frame['message']}) after {_short(message)}")
        elif kind == "state":
            self.game = frame["game"]["game"]
        elif kind == "welcome":
            self.said_hello = True
            self.device = frame["device"]
        return frame


class FuzzRun:
    """Fuzzes a running gateway (``url``: http://HOST:PORT) over ``connections`` connections, each
    sending at most ``rate`` frames a second (None: as fast as the gateway answers). An error
    code outside ``documented`` is a violation."""

    def __init__(
        self,
        url: str,
        *,
        connections: int = 8,
        rate: float | None = None,
        documented: frozenset[str] = DOCUMENTED_ERRORS,
    ) -> None:
        self.ws_url = url.replace("http://", "ws://").replace("https://", "wss://").rstrip("/") + "/ws"
        self.connections = connections
        self.rate = rate
        self.documented = documented
        self.summary = Summary()
        self.markers = itertools.count(1)
        self.held_game = ""
        self._holder_device = ""  # issued by the server in the holder's welcome
        self._holder: ClientConnection | None = None
        self._held_state: dict[str, Any] = {}
        self._holder_frames: list[dict[str, Any]] = []
        self._holder_tasks: list[asyncio.Task[None]] = []
        self._held_pong = asyncio.Event()

    async def hold_game(self) -> None:
        """A local game of a device no fuzzed connection is, held open by its own connection."""
        holder = await connect(self.ws_url, max_size=2**24, open_timeout=15, ping_interval=None)
        self._holder = holder
        await holder.send(json.dumps({"type": "hello", "id": 1}))
        await holder.send(json.dumps({"type": "new_game", "mode": "classic", "opponent": "local", "id": 2}))
        async with asyncio.timeout(15):
            while True:
                frame = json.loads(await holder.recv())
                if frame["type"] == "welcome":
                    self._holder_device = frame["device"]
                elif frame["type"] == "state":
                    break
        self.held_game, self._held_state = frame["game"]["game"], frame["game"]
        self.summary.held_game = self.held_game
        self._holder_tasks = [
            asyncio.create_task(self._watch_holder(holder)),
            asyncio.create_task(self._keep_holder(holder)),
        ]

    async def _watch_holder(self, holder: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in holder:
                frame = json.loads(raw)
                if frame.get("reply_to") == "held":
                    self._held_pong.set()
                elif frame.get("reply_to") != "keep":
                    self._holder_frames.append(frame)

    async def _keep_holder(self, holder: ClientConnection) -> None:
        """Pings as the web client does (every 25 s), so that no idle timeout ends the holder."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                await asyncio.sleep(25)
                await holder.send(json.dumps({"type": "ping", "id": "keep"}))

    async def check_held_game(self) -> None:
        """The held game is as it was: its connection had nothing before the pong to a ping, and
        a new connection of its device finds the same state."""
        holder = self._holder
        assert holder is not None
        await holder.send(json.dumps({"type": "ping", "id": "held"}))
        async with asyncio.timeout(15):
            await self._held_pong.wait()
        for frame in self._holder_frames:
            self.summary.violate(f"the held game's connection received {str(frame)[:300]}")
        self._holder_tasks[1].cancel()
        await holder.close()
        await asyncio.gather(*self._holder_tasks, return_exceptions=True)
        async with connect(self.ws_url, max_size=2**24, open_timeout=15, ping_interval=None) as again:
            await again.send(json.dumps({"type": "hello", "device": self._holder_device, "game": self.held_game}))
            async with asyncio.timeout(15):
                while (frame := json.loads(await again.recv()))["type"] != "state":
                    pass
        after = frame["game"]

        def lasting(state: dict[str, Any]) -> dict[str, Any]:
            return {key: value for key, value in state.items() if key != "clock_remaining_ms"}

        self.summary.held_seq = (self._held_state["seq"], after["seq"])
        if lasting(after) != lasting(self._held_state):
            self.summary.violate(f"the held game changed: seq {self._held_state['seq']} -> {after['seq']}")

    async def fuzz(self, batches: Iterator[list[Fuzzed]]) -> None:
        """Sends every message of the batches (the next batch is drawn, in a thread, while one is
        sent), each connection one message at a time."""
        queue: asyncio.Queue[Fuzzed | None] = asyncio.Queue(maxsize=4 * self.connections)
        conns = [_Connection(self, index) for index in range(self.connections)]

        async def work(conn: _Connection) -> None:
            while (message := await queue.get()) is not None:
                try:
                    await conn.send(message)
                except Exception as exc:  # the gateway unreachable, say: said, and on to the next
                    self.summary.violate(f"sending failed: {exc!r} for {_short(message)}")
                    conn.ws = None
            with contextlib.suppress(Exception):
                await conn.close()

        workers = [asyncio.create_task(work(conn)) for conn in conns]
        started = time.monotonic()
        try:
            batch = await asyncio.to_thread(next, batches, None)
            while batch is not None:
                coming = asyncio.create_task(asyncio.to_thread(next, batches, None))
                for message in batch:
                    await queue.put(message)
                batch = await coming
            for _ in workers:
                await queue.put(None)
            await asyncio.gather(*workers)
        finally:
            for worker in workers:
                worker.cancel()
            self.summary.seconds += time.monotonic() - started


async def run(
    url: str,
    frames: int,
    *,
    connections: int = 8,
    rate: float | None = None,
    pid: int | None = None,
    seed: int | None = None,
    warmup: int = 0,
    chunk: int = 2000,
    documented: frozenset[str] = DOCUMENTED_ERRORS,
) -> Summary:
    """Holds a game, sends ``warmup`` messages (not counted) then ``frames`` messages, checks the
    held game; the gateway's memory (``pid``) is read after the warm-up and at the end."""
    fuzz = FuzzRun(url, connections=connections, rate=rate, documented=documented)
    await fuzz.hold_game()

    def chunks(total: int, salt: int) -> Iterator[list[Fuzzed]]:
        tour = draw_tour(None if seed is None else seed * 7919 + salt) if total >= len(FRAME_TYPES) else []
        if tour:
            yield tour
        for index, start in enumerate(range(len(tour), total, chunk)):
            size = min(chunk, total - start)
            yield draw_messages(size, None if seed is None else seed * 7919 + salt * 104_729 + index)

    if warmup:
        await fuzz.fuzz(chunks(warmup, 1))
        fuzz.summary = Summary(held_game=fuzz.held_game, violations=fuzz.summary.violations)
    before = rss_kib(pid) if pid is not None else None
    await fuzz.fuzz(chunks(frames, 2))
    await fuzz.check_held_game()
    if pid is not None and before is not None:
        fuzz.summary.rss_kib = (before, rss_kib(pid))
    return fuzz.summary
