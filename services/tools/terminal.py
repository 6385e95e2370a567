"""`boxedin play`: a local two-player game in the terminal, on the engine (until the web client
and its services exist, this is what the README's run command starts)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from boxedin.engine.actions import GameError, edge_from_json
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap, RulesError, mode_by_id

HELP = """Commands:
  h ROW COL / v ROW COL   draw an edge (h: across from dot ROW,COL; v: down from it)
  roll                    roll the die (dice games)
  end                     end your turn (dice games, after your first edge)
  undo                    take back your last edge of this turn
  help                    this text
  quit                    leave the game"""

_MARKS = {1: "A", 2: "B"}


def render(game: Game) -> str:
    """The board as text: P1's edges as - and |, P2's as = and !, boxes marked A or B by the
    players holding a square over them (* for both)."""
    n = game.rules.boxes
    drawn = {(e.orientation, e.row, e.col): game.drawn_by(i) for i, e in enumerate(game.geo.edges)}
    holders: dict[tuple[int, int], set[int]] = {}
    if game.rules.overlap is Overlap.TERRITORY:
        for b, holder in enumerate(game.box_holders()):
            if holder:
                holders[divmod(b, n)] = {holder}
    else:
        for held in game.held_squares():
            sq = held.square
            for r in range(sq.row, sq.row + sq.size):
                for c in range(sq.col, sq.col + sq.size):
                    holders.setdefault((r, c), set()).add(held.owner)
    lines = ["    " + "".join(f"{c:<4}" for c in range(n + 1))]
    for r in range(n + 1):
        row = f"{r:>2}  +"
        for c in range(n):
            row += {None: "   ", 1: "---", 2: "==="}[drawn[("h", r, c)]] + "+"
        lines.append(row)
        if r == n:
            break
        row = "    "
        for c in range(n + 1):
            row += {None: " ", 1: "|", 2: "!"}[drawn[("v", r, c)]]
            if c < n:
                owners = holders.get((r, c), set())
                mark = "*" if len(owners) == 2 else _MARKS[next(iter(owners))] if owners else " "
                row += f" {mark} "
        lines.append(row)
    return "\n".join(lines)


def status(game: Game) -> str:
    a, b = game.scores
    text = f"Round {game.round}   A (Player 1): {a}   B (Player 2): {b}"
    if game.over:
        result = {0: "It's a tie", 1: "Player 1 wins", 2: "Player 2 wins"}[game.winner or 0]
        note = (
            "" if not game.open_edge_count else "\nNo scoring moves were left, so the game ended with edges still open."
        )
        return f"{text}\n{result}!{note}"
    player = f"Player {game.to_move}"
    if game.phase == "roll":
        return f"{text}\n{player} — roll the dice (rolls 1–{game.rules.die})"
    if game.edges_left is not None:
        return f"{text}\n{player} — {game.edges_left} of {game.current_roll} edges left"
    owes = " (complete a square to go again!)" if game.drawn_this_turn else ""
    return f"{text}\n{player} — draw a line{owes}"


def play(game: Game, stdin: TextIO, stdout: TextIO) -> int:
    def say(text: str) -> None:
        print(text, file=stdout, flush=True)

    say(HELP)
    while not game.over:
        say(f"\n{render(game)}\n{status(game)}")
        stdout.write("> ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            return 0
        words = line.split()
        if not words:
            continue
        command = words[0].lower()
        try:
            if command in ("q", "quit", "exit"):
                return 0
            if command in ("?", "help"):
                say(HELP)
            elif command in ("r", "roll"):
                say(f"Rolled {game.roll()}.")
            elif command in ("e", "end"):
                game.end_turn()
            elif command in ("u", "undo"):
                say(f"Took back {game.undo().edge}.")
            elif command in ("h", "v") and len(words) == 3:
                try:
                    edge = edge_from_json([command, int(words[1]), int(words[2])])
                except ValueError:
                    raise GameError("malformed", "row and column are whole numbers, such as: h 0 2") from None
                move = game.draw(edge)
                for c in move.changes:
                    sq = c.square
                    where = f"{sq.size}x{sq.size} at {sq.row},{sq.col}"
                    say(f"{c.kind} {where} ({c.points:+d} for Player {c.player})")
            else:
                say(f"Unknown command {line.strip()!r}: type help for the commands.")
        except GameError as exc:
            say(f"Not allowed: {exc.message}.")
    say(f"\n{render(game)}\n{status(game)}")
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        mode = mode_by_id(args.mode)
        overlap = Overlap.from_id(args.overlap) if args.overlap else None
        game = Game.from_mode(mode, overlap, first=args.first, seed=args.seed)
    except (RulesError, GameError) as exc:
        print(f"boxedin play: {exc}", file=sys.stderr)
        return 2
    return play(game, sys.stdin, sys.stdout)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("play", help="play a local two-player game in the terminal")
    parser.add_argument("--mode", default="classic", help=f"one of {', '.join(MODES)} (default classic)")
    parser.add_argument("--overlap", help="overlap rule, for strategic, big_squares and expert")
    parser.add_argument("--first", type=int, choices=(1, 2), default=1, help="who moves first")
    parser.add_argument("--seed", help="a seed (1 to 96 characters) for reproducible dice")
    parser.set_defaults(handler=run)
