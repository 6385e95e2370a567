"""The reference perfect player of `boxedin match`, the arena (issue 17): exact play from the first turn on
boards of 24 lines (with dice) and up to 3x3 (without), the yardstick of what the dice allow;
never offered to players. And `--board`, the dice boards of their own it is measured on."""

from __future__ import annotations

import argparse
import json

import pytest

from boxedin.ai._dice_search import DiceSearch
from boxedin.ai.levels import LEVELS
from boxedin.ai.playout import margin
from boxedin.ai.turn import take_turn
from boxedin.cli import main
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap, RuleSet
from boxedin.tools.arena.perfect import Perfect, perfect_refusal
from boxedin.tools.arena.players import ARENA_LEVELS, make_player
from boxedin.tools.arena.series import MatchSpec, dice_board, play_game

from ai_helpers import context, rolled


def assert_perfects_turn_is_best(game: Game) -> None:
    """The margin Perfect's turn gains, less the opponent's exact value after it, is the best
    value the general expectimax search (``DiceSearch``) finds from the rolled position."""
    pos = game.position.copy()
    me = pos.to_move
    die = game.rules.die
    assert die is not None
    best = DiceSearch(pos.copy(), die, True).best_turn(0.0)
    assert best is not None
    after = pos.copy()
    turn = Perfect().plan(after, context(game))
    assert turn and all(pos.drawn_by(e) == 0 for e in turn)
    gained = margin(after, me) - margin(pos, me)
    if not after.over and after.to_move == me:
        after.end_turn()  # a turn ended early: the driver ends it
    reply = 0.0 if after.over else DiceSearch(after.copy(), die, True).best_turn(0.0)[0]
    assert gained - reply == pytest.approx(best[0], abs=1e-9)


def test_perfect_is_a_level_for_matches_only():
    assert "perfect" not in LEVELS and "perfect" in ARENA_LEVELS
    assert make_player("perfect").name == "perfect"


def test_perfect_plays_mini_and_says_why_not_elsewhere():
    assert perfect_refusal(MODES["mini"].rules) is None
    assert perfect_refusal(MODES["practice_3x3"].rules) is None
    assert perfect_refusal(MODES["standard"].rules) == "without dice perfect plays boards of at most 3x3 boxes"
    consume = MODES["strategic"].rules_with(Overlap.CONSUME)
    assert perfect_refusal(consume) == "perfect needs 1x1 boxes or the independent overlap rule"
    refusal = perfect_refusal(MODES["classic"].rules)
    assert refusal is not None and "not 112 lines with a d6" in refusal


@pytest.mark.parametrize("seed", ["p1", "p2", "p3", "p4"])
def test_perfects_turn_is_worth_the_best_the_general_search_finds(seed):
    # The table is solved once from the empty board; a later position is looked up by its drawn
    # lines. The general expectimax search, started afresh from the position, must agree: the
    # margin the turn gains less the opponent's exact value after it is the best value there is.
    game = rolled("mini", moves=11, seed=seed)
    assert_perfects_turn_is_best(game)


def test_perfect_beats_hard_on_mini_and_the_match_refuses_classic(capsys):
    assert main(["match", "--a", "perfect", "--b", "hard", "--mode", "mini", "--games", "200", "--seed", "p"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 200
    assert summary["mean_margin"] > 0  # +0.29 a game over 2,000 games (seed mini1)
    assert main(["match", "--a", "hard", "--b", "perfect", "--mode", "classic", "--games", "2", "--seed", "p"]) == 2
    assert "perfect plays boards of at most 24 lines" in capsys.readouterr().err


def test_a_board_of_its_own_is_boxes_die_and_sizes():
    assert dice_board("3:6") == RuleSet(3, 6)
    assert dice_board("2:8:1,2") == RuleSet(2, 8, (1, 2), Overlap.INDEPENDENT)
    for text, reason in [("3", "a board is BOXES:DIE"), ("3:x", "a board is BOXES:DIE"), ("2:6:1,3", "does not fit")]:
        with pytest.raises(argparse.ArgumentTypeError, match=reason):
            dice_board(text)


def test_perfect_plays_larger_squares_under_the_independent_rule_on_a_board_of_its_own(capsys):
    # 2x2 boxes with one 2x2 square, a d8: Perfect's turns are worth the general search's best.
    rules = RuleSet(2, 8, (1, 2), Overlap.INDEPENDENT)
    for seed in ("q1", "q2", "q3"):
        game = Game(rules, seed=seed)
        while not game.over:
            if game.phase == "roll":
                game.roll()
            assert_perfects_turn_is_best(game)
            for action in take_turn(game, Perfect(), seed=seed):  # the same turn, played
                game.apply(action)
    assert main(["match", "--a", "perfect", "--b", "greedy", "--board", "2:8:1,2", "--games", "4", "--seed", "b"]) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "board 2:8:1,2"
    assert main(["match", "--a", "hard", "--b", "greedy", "--board", "2:6", "--overlap", "consume", "--games", "2",
                 "--seed", "b"]) == 2
    assert "takes no --overlap" in capsys.readouterr().err


def test_without_dice_perfect_loses_no_pair_of_games():
    # No dice: the first player's best result is fixed, so over a pair of games with the seats
    # swapped a perfect player cannot come out behind, whoever it plays.
    spec = MatchSpec("perfect", "hard", "practice_2x2", None, "s", 0.05)
    margins = [play_game(spec, i).margin_a for i in range(6)]
    assert all(margins[i] + margins[i + 1] >= 0 for i in range(0, 6, 2))
    assert sum(margins) > 0  # Hard does not take the double-cross into account: it loses boxes
