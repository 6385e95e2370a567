"""The review of a finished game (boxedin.ai.review): exact where it says so, blunders found and
marked, and a transcript that replays to the same game."""

from __future__ import annotations

import random

from boxedin.ai.evaluation import after_turn
from boxedin.ai.playout import margin
from boxedin.ai.review import biggest_mistakes, review_turn, transcript, turns_of
from boxedin.ai.solver import best_dice_turn, solve_standard
from boxedin.engine.actions import edge_from_json
from boxedin.engine.game import Game
from boxedin.engine.replay import play_transcript
from boxedin.engine.rules import mode_by_id


def _random_game(mode: str, seed: int) -> Game:
    game = Game.from_mode(mode_by_id(mode), seed=f"review-{seed}")
    rng = random.Random(seed)
    while not game.over:
        if game.phase == "roll":
            game.roll()
            continue
        game.draw(game.geo.edges[rng.choice(game.position.open_edge_list())])
        if game.rules.die and not game.over and game.can_end_turn and rng.random() < 0.3:
            game.end_turn()
    return game


def _solved_margin(pos: object, me: int) -> int:
    if pos.over:  # type: ignore[attr-defined]
        return margin(pos, me)  # type: ignore[arg-type]
    value = solve_standard(pos.copy()).value  # type: ignore[attr-defined]
    return margin(pos, me) + (value if pos.to_move == me else -value)  # type: ignore[arg-type, attr-defined]


def test_standard_3x3_every_turn_equals_the_exact_solver() -> None:
    for seed in (1, 2):
        game = _random_game("practice_3x3", seed)
        plays = turns_of(game)
        assert plays and sum(len(p.edges) for p in plays) == 24
        for play in plays:
            review = review_turn(game, play)
            me = play.player - 1
            before = _solved_margin(play.position, me)
            after = _solved_margin(after_turn(play.position, play.edges, None), me)
            assert review.exact
            assert (review.before, review.after, review.loss) == (before, after, before - after)
            best = tuple(game.geo.edge_id(edge_from_json(e)) for e in review.best)
            assert _solved_margin(after_turn(play.position, best, None), me) == before


def test_opening_a_long_chain_early_in_standard_is_found_and_marked() -> None:
    """Player 1 draws safe lines, then opens the three-box chain along the top while safe lines
    are still left; then both play perfectly, and that one turn is player 1's mistake."""
    mode = mode_by_id("practice_3x3")
    game = Game.from_mode(mode, first=1)
    # The top row of boxes becomes a chain of three (its top and bottom sides drawn), the rest
    # of the board still has safe lines. Each pair: a line of player 1, one of player 2.
    for edge in (["h", 0, 0], ["h", 1, 0], ["h", 0, 1], ["h", 1, 1], ["h", 0, 2], ["h", 1, 2]):
        game.draw(edge_from_json(edge))
    blunder_turn = int(game.position.turn)
    game.draw(edge_from_json(["v", 0, 0]))  # player 1 opens the chain
    while not game.over:  # from here on, both play perfectly
        for edge in solve_standard(game.position.copy()).line:
            game.draw(game.geo.edges[edge])
    reviews = [review_turn(game, p) for p in turns_of(game)]
    blunder = next(r for r in reviews if r.turn == blunder_turn)
    assert blunder.player == 1 and blunder.exact and blunder.loss >= 2
    assert biggest_mistakes(((r.turn, r.player, r.loss) for r in reviews), 1)[0] == blunder_turn


def test_leaving_a_three_sided_box_in_a_dice_game_is_found_and_marked() -> None:
    """Mini: late in the game the mover, with safe lines left, draws a third side of a box and
    ends the turn; the review says exactly what that cost."""
    game = _dice_position_with_a_choice()
    me = game.position.to_move
    geo = game.geo
    pos = game.position
    third = next(e for e in pos.open_edge_list() if any(pos.missing(q) == 2 for q in geo.squares_on(e)))
    turn = int(pos.turn)
    game.draw(geo.edges[third])
    if not game.over and game.phase == "draw" and game.can_end_turn:
        game.end_turn()
    while not game.over:  # from here on, both play perfectly
        if game.phase == "roll":
            game.roll()
            continue
        perfect = best_dice_turn(game.position.copy(), rules=game.rules)
        assert perfect is not None
        for edge in perfect.edges:
            game.draw(geo.edges[edge])
        if not game.over and game.phase == "draw" and game.can_end_turn:
            game.end_turn()
    plays = turns_of(game)
    play = next(p for p in plays if p.turn == turn)
    review = review_turn(game, play)
    best = best_dice_turn(play.position.copy(), rules=game.rules)
    assert best is not None and review.exact
    after = best_dice_turn(after_turn(play.position, play.edges, game.rules.die), rules=game.rules)
    assert after is not None
    assert review.before == best.margin and review.after == -after.margin
    assert review.loss == best.margin + after.margin > 0.1
    assert review.player - 1 == me
    # The random turns before it may hold bigger mistakes; after it both played perfectly.
    reviews = [review_turn(game, p) for p in plays if p.turn >= turn]
    assert all(r.exact for r in reviews)
    assert biggest_mistakes(((r.turn, r.player, r.loss) for r in reviews), review.player)[0] == turn


def _dice_position_with_a_choice() -> Game:
    """A Mini game, exactly solvable, with the roll made and a safe line and a third side on
    offer to a player who has one line to draw."""
    for seed in range(200):
        game = Game.from_mode(mode_by_id("mini"), seed=f"blunder-{seed}")
        rng = random.Random(seed)
        while not game.over:
            pos = game.position
            if game.phase == "roll":
                if pos.open_edges <= 16:
                    game.roll(1)
                    safe = [e for e in pos.open_edge_list() if all(pos.missing(q) > 2 for q in game.geo.squares_on(e))]
                    squares = range(game.geo.square_count)
                    third_sides = any(pos.missing(q) == 2 for q in squares)
                    if safe and third_sides and not any(pos.missing(q) == 1 for q in squares):
                        best = best_dice_turn(pos.copy(), rules=game.rules)
                        if best is not None and best.edges and best.edges[0] in safe:
                            return game
                    game.draw(game.geo.edges[rng.choice(pos.open_edge_list())])
                else:
                    game.roll()
                continue
            safe = [e for e in pos.open_edge_list() if all(pos.missing(q) > 2 for q in game.geo.squares_on(e))]
            game.draw(game.geo.edges[rng.choice(safe or pos.open_edge_list())])
    raise AssertionError("no Mini position with a choice between a safe line and a third side")


def test_the_transcript_replays_to_the_same_game() -> None:
    for mode, seed in (("classic", 4), ("standard", 5)):
        game = _random_game(mode, seed)
        replayed = play_transcript(transcript(game))
        assert replayed.scores == game.scores and replayed.over
        assert replayed.position.state_array() == game.position.state_array()


def test_an_opening_turn_on_a_big_board_is_estimated_and_says_so() -> None:
    """Standard 5x5's first turn is far outside the solver's reach: Expert's candidates, the
    played turn among them, are played out, and the figures say they are estimated."""
    game = _random_game("standard", 6)
    first = turns_of(game)[0]
    review = review_turn(game, first, estimate_seconds=0.1)
    assert not review.exact
    assert review.loss >= 0 and review.before >= review.after
    assert review.best and review.played == tuple(game.geo.edge_json[e] for e in first.edges)
    if review.loss == 0:
        assert review.best == review.played  # the played turn was the best one found
