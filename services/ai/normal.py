"""Normal: one edge at a time, the whole roll. (1) The edge that raises its score most, under the
game's overlap rule; (2) else a random edge that leaves no square one edge short; (3) else the
edge that leaves the fewest squares one edge short."""

from __future__ import annotations

from .context import PlanContext, Position
from .measures import my_turn, score_gain
from .playout import new_shorts


def normal_edge(pos: Position, ctx: PlanContext) -> int:
    edges = list(pos.open_edge_list())
    gains = [score_gain(pos, e) for e in edges]
    best = max(gains)
    if best > 0:
        return ctx.rng.choice([e for e, g in zip(edges, gains, strict=True) if g == best])
    # "Leaves a square one edge short": the edge makes a capturable square one edge short.
    shorts = [new_shorts(pos, e) for e in edges]
    fewest = min(shorts)
    return ctx.rng.choice([e for e, s in zip(edges, shorts, strict=True) if s == fewest])


class Normal:
    name = "normal"

    def plan(self, pos: Position, ctx: PlanContext) -> list[int]:
        me = pos.to_move
        drawn: list[int] = []
        while my_turn(pos, me):
            edge = normal_edge(pos, ctx)
            pos.draw(edge)
            drawn.append(edge)
        return drawn
