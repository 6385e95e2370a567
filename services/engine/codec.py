"""A compact, versioned serialisation of a whole game, for storage and transport.

A game is stored as its rules and its actions, not its position: replaying the actions rebuilds
every score, square and owner exactly, the move history and the reach of Undo included, and the
record stays valid when the engine's internal layout changes.

Layout (version 1), big-endian:
    "BX" 0x01 | mode (u8, 255 = custom rules) | [custom: boxes, die, sizes mask, flags]
    | overlap (u8) | first (u8) | options (u8: bit 0 undo allowed)
    | seed length in bytes (u16, 0 = no seed) | seed (UTF-8)
    | action count (u32) | actions (u16 each: kind in the top 3 bits, edge, face or player below)
"""

from __future__ import annotations

import base64
import binascii
import struct
from weakref import WeakKeyDictionary

from .actions import Action, Draw, EndTurn, GameError, Resign, Resume, Roll, Timeout, Undo
from .game import Game
from .rules import MODES, Overlap, RulesError, RuleSet

VERSION = 1
MAGIC = b"BX"
TEXT_PREFIX = "bx1."
_CUSTOM = 255
# Stable numbering of the presets: append only.
_MODE_IDS = (
    "mini", "standard", "quick", "classic", "chain_reaction", "marathon",
    "strategic", "big_squares", "expert", "practice_2x2", "practice_3x3", "practice_4x4",
)  # fmt: skip
_KIND_BITS = 13
_DRAW, _ROLL, _END_TURN, _UNDO, _TIMEOUT, _RESUME, _RESIGN = range(7)


class CodecError(ValueError):
    """Bytes or text that are not a game this engine can restore."""


# Each game as last encoded: its head (rules, first player, options and seed, which never change
# during a game) and its actions, which are only ever appended (an Undo is an action of its own),
# so encoding it again after an action encodes just the new ones. Kept beside the action list it
# was made from and its length then; a game given a new list starts over.
_ENCODED: WeakKeyDictionary[Game, tuple[bytes, list[Action], int, bytearray]] = WeakKeyDictionary()


def encode(game: Game) -> bytes:
    actions = game.actions
    kept = _ENCODED.get(game)
    if kept is None or kept[1] is not actions or kept[2] > len(actions):
        kept = (bytes(_encode_head(game)), actions, 0, bytearray())
    head, _, count, encoded = kept
    for action in actions[count:]:
        encoded += struct.pack(">H", _encode_action(game, action))
    _ENCODED[game] = (head, actions, len(actions), encoded)
    return b"".join((head, struct.pack(">I", len(actions)), encoded))


def _encode_head(game: Game) -> bytearray:
    """Everything before the action count: the rules, the first player, options and seed."""
    out = bytearray(MAGIC)
    out.append(VERSION)
    rules = game.rules
    if game.mode is not None and game.mode.rules.with_overlap(rules.overlap) == rules:
        out.append(_MODE_IDS.index(game.mode.id))
    else:
        out.append(_CUSTOM)
        sizes_mask = sum(1 << (k - 1) for k in rules.sizes)
        flags = rules.capturing_edge_free | rules.capture_owes_line << 1
        out += struct.pack(">BBHB", rules.boxes, rules.die or 0, sizes_mask, flags)
    seed = (game.dice.seed or "").encode()
    out += struct.pack(">BBBH", int(rules.overlap), game.first, int(game.undo_allowed), len(seed))
    out += seed
    return out


def _encode_action(game: Game, action: Action) -> int:
    if isinstance(action, Draw):
        return _DRAW << _KIND_BITS | game.geo.edge_id(action.edge)
    if isinstance(action, Roll):
        assert action.face is not None
        return _ROLL << _KIND_BITS | action.face
    if isinstance(action, Resign):
        return _RESIGN << _KIND_BITS | action.player
    kind = {EndTurn: _END_TURN, Undo: _UNDO, Timeout: _TIMEOUT, Resume: _RESUME}[type(action)]
    return kind << _KIND_BITS


def decode(data: bytes) -> Game:
    """Restores a game; ``CodecError`` when the data is damaged or not a game."""
    try:
        return _decode(memoryview(data))
    except (struct.error, IndexError, UnicodeDecodeError, RulesError, GameError) as exc:
        raise CodecError(f"not a saved game: {exc}") from None


def _decode(data: memoryview) -> Game:
    if bytes(data[:2]) != MAGIC:
        raise CodecError("not a saved game (no BX mark)")
    if data[2] != VERSION:
        raise CodecError(f"saved game version {data[2]} is not supported (this engine reads {VERSION})")
    pos = 3
    mode_index = data[pos]
    pos += 1
    mode = None
    if mode_index == _CUSTOM:
        boxes, die, sizes_mask, flags = struct.unpack_from(">BBHB", data, pos)
        pos += 5
        sizes = tuple(k for k in range(1, 17) if sizes_mask >> (k - 1) & 1)
        base = RuleSet(boxes, die or None, sizes, Overlap.INDEPENDENT, bool(flags & 1), bool(flags & 2))
    elif mode_index < len(_MODE_IDS):
        mode = MODES[_MODE_IDS[mode_index]]
        base = mode.rules
    else:
        raise CodecError(f"unknown mode number {mode_index}")
    overlap, first, options, seed_length = struct.unpack_from(">BBBH", data, pos)
    pos += 5
    seed = bytes(data[pos : pos + seed_length]).decode() if seed_length else None
    pos += seed_length
    try:
        rule = Overlap(overlap)
    except ValueError:
        raise CodecError(f"unknown overlap rule number {overlap}") from None
    rules = base.with_overlap(rule) if rule is not base.overlap else base
    game = Game(rules, mode=mode, first=first, seed=seed, undo_allowed=bool(options & 1))
    (count,) = struct.unpack_from(">I", data, pos)
    pos += 4
    if len(data) != pos + 2 * count:
        raise CodecError(f"the record holds {(len(data) - pos) // 2} actions, not {count}")
    for (word,) in struct.iter_unpack(">H", data[pos:]):
        game.apply(_decode_action(game, word))
    return game


def catch_up(game: Game, data: bytes) -> bool:
    """Brings ``game`` to ``data``, the same game as stored after more actions, by applying only
    the actions it lacks (far cheaper than decoding the whole game). False when ``data`` is not
    this game continued: the game may then be left part way and must be decoded anew."""
    now = encode(game)
    actions_at = len(now) - 2 * len(game.actions)
    if len(data) < len(now) or data[: actions_at - 4] != now[: actions_at - 4]:
        return False
    if data[actions_at : len(now)] != now[actions_at:]:
        return False
    try:
        # (struct.iter_unpack refuses a tail of odd length before any action is applied.)
        for (word,) in struct.iter_unpack(">H", data[len(now) :]):
            game.apply(_decode_action(game, word))
    except (struct.error, GameError, CodecError):
        return False
    return True


def _decode_action(game: Game, word: int) -> Action:
    kind, value = word >> _KIND_BITS, word & ((1 << _KIND_BITS) - 1)
    if kind == _DRAW:
        if value >= game.geo.edge_count:
            raise CodecError(f"edge number {value} is not on the board")
        return Draw(game.geo.edges[value])
    if kind == _ROLL:
        return Roll(value)
    if kind == _RESIGN:
        return Resign(value)
    simple: dict[int, Action] = {_END_TURN: EndTurn(), _UNDO: Undo(), _TIMEOUT: Timeout(), _RESUME: Resume()}
    if kind not in simple:
        raise CodecError(f"unknown action kind {kind}")
    return simple[kind]


def to_text(game: Game) -> str:
    """The serialised game as URL-safe text."""
    return TEXT_PREFIX + base64.urlsafe_b64encode(encode(game)).decode().rstrip("=")


def from_text(text: str) -> Game:
    if not text.startswith(TEXT_PREFIX):
        raise CodecError(f"saved-game text starts with {TEXT_PREFIX!r}")
    body = text[len(TEXT_PREFIX) :]
    try:
        data = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError) as exc:
        raise CodecError(f"saved-game text is not base64: {exc}") from None
    return decode(data)
