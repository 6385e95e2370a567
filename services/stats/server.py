"""The stats service's gRPC calls: a device's statistics, what one game meant for it, and the
two steps of a reset. Counting is not a call: games arrive from the finished-games streams."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TypeVar

import grpc
import redis.asyncio as redis

from boxedin.common.devices import device_hash
from boxedin.common.metrics import RULE_ERRORS
from boxedin.common.reasons import Refusal, abort
from boxedin.v1 import stats_pb2, stats_pb2_grpc

from .convert import statistics_message
from .store import RESET_TOKEN_SECONDS, StatsStore

_Reply = TypeVar("_Reply")
# How often a result not counted yet is looked for again, and the longest wait a call may ask.
_RESULT_POLL_SECONDS = 0.05
_MOST_WAIT_SECONDS = 10.0


class StatsService(stats_pb2_grpc.StatsServicer):
    def __init__(self, store: StatsStore) -> None:
        self.store = store

    async def _guard(self, context: grpc.aio.ServicerContext[object, object], work: Awaitable[_Reply]) -> _Reply:
        try:
            return await work
        except redis.RedisError:
            refusal = Refusal("unavailable", "the statistics cannot be reached just now; nothing was changed")
        except Refusal as refused:
            refusal = refused
        RULE_ERRORS.labels(refusal.reason).inc()
        await abort(context, refusal)

    async def GetStats(
        self, request: stats_pb2.StatsRequest, context: grpc.aio.ServicerContext[object, object]
    ) -> stats_pb2.DeviceStatistics:
        return await self._guard(context, self._stats(request.device))

    async def _stats(self, device: str) -> stats_pb2.DeviceStatistics:
        stored = await self.store.load(device_hash(device))
        return statistics_message(stored.stats)

    async def GetGameResult(
        self, request: stats_pb2.GameResultRequest, context: grpc.aio.ServicerContext[object, object]
    ) -> stats_pb2.GameResult:
        return await self._guard(context, self._result(request))

    async def _result(self, request: stats_pb2.GameResultRequest) -> stats_pb2.GameResult:
        device = device_hash(request.device)
        if not request.game_id or len(request.game_id) > 64:
            raise Refusal("malformed", "name the game by its id")
        deadline = time.monotonic() + min(max(request.wait_seconds, 0.0), _MOST_WAIT_SECONDS)
        while True:
            result = await self.store.result(device, request.game_id)
            if result is not None:
                return result
            if time.monotonic() >= deadline:
                raise Refusal("no_game", "that game has not been counted for this device")
            await asyncio.sleep(_RESULT_POLL_SECONDS)

    async def RequestReset(
        self, request: stats_pb2.StatsRequest, context: grpc.aio.ServicerContext[object, object]
    ) -> stats_pb2.ResetToken:
        return await self._guard(context, self._request_reset(request.device))

    async def _request_reset(self, device: str) -> stats_pb2.ResetToken:
        token = await self.store.new_reset_token(device_hash(device))
        return stats_pb2.ResetToken(token=token, expires_in=RESET_TOKEN_SECONDS)

    async def Reset(
        self, request: stats_pb2.ResetRequest, context: grpc.aio.ServicerContext[object, object]
    ) -> stats_pb2.DeviceStatistics:
        return await self._guard(context, self._reset(request))

    async def _reset(self, request: stats_pb2.ResetRequest) -> stats_pb2.DeviceStatistics:
        device = device_hash(request.device)
        if not request.token:
            raise Refusal("bad_token", "a reset needs the confirmation token asked for first")
        if not await self.store.reset(device, request.token):
            raise Refusal("bad_token", "that confirmation token is wrong or has expired; ask again")
        return await self._stats(request.device)
