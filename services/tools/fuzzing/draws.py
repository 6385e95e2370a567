"""What `boxedin fuzz` draws: hypothesis strategies over the grammar of the client frames
(boxedin.gateway.client_frames), valid or with their fields mutated, text that is not a frame, binary
messages, text that is not UTF-8, and frames padded to each size class of docs/protocol.md."""

from __future__ import annotations

import functools
import itertools
import json
import math
import string
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from boxedin.common import choices
from boxedin.engine.rules import MODES, Overlap
from boxedin.gateway.client_frames import FRAME_TYPES, MAX_FRAME_BYTES, MAX_READ_BYTES
from boxedin.matchmaker import codes

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
    # A watch id of the right shape (unknown to the server: no_watch), or any text.
    "watch": st.one_of(st.text(string.ascii_letters + string.digits + "_-", min_size=24, max_size=24), _texts(70)),
}
# game_result makes the server wait up to 5 s for the game to be counted (docs/protocol.md):
# drawn less often so that a run stays quick.
TYPE_WEIGHTS = {"game_result": 1}
DEFAULT_TYPE_WEIGHT = 8


def _frame_fields() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each client frame type -> (its required fields, its optional ones), from client_frames.py."""
    from typing import get_args

    from boxedin.gateway.client_frames import ClientFrame

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
assert set(SHAPES) == set(FRAME_TYPES), "client_frames.FRAME_TYPES and the frame models disagree"


_BOOLS = st.booleans()
_INDEX = st.integers(0, 2**16)
_MUTATIONS = st.integers(1, 3)
_HOW = st.sampled_from(["drop", "junk", "add", "type", "int", "wrap"])
_SHAPE = st.integers(0, 999)
_SIZE = st.sampled_from(SIZES)
_BINARY = st.one_of(st.binary(max_size=300), st.just(b""))
# Not UTF-8: a lone continuation byte, an overlong form, a surrogate, bytes UTF-8 never has.
_NOT_UTF8 = st.sampled_from([b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xff", b"\xf5\x80\x80\x80"])
# Half a UTF-16 surrogate pair: no character, but JSON's \u escapes can spell it (sent escaped).
_SURROGATE = st.sampled_from(["\ud800", "\udfff", "a\udbff", "\udc00z", "\ud83d", "id\ud800"])


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
    not UTF-8, a frame with half a surrogate pair, or a frame padded to one of the size classes."""
    shape = draw(_SHAPE)
    if shape < 40:
        return Fuzzed(raw=draw(_raw_text()))
    if shape < 55:
        return Fuzzed(raw=draw(_BINARY), binary=True)
    if shape < 60:
        return Fuzzed(raw=b'{"type":"ping","id":"' + draw(_NOT_UTF8) + b'"}')
    frame = _client_frame(draw, draw(_kind()))
    if shape < 75:
        # A surrogate in a field's value, or in a key of its own.
        if draw(_BOOLS):
            frame[_pick(draw, sorted(frame))] = draw(_SURROGATE)
        else:
            frame[draw(_SURROGATE)] = draw(junk())
        return Fuzzed(value=frame, ascii_only=True)
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
