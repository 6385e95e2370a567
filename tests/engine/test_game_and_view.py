"""The game as the services use it: refused actions change nothing, the move history, Undo's
limits (move clock, resumed games), and the client view with its edge previews."""

from __future__ import annotations

import random

import pytest

from boxedin.engine import codec
from boxedin.engine.actions import Draw, EndTurn, GameError, Roll, Timeout, Undo
from boxedin.engine.board import Edge, Square
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Overlap
from boxedin.engine.view import game_view

TOP_ROW_CHAIN = [Edge("h", 0, c) for c in range(3)] + [Edge("h", 1, c) for c in range(3)] + [
    Edge("v", 0, 0), Edge("v", 0, 3)
]  # fmt: skip


def tiled_exclusive_strategic() -> Game:
    """Strategic under Exclusive, its top-left 8 x 8 boxes tiled with sixteen 2x2s: every edge
    but the 64 inside those 2x2s is drawn, in edge order, rolling 8 every turn. Each 2x2 is
    captured when its outline closes, so the boxes inside can never be captured: the game stops
    with those 64 edges open."""
    inside = {
        Edge(o, r, c)
        for top in range(0, 8, 2)
        for left in range(0, 8, 2)
        for o, r, c in (("h", top + 1, left), ("h", top + 1, left + 1), ("v", top, left + 1), ("v", top + 1, left + 1))
    }
    game = Game.from_mode(MODES["strategic"], Overlap.EXCLUSIVE)
    for edge in (e for e in game.geo.edges if e not in inside):
        if game.phase == "roll":
            game.roll(8)
        game.draw(edge)
    return game


def practice_with(edges: list[Edge]) -> Game:
    game = Game.from_mode(MODES["practice_3x3"])
    for edge in edges:
        game.draw(edge)
    return game


def test_refused_actions_leave_the_game_exactly_as_it_was() -> None:
    rng = random.Random(5)
    game = Game.from_mode(MODES["strategic"], Overlap.TAKEOVER)
    refused = 0
    for _ in range(400):
        if game.over:
            break
        action = rng.choice([
            Roll(rng.randint(0, 9)), EndTurn(), Undo(), Timeout(),
            Draw(Edge(rng.choice("hv"), rng.randint(-1, 10), rng.randint(-1, 10))),
        ])  # fmt: skip
        state, actions, history = game.position.state_array(), list(game.actions), list(game.history)
        try:
            game.apply(action)
        except GameError:
            refused += 1
            assert (game.position.state_array(), game.actions, game.history) == (state, actions, history)
    assert refused > 50


def test_the_move_history_names_player_edge_squares_and_points() -> None:
    game = practice_with(TOP_ROW_CHAIN)
    move = game.draw(Edge("v", 0, 1))
    assert (move.player, move.edge, move.claimed, move.score_change) == (
        1,
        Edge("v", 0, 1),
        (Square(1, 0, 0),),
        (1, 0),
    )
    move = game.draw(Edge("v", 0, 2))
    assert move.claimed == (Square(1, 0, 1), Square(1, 0, 2)) and move.score_change == (2, 0)
    assert [m.edge for m in game.history][-2:] == [Edge("v", 0, 1), Edge("v", 0, 2)]
    assert game.history[0].to_json() == {
        "turn": 0,
        "player": 1,
        "edge": ["h", 0, 0],
        "changes": [],
        "score_change": [0, 0],
    }


def test_standard_undo_takes_back_a_capture_and_its_points() -> None:
    game = practice_with(TOP_ROW_CHAIN)
    game.draw(Edge("v", 0, 1))
    assert game.can_undo and game.scores == (1, 0)
    taken_back = game.undo()
    assert taken_back.edge == Edge("v", 0, 1) and game.scores == (0, 0) and not game.can_undo


def test_no_undo_with_a_move_clock() -> None:
    game = Game.from_mode(MODES["classic"], undo_allowed=False)
    game.roll(3)
    game.draw(Edge("h", 0, 0))
    assert not game.can_undo
    with pytest.raises(GameError) as info:
        game.undo()
    assert info.value.code == "undo_not_allowed"


def test_a_resumed_game_starts_with_an_empty_undo_and_keeps_the_unused_roll() -> None:
    game = Game.from_mode(MODES["classic"], seed="resume me")
    game.roll(5)
    game.draw(Edge("h", 0, 0))
    restored = codec.decode(codec.encode(game))
    assert restored.can_undo and restored.edges_left == 4
    restored.resume()
    assert not restored.can_undo and restored.edges_left == 4 and restored.current_roll == 5
    again = codec.decode(codec.encode(restored))
    assert not again.can_undo
    again.draw(Edge("h", 0, 1))
    assert again.can_undo
    again.undo()
    assert not again.can_undo


def test_a_timeout_before_the_roll_passes_the_turn_and_rounds_count_from_the_first_mover() -> None:
    game = Game.from_mode(MODES["classic"], first=2)
    assert (game.to_move, game.round) == (2, 1)
    game.timeout()
    assert (game.to_move, game.round, game.phase) == (1, 1, "roll")
    game.timeout()
    assert (game.to_move, game.round) == (2, 2)


def test_previews_show_captures_continuation_and_three_sided_boxes() -> None:
    game = practice_with(TOP_ROW_CHAIN)
    previews = game_view(game)["previews"]
    assert previews["v0,1"] == {
        "dead": False,
        "captures": [{"size": 1, "row": 0, "col": 0, "kind": "captured", "player": 1, "points": 1}],
        "score_change": [1, 0],
        "continuation": 2,
        "one_short": 0,
    }
    # A line that captures nothing: the boxes already three-sided still count.
    assert previews["h3,0"] == {
        "dead": False,
        "captures": [],
        "score_change": [0, 0],
        "continuation": 0,
        "one_short": 2,
    }
    # Previewing changed nothing.
    assert game_view(game, previews=False) == {k: v for k, v in game_view(game).items() if k != "previews"}


def test_previews_in_a_dice_game_stop_when_the_roll_is_used_up() -> None:
    def preview_with_roll(face: int) -> dict[str, object]:
        game = Game.from_mode(MODES["mini"])
        for turn in (TOP_ROW_CHAIN[:4], TOP_ROW_CHAIN[4:]):
            game.roll(4)
            for edge in turn:
                game.draw(edge)
        game.roll(face)
        preview: dict[str, object] = game_view(game)["previews"]["v0,1"]
        return preview

    assert preview_with_roll(1)["score_change"] == [1, 0]
    assert preview_with_roll(1)["continuation"] == 0
    assert preview_with_roll(2)["continuation"] == 2


def test_view_of_a_finished_exclusive_game_reports_dead_edges_and_open_edges() -> None:
    rng = random.Random(3)
    game = Game.from_mode(MODES["strategic"], Overlap.EXCLUSIVE)
    while not game.over:
        if game.phase == "roll":
            game.roll(rng.randint(1, 8))
        else:
            game.draw(game.geo.edges[rng.choice(game.position.open_edge_list())])
    view = game_view(game)
    assert view["over"] and "previews" not in view
    assert view["ended_with_open_edges"] == (view["open_edges"] > 0)
    assert len(view["dead_edges"]) == view["open_edges"]
    assert sum(sq["size"] ** 2 for sq in view["squares"]) == sum(view["scores"]) == 81


def test_a_game_that_stopped_with_no_scoring_move_left_says_so() -> None:
    game = tiled_exclusive_strategic()
    view = game_view(game)
    assert view["over"] and view["resigned"] is None
    assert view["open_edges"] == len(view["dead_edges"]) == 64
    assert view["ended_with_open_edges"] is True


def test_a_forfeit_never_says_no_scoring_move_was_left() -> None:
    # Rules notes, Forfeits: a game lost by Leave, a grace or a move limit (stored as the
    # loser's resignation) ends with its own reason, however many edges are open.
    game = Game.from_mode(MODES["mini"])
    game.roll(4)
    game.draw(Edge("h", 0, 0))
    game.resign(1)
    view = game_view(game, previews=False)
    assert view["over"] and view["open_edges"] == 23
    assert view["ended_with_open_edges"] is False


def test_territory_view_lists_box_holders() -> None:
    game = Game.from_mode(MODES["strategic"], Overlap.TERRITORY)
    game.roll(4)
    for edge in (Edge("h", 0, 0), Edge("h", 1, 0), Edge("v", 0, 0), Edge("v", 0, 1)):
        game.draw(edge)
    view = game_view(game, previews=False)
    assert view["box_holders"][0] == 1 and view["box_holders"][1] is None and view["scores"] == [1, 0]


def test_a_resigned_game_is_over_the_other_player_wins_and_it_survives_serialisation() -> None:
    game = Game.from_mode(MODES["classic"])
    game.roll(2)
    game.draw(Edge("h", 0, 0))
    game.resign(1)
    assert (game.over, game.winner, game.phase, game.to_move, game.can_undo) == (True, 2, "over", None, False)
    with pytest.raises(GameError) as info:
        game.draw(Edge("h", 0, 1))
    assert info.value.code == "game_over"
    restored = codec.decode(codec.encode(game))
    assert (restored.winner, restored.resigned) == (2, 1)
    assert game_view(restored, previews=False)["resigned"] == 1
