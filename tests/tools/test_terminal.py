"""`boxedin play`: the terminal game answers every command, refuses bad input with a reason and
plays a game to its end."""

from __future__ import annotations

import io

from boxedin.engine.board import Edge
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES
from boxedin.tools.terminal import play, render


def run_commands(game: Game, commands: list[str]) -> str:
    out = io.StringIO()
    play(game, io.StringIO("\n".join(commands) + "\n"), out)
    return out.getvalue()


def test_bad_input_is_refused_with_a_reason_and_changes_nothing() -> None:
    game = Game.from_mode(MODES["mini"])
    output = run_commands(game, ["h 0 0", "roll 3", "h a b", "v 9 9", "jump", "end", "quit"])
    assert "Not allowed: roll the die before drawing an edge." in output
    assert "row and column are whole numbers" in output
    assert "Unknown command 'jump'" in output
    assert game.open_edge_count == 24 and game.phase == "draw"


def test_a_whole_practice_game_is_played_to_the_result() -> None:
    game = Game.from_mode(MODES["practice_2x2"])
    edges = [f"{e.orientation} {e.row} {e.col}" for e in game.geo.edges]
    output = run_commands(game, edges)
    assert game.over
    assert any(result in output for result in ("Player 1 wins", "Player 2 wins", "It's a tie"))


def test_the_board_shows_edges_and_the_holders_of_boxes() -> None:
    game = Game.from_mode(MODES["practice_2x2"])
    for edge in (Edge("h", 0, 0), Edge("h", 1, 0), Edge("v", 0, 0), Edge("v", 0, 1)):
        game.draw(edge)
    board = render(game).splitlines()
    # Player 1 drew h0,0 and h1,0... turns alternate: h0,0 P1, h1,0 P2, v0,0 P1, v0,1 P2 (captures).
    assert board[1].startswith(" 0  +---+")
    assert board[2].startswith("    | B !")
