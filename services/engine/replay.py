"""`boxedin replay`: reads a game transcript and prints the state it leads to, or the first error
(the contract is ``shared/spec/replay-format.md``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .actions import Action, GameError, action_from_json, whole_number
from .game import Game
from .rules import Mode, Overlap, RulesError, mode_by_id

Report = dict[str, Any]


class TranscriptError(GameError):
    """An error at one action of a transcript (``index``), or in its header (``index`` None)."""

    def __init__(self, code: str, message: str, index: int | None) -> None:
        super().__init__(code, message)
        self.index = index

    def to_json(self) -> Report:
        return {"error": {"index": self.index, "code": self.code, "message": self.message}}


def _header_error(message: str, code: str = "malformed") -> TranscriptError:
    return TranscriptError(code, message, None)


def read_header(data: object) -> tuple[Mode, Overlap | None, int, list[Any]]:
    """The mode, overlap rule, first player and raw actions of a transcript.

    The header's malformed checks all come before ``overlap_not_allowed``, as in the table.
    """
    if not isinstance(data, dict):
        raise _header_error("a transcript is a JSON object with a mode and a list of actions")
    if "mode" not in data:
        raise _header_error("the transcript names no mode")
    if not isinstance(data["mode"], str):
        raise _header_error(f'the mode is a mode id such as "classic", not {data["mode"]!r}')
    try:
        mode = mode_by_id(data["mode"])
    except RulesError as exc:
        raise _header_error(str(exc)) from None
    overlap: Overlap | None = None
    if "overlap" in data:
        if not isinstance(data["overlap"], str):
            raise _header_error(f'the overlap rule is a rule id such as "consume", not {data["overlap"]!r}')
        try:
            overlap = Overlap.from_id(data["overlap"])
        except RulesError as exc:
            raise _header_error(str(exc)) from None
    first = whole_number(data.get("first", 1))
    if first not in (1, 2):
        raise _header_error(f"first is 1 or 2, not {data['first']!r}")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise _header_error("the transcript has no list of actions")
    if overlap is not None and not mode.rules.has_overlap:
        raise _header_error(f"{mode.name} has 1x1 boxes only and takes no overlap rule", "overlap_not_allowed")
    return mode, overlap, first, actions


def play_transcript(data: object) -> Game:
    """The game a transcript describes, or ``TranscriptError`` at the first action refused."""
    mode, overlap, first, raw_actions = read_header(data)
    game = Game.from_mode(mode, overlap, first=first)
    for index, raw in enumerate(raw_actions):
        try:
            action: Action = action_from_json(raw)
            game.apply(action)
        except GameError as exc:
            raise TranscriptError(exc.code, exc.message, index) from None
    return game


def report(game: Game) -> Report:
    """The replay contract's output for a game."""
    return {
        "scores": list(game.scores),
        "over": game.over,
        "winner": game.winner,
        "to_move": game.to_move,
        "phase": game.phase,
        "edges_left": game.edges_left,
        "round": game.round,
        "squares": [
            {"size": h.square.size, "row": h.square.row, "col": h.square.col, "owner": h.owner}
            for h in game.held_squares()
        ],
        "dead_edges": [game.geo.edges[e].to_json() for e in game.dead_edges()],
        "open_edges": game.open_edge_count,
    }


def parse_json(text: str | bytes) -> object:
    """JSON as the contract reads it: strict (no NaN or Infinity), UTF-8."""

    def refuse_constant(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return json.loads(text, parse_constant=refuse_constant)
    except (ValueError, RecursionError) as exc:
        raise _header_error(f"the transcript is not valid JSON: {exc}") from None


def replay_transcript(data: object) -> tuple[int, Report]:
    """Exit status and output of `boxedin replay` for a transcript (text, bytes or parsed JSON)."""
    try:
        parsed = parse_json(data) if isinstance(data, str | bytes) else data
        return 0, report(play_transcript(parsed))
    except TranscriptError as exc:
        return 1, exc.to_json()


def read_transcript_file(path: str, command: str) -> bytes | None:
    """The bytes of a transcript file, or of standard input for ``-``; None (after saying why on
    standard error) when it cannot be read."""
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        print(f"boxedin {command}: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    text = read_transcript_file(args.file, "replay")
    if text is None:
        return 2
    status, output = replay_transcript(text)
    print(json.dumps(output))
    return status


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay a game transcript and print the state it leads to",
        description="Replays a transcript (replay-format.md) and prints the resulting state as JSON.",
    )
    parser.add_argument("file", metavar="FILE", help="the transcript, or - for standard input")
    parser.set_defaults(handler=run)
