"""Each level's rules of play, checked edge by edge on real games (small boards, every kind of
rule set): the properties the rule book's AI section promises."""

from __future__ import annotations

from functools import cache

import pytest

from boxedin.ai.easy import Easy
from boxedin.ai.hard import Hard
from boxedin.ai.measures import score_gain
from boxedin.ai.normal import Normal
from boxedin.ai.playout import margin, new_shorts
from boxedin.ai.turn import take_turn
from boxedin.engine.actions import Action, Draw, EndTurn, Roll
from boxedin.engine.game import Game

from ai_helpers import context, new_game

DICE_CASES = [
    ("mini", None),
    ("quick", None),
    ("chain_reaction", None),
    ("strategic", "exclusive"),
    ("strategic", "consume"),
    ("big_squares", "majority"),
]


@cache
def turns_played(mode: str, overlap: str | None, level: str, seed: str) -> tuple[tuple[Action, ...], ...]:
    """The turns of a whole game of ``mode`` that ``level`` plays for both sides. A level's choices
    follow its seed alone, so the game is played once, however many tests check it."""
    game = new_game(mode, overlap)
    turns = []
    while not game.over:
        actions = take_turn(game, level, seed=f"{seed}:{len(game.history)}", budget=0.02)
        turns.append(tuple(actions))
        for action in actions:
            game.apply(action)
    return tuple(turns)


def play_out(mode: str, overlap: str | None, level: str, check, seed: str = "t") -> None:
    """Plays a game of ``mode`` to the end with ``level`` for both sides, calling
    ``check(game, actions)`` before each turn's actions are applied."""
    game = new_game(mode, overlap)
    for actions in turns_played(mode, overlap, level, seed):
        check(game, list(actions))
        for action in actions:
            game.apply(action)
    assert game.over


def draws(game: Game, actions) -> list[int]:
    return [game.geo.edge_id(a.edge) for a in actions if isinstance(a, Draw)]


@pytest.mark.parametrize(("mode", "overlap"), [*DICE_CASES, ("standard", None)])
def test_easy_uses_the_whole_roll_and_never_a_dead_edge_while_another_exists(mode, overlap):
    def check(game: Game, actions) -> None:
        assert not any(isinstance(a, EndTurn) for a in actions), "Easy never ends a turn early"
        pos = game.position.copy()
        for a in actions:
            if isinstance(a, Roll):
                pos.roll(a.face)
                continue
            edge = game.geo.edge_id(a.edge)
            live = [e for e in pos.open_edge_list() if not pos.edge_dead(e)]
            if live:
                assert edge in live
            pos.draw(edge)

    play_out(mode, overlap, "easy", check)


@pytest.mark.parametrize(("mode", "overlap"), [*DICE_CASES, ("standard", None)])
def test_normal_takes_the_most_points_else_leaves_no_square_one_edge_short(mode, overlap):
    def check(game: Game, actions) -> None:
        assert not any(isinstance(a, EndTurn) for a in actions), "Normal uses the whole roll"
        pos = game.position.copy()
        for a in actions:
            if isinstance(a, Roll):
                pos.roll(a.face)
                continue
            edge = game.geo.edge_id(a.edge)
            edges = list(pos.open_edge_list())
            gains = {e: score_gain(pos, e) for e in edges}
            best = max(gains.values())
            if best > 0:
                assert gains[edge] == best
            else:
                shorts = {e: new_shorts(pos, e) for e in edges}
                # Never leaves a square one edge short while another edge exists.
                assert shorts[edge] == min(shorts.values())
            pos.draw(edge)

    play_out(mode, overlap, "normal", check)


@pytest.mark.parametrize(("mode", "overlap"), DICE_CASES)
def test_hard_leaves_a_square_one_short_only_when_no_earlier_stop_without_one_is_worth_as_much(
    mode, overlap
):
    """If Hard's turn ends with a capturable square one edge short, every earlier place to stop
    (after its first edge) that left none short is worth less by Hard's balance, which counts
    the reply taking that square (the rule book: "Leave Nothing Cheap Behind", "it ends turns
    early instead of setting squares up for you")."""
    from boxedin.ai.hard import turn_value

    def check(game: Game, actions) -> None:
        pos = game.position.copy()
        for a in actions:
            if isinstance(a, Roll):
                pos.roll(a.face)
        start = pos.copy()
        turn = tuple(draws(game, actions))
        shorts_after: list[int] = []
        for edge in turn:
            pos.draw(edge)
            if not pos.over:
                shorts_after.append(pos.one_short())
        if pos.over or not shorts_after or shorts_after[-1] == 0:
            return
        die = game.rules.die
        whole = turn_value(start, turn, die)
        for n, shorts in enumerate(shorts_after[:-1], start=1):
            if shorts == 0:
                assert turn_value(start, turn[:n], die) < whole - 1e-9, f"could have stopped after {n}"

    play_out(mode, overlap, "hard", check)


@pytest.mark.parametrize(("mode", "overlap"), DICE_CASES)
def test_hard_takes_a_square_one_edge_short_that_pays(mode, overlap):
    """Whenever a square one edge short pays its points outright, Hard's turn gains something."""

    def check(game: Game, actions) -> None:
        pos = game.position.copy()
        me = pos.to_move
        before = margin(pos, me)
        edges_by_gain = None
        for a in actions:
            if isinstance(a, Roll):
                pos.roll(a.face)
                edges_by_gain = [score_gain(pos, e) for e in pos.open_edge_list()]
            elif isinstance(a, Draw):
                pos.draw(game.geo.edge_id(a.edge))
        if edges_by_gain and max(edges_by_gain) > 0 and game.rules.overlap.id == "independent":
            assert margin(pos, me) > before

    play_out(mode, overlap, "hard", check)


def test_hard_in_standard_takes_every_box_then_safe_lines_then_the_cheapest_chain():
    from boxedin.ai.hard import opening_cost
    from boxedin.ai.measures import captures

    def check(game: Game, actions) -> None:
        pos = game.position.copy()
        for edge in draws(game, actions):
            edges = list(pos.open_edge_list())
            taking = [e for e in edges if captures(pos, game.geo, e)]
            safe = [e for e in edges if new_shorts(pos, e) == 0]
            if taking:
                assert edge in taking
            elif safe:
                assert edge in safe
            else:
                assert opening_cost(pos, edge) == min(opening_cost(pos, e) for e in edges)
            pos.draw(edge)

    for seed in ("a", "b"):
        play_out("standard", None, "hard", check, seed)


@pytest.mark.parametrize("level", [Easy, Normal, Hard])
def test_turns_are_reproducible_from_the_seed(level):
    game = new_game("strategic", "takeover")
    first = take_turn(game, level(), seed="same")
    again = take_turn(game, level(), seed="same")
    assert first == again


@pytest.mark.parametrize(("mode", "overlap"), [("strategic", None), ("quick", None)])
def test_hard_stops_its_dice_turn_where_the_balance_is_best(mode, overlap):
    """Hard plans the whole turn: where it stops (when the one-short rule does not cut the turn),
    stopping is worth at least as much as after any earlier step of the same turn."""
    from boxedin.ai.hard import hard_dice_steps, stop_balance

    checked = 0

    def check(game: Game, actions) -> None:
        nonlocal checked
        pos = game.position.copy()
        if game.phase == "roll":
            roll = next(a for a in actions if isinstance(a, Roll))
            pos.roll(roll.face)
        me, die = pos.to_move, game.rules.die
        start = margin(pos, me)
        ctx = context(game, seed=f"c{len(game.history)}")
        plan = pos.copy()
        steps = hard_dice_steps(plan, ctx)
        if plan.over or plan.one_short() > 0:
            return
        final = stop_balance(plan, me, start, die)
        # Every earlier stopping point of the same turn.
        replay = pos.copy()
        for step in steps[:-1]:
            for e in step.edges:
                replay.draw(e)
            assert stop_balance(replay, me, start, die) <= final + 1e-9
        checked += 1

    play_out(mode, overlap, "hard", check)
    assert checked > 10
