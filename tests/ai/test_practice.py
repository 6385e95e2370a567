"""The practice computer: capture-first groups, the seed choosing, replies after captures."""

from __future__ import annotations

from boxedin.ai.measures import captures
from boxedin.ai.playout import new_shorts
from boxedin.ai.practice import candidate_groups, seeded_index
from boxedin.ai.turn import take_turn
from boxedin.engine.actions import Draw
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES

from ai_helpers import context, new_game


def practice_game(seed: str, size: str = "practice_3x3") -> list:
    """A whole game of the practice computer against itself; the actions."""
    game = Game.from_mode(MODES[size], seed=seed)
    while not game.over:
        for action in take_turn(game, "practice", seed=seed):
            game.apply(action)
    return [a.to_json() for a in game.actions]


def test_every_move_comes_from_the_first_non_empty_group():
    for seed in ("one", "two", "three"):
        game = new_game("practice_4x4", seed=seed)
        while not game.over:
            actions = take_turn(game, "practice", seed=seed)
            for action in actions:
                assert isinstance(action, Draw)
                pos = game.position
                edge = game.geo.edge_id(action.edge)
                edges = list(pos.open_edge_list())
                capturing = [e for e in edges if captures(pos, game.geo, e)]
                quiet = [e for e in edges if e not in capturing and new_shorts(pos, e) == 0]
                group = capturing or quiet or edges
                assert edge in group
                assert group == next(g for g in candidate_groups(pos, context(game, seed)) if g)
                # The seed and the move number select within the group.
                assert edge == group[seeded_index(seed, len(game.history), len(group))]
                game.apply(action)


def test_it_keeps_drawing_after_every_capture():
    game = new_game("practice_3x3", seed="keep")
    while not game.over:
        actions = take_turn(game, "practice", seed="keep")
        player = game.to_move
        for i, action in enumerate(actions):
            move = game.draw(action.edge)
            if i < len(actions) - 1:
                assert move.claimed, "only a capture lets it draw again"
                assert game.to_move == player


def test_the_same_seed_plays_the_same_game_and_another_seed_another():
    assert practice_game("seed-a") == practice_game("seed-a")
    games = {str(practice_game(s)) for s in ("seed-a", "seed-b", "seed-c", "seed-d")}
    assert len(games) > 1
    # Two capture-group sizes are not preferred: a double capture is just one candidate.
    assert seeded_index("x", 3, 1) == 0
