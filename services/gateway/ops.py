"""The operator's page, /ops: the live presence and games figures for those who run Boxed In
without Grafana, behind a token from a Secret (``BOXEDIN_OPS_TOKEN``). Without a token set the
page is off; a request without the right token is refused."""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Annotated, Any

import grpc
from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from boxedin.common.metrics import WEBSOCKETS
from boxedin.v1 import engine_pb2

router = APIRouter()


def require_token(
    request: Request,
    token: Annotated[str | None, Query()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> None:
    expected: str = request.app.state.config.ops_token
    if not expected:
        raise HTTPException(404, "the operator's page is off: no BOXEDIN_OPS_TOKEN is set")
    given = token or (authorization or "").removeprefix("Bearer ").strip()
    if not given or not hmac.compare_digest(given.encode(), expected.encode()):
        raise HTTPException(401, "the operator's page needs its token (?token=... or Authorization: Bearer ...)")


Operator = Annotated[None, Depends(require_token)]


@router.get("/ops/figures")
async def figures(request: Request, _: Operator) -> dict[str, Any]:
    """The figures as JSON, which the page reads every two seconds."""
    state = request.app.state
    try:
        reply = await state.backends.engine.GetFigures(engine_pb2.FiguresRequest(), timeout=5)
        games: dict[str, Any] = {
            "games_now": dict(reply.games_now),
            "games_started": dict(reply.games_started),
            "games_finished": dict(reply.games_finished),
        }
    except grpc.RpcError as exc:
        games = {"error": f"the engine did not answer ({exc.code().name})"}
    return {
        "players_online": await state.presence.players_online(),
        "connections_here": int(WEBSOCKETS._value.get()),
        **games,
    }


@router.get("/ops", response_class=HTMLResponse)
async def page(_: Operator) -> str:
    return _PAGE


# The page itself reads /ops/figures every two seconds.
_PAGE = (Path(__file__).with_name("ops.html")).read_text()
