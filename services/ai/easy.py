"""Easy: random edges, always the whole roll; never a dashed (dead) edge while another exists."""

from __future__ import annotations

from .context import PlanContext, Position
from .measures import my_turn


class Easy:
    name = "easy"

    def plan(self, pos: Position, ctx: PlanContext) -> list[int]:
        me = pos.to_move
        drawn: list[int] = []
        while my_turn(pos, me):
            edges = list(pos.open_edge_list())
            live = [e for e in edges if not pos.edge_dead(e)]
            edge = ctx.rng.choice(live or edges)
            pos.draw(edge)
            drawn.append(edge)
        return drawn
