"""The practice computer of the second seed: capture-first groups, the seed choosing.

On every move it takes the first non-empty group: (1) edges that complete a box; (2) edges that
add a third side to no unclaimed box; (3) every open edge. The game's seed string and the number
of the move select one edge of the group (edges in id order), so the same seed replays the same
game; a move closing two boxes is not preferred over one closing one. It chooses again after
every capture while it keeps the turn (and in a dice game until the roll is used up).
"""

from __future__ import annotations

import hashlib

from .context import PlanContext, Position
from .measures import captures, my_turn
from .playout import new_shorts


def seeded_index(seed: str, move: int, count: int) -> int:
    """A deterministic choice among ``count`` candidates for move number ``move``."""
    digest = hashlib.sha256(f"{seed}\x00practice\x00{move}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count


def candidate_groups(pos: Position, ctx: PlanContext) -> list[list[int]]:
    edges = list(pos.open_edge_list())
    capturing = [e for e in edges if captures(pos, ctx.geo, e)]
    quiet = [e for e in edges if e not in capturing and new_shorts(pos, e) == 0]
    return [capturing, quiet, edges]


class Practice:
    name = "practice"

    def plan(self, pos: Position, ctx: PlanContext) -> list[int]:
        me = pos.to_move
        drawn: list[int] = []
        while my_turn(pos, me):
            group = next(g for g in candidate_groups(pos, ctx) if g)
            edge = group[seeded_index(ctx.seed, ctx.moves_before + len(drawn), len(group))]
            pos.draw(edge)
            drawn.append(edge)
        return drawn
