"""Expert's link to the exact solver (``boxedin.ai.solver``, written separately).

The solver module is imported when first needed. When it is missing, ``SOLVER_MISSING`` says why
and Expert estimates every position instead (the playouts), which is weaker in endgames but
plays the same rules; nothing pretends to be exact. When the solver runs out of time it returns
None and Expert falls back to the playouts for that turn.
"""

from __future__ import annotations

import importlib
import time
from types import ModuleType

from boxedin.engine.rules import Overlap

from .context import PlanContext, Position

EXACT_OPEN_EDGES = 14
# Earlier than the rule book's 14 open lines, Expert plays exactly wherever the dice table is
# cheap: at most this many values, (faces + 1) per set of drawn lines. 2**21 is 18 open lines with
# a d6 (0.09 s on this machine) and 17 with a d8 to d12.
EARLY_TABLE_CELLS = 1 << 21
SOLVER_MISSING: str | None = None


def solver() -> ModuleType | None:
    global SOLVER_MISSING
    try:
        return importlib.import_module("boxedin.ai.solver")
    except ImportError as exc:
        SOLVER_MISSING = f"boxedin.ai.solver is not available ({exc}); Expert estimates endgames"
        return None


def exact_dice_applies(ctx: PlanContext, open_edges: int) -> bool:
    """The rule book: 1x1 dice modes other than chain_reaction, and the larger modes under
    independent, once 14 or fewer edges are open; and a few lines earlier where the table of
    every set of drawn lines is small (``EARLY_TABLE_CELLS``)."""
    rules = ctx.rules
    if rules.die is None:
        return False
    if open_edges > EXACT_OPEN_EDGES and (rules.die + 1) << open_edges > EARLY_TABLE_CELLS:
        return False
    if rules.has_overlap:
        return rules.overlap is Overlap.INDEPENDENT
    return not rules.capturing_edge_free


def exact_dice_turn(pos: Position, ctx: PlanContext) -> tuple[int, ...] | None:
    """The exact best turn (expectimax over the die), or None when it does not apply."""
    if not exact_dice_applies(ctx, pos.open_edges):
        return None
    module = solver()
    if module is None:
        return None
    turn = module.best_dice_turn(pos.copy(), deadline=_deadline(ctx), rules=ctx.rules)
    if turn is None:
        return None
    return tuple(turn.edges)


def exact_standard_line(pos: Position, ctx: PlanContext) -> tuple[int, ...] | None:
    """The exact best line for this turn in standard, once the endgame is small enough."""
    module = solver()
    if module is None or not module.standard_endgame_small_enough(pos, ctx.rules):
        return None
    result = module.solve_standard(pos.copy(), deadline=_deadline(ctx), rules=ctx.rules)
    if result is None:
        return None
    return tuple(result.line)


def _deadline(ctx: PlanContext) -> float:
    # The solver gets most of the turn's budget; the rest is for the playouts if it gives up.
    return time.perf_counter() + max(0.05, (ctx.deadline - time.perf_counter()) * 0.7)
