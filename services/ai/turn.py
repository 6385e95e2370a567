"""The driver: asks a level for the rest of the current turn and returns it as transcript actions.

The roll comes from the dice (the game's, or a seed's), never from the player: a roll that is due
is drawn first, and the player plans with it. The plan is replayed on a fresh copy, so that a
player can only return what the rules allow, and the turn is closed with End Turn when the roll
was not used up.
"""

from __future__ import annotations

import secrets
import time

from boxedin.engine.actions import Action, Draw, EndTurn, Roll
from boxedin.engine.dice import Dice
from boxedin.engine.game import Game

from .context import Evaluator, PlanContext, Player
from .levels import make_player


class PlanError(RuntimeError):
    """A player returned a plan the rules do not allow (a bug in the player)."""


def take_turn(
    game: Game,
    level: str | Player,
    *,
    seed: str | None = None,
    budget: float = 0.7,
    dice: Dice | None = None,
    evaluate: Evaluator | None = None,
) -> list[Action]:
    """The actions the player to move takes from here to the end of their turn.

    ``dice`` gives the roll when one is due (default: the game's own dice, else a die seeded
    with ``seed``); ``seed`` (default: the game's seed) drives the player's own choices.
    """
    if game.over:
        return []
    player = make_player(level) if isinstance(level, str) else level
    seed = seed or game.dice.seed or secrets.token_hex(8)
    started = time.perf_counter()
    pos = game.position.copy()
    me = pos.to_move
    actions: list[Action] = []
    die = game.rules.die
    if die is not None and game.phase == "roll":
        face = (dice or (game.dice if game.dice.seed else Dice(seed))).face(game.rolls, die)
        pos.roll(face)
        actions.append(Roll(face))
    ctx = PlanContext(
        rules=game.rules,
        geo=game.geo,
        seed=seed,
        moves_before=len(game.history),
        budget=budget,
        started=started,
        evaluate=evaluate,
    )
    edges = player.plan(pos.copy(), ctx)
    for edge in edges:
        if pos.over or pos.to_move != me or pos.drawn_by(edge) != 0:
            raise PlanError(f"{player.name} planned edge {edge} where it cannot be drawn")
        pos.draw(edge)
        actions.append(Draw(game.geo.edges[edge]))
    if not pos.over and pos.to_move == me:
        if die is None or pos.drawn_this_turn == 0:
            raise PlanError(f"{player.name} stopped before its turn was over")
        actions.append(EndTurn())
    return actions
