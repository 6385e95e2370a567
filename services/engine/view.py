"""What a client needs to show a game, computed by the engine so that no client decides a rule:
the state, the board, the move history, and a preview of every open edge.

The preview generalises the practice game's to squares of every size and every rule:
- ``captures``: what the edge would do now to squares (captured, blocked, removed, taken over)
  and the change to each score;
- ``continuation``: squares captured after it by taking available captures one after another
  while the turn stays with the player (not a prediction of good play);
- ``one_short``: squares left one edge short of complete that can still be captured, after the
  edge and its continuation.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from .board import EdgeId, Geometry
from .game import CHANGE_KINDS, Game, Move

# Each game's move history as JSON, beside the moves it was made from: a move never changes once
# made, and the history only grows by one move or loses its last (Undo), so a view after an action
# converts only the moves that are new instead of the whole history every time.
_HISTORY_JSON: WeakKeyDictionary[Game, list[tuple[Move, dict[str, Any]]]] = WeakKeyDictionary()
_HELD_JSON: WeakKeyDictionary[Geometry, dict[tuple[int, int, int], dict[str, Any]]] = WeakKeyDictionary()


def edge_preview(game: Game, edge: EdgeId, scratch: Any = None) -> dict[str, Any]:
    """The preview of one open edge. ``scratch``: a copy of the position to work on (it is left
    as it was), so that previews of many edges share one copy."""
    pos = scratch if scratch is not None else game.position.copy()
    pos.record_events(True)
    player = pos.to_move
    before = (pos.score(0), pos.score(1))
    turn = pos.turn
    dead = bool(pos.edge_dead(edge))
    pos.draw(edge)
    actions = 1
    captures = [
        {
            "size": game.geo.squares[q].size,
            "row": game.geo.squares[q].row,
            "col": game.geo.squares[q].col,
            "kind": CHANGE_KINDS[kind],
            "player": p + 1,
            "points": points,
        }
        for kind, q, p, points in pos.last_events()
    ]
    after = (pos.score(0), pos.score(1))
    continuation = 0
    while not pos.over and pos.turn == turn and pos.to_move == player:
        follow = pos.capturing_edge()
        if follow < 0:
            break
        continuation += pos.draw(follow)
        actions += 1
    one_short = pos.one_short()
    for _ in range(actions):
        pos.undo()
    return {
        "dead": dead,
        "captures": captures,
        "score_change": [after[0] - before[0], after[1] - before[1]],
        "continuation": continuation,
        "one_short": one_short,
    }


def game_view(game: Game, *, previews: bool = True) -> dict[str, Any]:
    """The whole game as a client shows it (JSON-ready)."""
    geo = game.geo
    rules = game.rules
    pos = game.position
    open_edges = pos.open_edge_list()
    drawn = geo.drawn_edge_json
    view: dict[str, Any] = {
        "mode": game.mode.id if game.mode else None,
        "overlap": rules.overlap.id if rules.has_overlap else None,
        "boxes": rules.boxes,
        "die": rules.die,
        "sizes": list(rules.sizes),
        "capturing_edge_free": rules.capturing_edge_free,
        "capture_owes_line": rules.capture_owes_line,
        "first": game.first,
        "to_move": game.to_move,
        "phase": game.phase,
        "roll": game.current_roll,
        "edges_left": game.edges_left,
        "drawn_this_turn": game.drawn_this_turn,
        "turn": int(pos.turn),
        "round": game.round,
        "scores": list(game.scores),
        "over": game.over,
        "winner": game.winner,
        "resigned": game.resigned,
        "ended_with_open_edges": game.stopped_with_open_edges,
        "can_undo": game.can_undo,
        "can_end_turn": game.can_end_turn,
        "open_edges": len(open_edges),
        "edges": [drawn[code] for code in pos.drawn_codes()],
        "squares": held_squares_json(game),
        "dead_edges": [geo.edge_json[e] for e in game.dead_edges()],  # in edge order
        "history": history_json(game),
    }
    if rules.overlap.id == "territory":
        view["box_holders"] = game.box_holders()
    if previews and not game.over:
        scratch = pos.copy()
        view["previews"] = {edge_key(game, e): edge_preview(game, e, scratch) for e in open_edges}
    return view


def held_squares_json(game: Game) -> list[dict[str, Any]]:
    """The squares held (``Game.held_squares``). A held square's JSON is made once per board,
    square, owner and points and shared by every view (nobody may change it)."""
    made = _HELD_JSON.get(game.geo)
    if made is None:
        made = _HELD_JSON[game.geo] = {}
    held = []
    for key in game.held_square_ids():
        json = made.get(key)
        if json is None:
            q, owner, points = key
            square = game.geo.squares[q]
            json = made[key] = {
                "size": square.size, "row": square.row, "col": square.col, "owner": owner, "points": points,
            }  # fmt: skip
        held.append(json)
    return held


def history_json(game: Game) -> list[dict[str, Any]]:
    """The move history as JSON. The dicts are shared between views of the same game: nobody
    may change them."""
    kept = _HISTORY_JSON.get(game)
    if kept is None:
        kept = _HISTORY_JSON[game] = []
    history = game.history
    same = len(kept)
    # Usually the history only grew since (one move more): its kept part is all still there
    # when its last move is. Otherwise (an undo) find where the two part.
    if same > len(history) or (same and kept[-1][0] is not history[same - 1]):
        same = 0
        for (move, _), current in zip(kept, history, strict=False):
            if move is not current:
                break
            same += 1
        del kept[same:]
    kept.extend((move, move.to_json()) for move in history[same:])
    return [json for _, json in kept]


def edge_key(game: Game, edge: EdgeId) -> str:
    """An edge as a compact map key, such as ``h3,4``."""
    return str(game.geo.edges[edge])
