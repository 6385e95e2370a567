"""`boxedin ai turn`: the AI's actions for the player to move in a transcript, to the end of that
player's turn, as ``{"actions": [...]}``. Appended to the transcript they give a valid transcript.
Bad input gets the replay contract's errors (the same JSON error object, exit status 1)."""

from __future__ import annotations

import argparse
import json
import secrets
from typing import Any

from boxedin.engine.dice import Dice, normalise_seed
from boxedin.engine.game import Game
from boxedin.engine.replay import TranscriptError, parse_json, play_transcript, read_transcript_file

from .levels import LEVELS
from .turn import take_turn


def ai_turn(data: object, level: str, seed: str | None = None, budget: float = 0.7) -> tuple[int, Any]:
    """Exit status and output of `boxedin ai turn` for a transcript (text, bytes or parsed)."""
    try:
        parsed = parse_json(data) if isinstance(data, str | bytes) else data
        game: Game = play_transcript(parsed)
        if game.over:
            raise TranscriptError("game_over", "the game is over: there is no turn to play", None)
    except TranscriptError as exc:
        return 1, exc.to_json()
    seed = normalise_seed(seed) if seed and seed.strip() else secrets.token_hex(8)
    actions = take_turn(game, level, seed=seed, budget=budget, dice=Dice(seed))
    return 0, {"actions": [a.to_json() for a in actions]}


def run(args: argparse.Namespace) -> int:
    text = read_transcript_file(args.file, "ai turn")
    if text is None:
        return 2
    status, output = ai_turn(text, args.level, args.seed, args.budget)
    print(json.dumps(output))
    return status


def positive_seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"the budget is a number of seconds above 0, not {text}")
    return value


def register(subparsers: Any) -> Any:
    """Adds `boxedin ai` and its `turn`; returns its sub-commands, where the tools add theirs."""
    parser = subparsers.add_parser("ai", help="the AI players", description="The AI players.")
    commands = parser.add_subparsers(dest="ai_command", required=True, metavar="COMMAND")
    turn = commands.add_parser(
        "turn",
        help="print the AI's actions for the player to move in a transcript",
        description=(
            'Reads a transcript (replay-format.md) and prints {"actions": [...]}: what the AI '
            "does for the player to move, to the end of that player's turn (a roll that is due "
            "is drawn from the seed)."
        ),
    )
    turn.add_argument("--level", required=True, choices=list(LEVELS))
    turn.add_argument("--seed", help="seed for the dice and the AI's choices (default: random)")
    turn.add_argument("--budget", type=positive_seconds, default=0.7, help="Expert's seconds a turn")
    turn.add_argument("file", metavar="FILE", help="the transcript, or - for standard input")
    turn.set_defaults(handler=run)
    return commands
