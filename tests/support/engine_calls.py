"""The engine calls the action-line tests make (over the stream and over the port): a device's
roll, draw and new game, and a refusal read back as its status, reason and message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc

from boxedin.common.engine_router import EngineRouter
from boxedin.common.reasons import REASON_KEY
from boxedin.v1 import common_pb2, engine_pb2


@dataclass(frozen=True)
class DeviceCalls:
    """Requests on behalf of ``device`` unless another is named."""

    device: str

    def roll(self, game_id: str, seq: int, device: str = "") -> engine_pb2.ActRequest:
        return engine_pb2.ActRequest(
            game_id=game_id, device=device or self.device, actor=common_pb2.ACTOR_HUMAN,
            action=common_pb2.Action(roll=True), expected_seq=seq,
        )  # fmt: skip

    def draw(self, game_id: str, seq: int, edge: tuple[str, int, int], repeat_key: str = "") -> engine_pb2.ActRequest:
        kind, row, col = edge
        return engine_pb2.ActRequest(
            game_id=game_id, device=self.device, actor=common_pb2.ACTOR_HUMAN, expected_seq=seq, repeat_key=repeat_key,
            action=common_pb2.Action(draw=common_pb2.Edge(orientation=kind, row=row, col=col)),
        )  # fmt: skip

    async def new_game(self, router: EngineRouter, seed: str, device: str = "") -> common_pb2.GameSnapshot:
        setup = common_pb2.GameSetup(mode="classic", opponent="local", seed=seed)
        request = engine_pb2.CreateGameRequest(device=device or self.device, setup=setup)
        return await router.CreateGame(request, timeout=5)


def refusal(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str, str]:
    reason = next(value for key, value in error.trailing_metadata() or () if key == REASON_KEY)
    return error.code(), str(reason), error.details() or ""


async def failure(call: Any) -> grpc.aio.AioRpcError:
    """The refusal an awaited call ends with (it fails the test if the call succeeds)."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error
    raise AssertionError("the action was not refused")
