"""The AI service's gRPC calls: choosing a turn for tools and tests. The computer's turns in
games are not asked for by a call: the service takes them from the work streams (turns.py)."""

from __future__ import annotations

import asyncio
import json

import grpc

from boxedin.common.reasons import Refusal, abort
from boxedin.common.settings import Settings
from boxedin.v1 import ai_pb2, ai_pb2_grpc

from ..cli import ai_turn
from ..levels import LEVELS
from .reviews import Reviews
from .thinking import Thinker


class AiService(ai_pb2_grpc.AiServicer):
    def __init__(self, config: Settings, thinker: Thinker, reviews: Reviews) -> None:
        self.config = config
        self.thinker = thinker
        self.reviews = reviews

    async def Review(
        self,
        request: ai_pb2.ReviewRequest,
        context: grpc.aio.ServicerContext[ai_pb2.ReviewRequest, ai_pb2.ReviewReply],
    ) -> ai_pb2.ReviewReply:
        try:
            return await self.reviews.review(request.game_id, request.device, request.watch_id)
        except Refusal as refusal:
            await abort(context, refusal)

    async def ChooseTurn(
        self,
        request: ai_pb2.ChooseTurnRequest,
        context: grpc.aio.ServicerContext[ai_pb2.ChooseTurnRequest, ai_pb2.ChooseTurnReply],
    ) -> ai_pb2.ChooseTurnReply:
        if request.level not in LEVELS:
            await abort(context, Refusal("bad_setup", f"unknown AI level {request.level!r}"))
        budget = request.budget_seconds or self.config.expert_budget_seconds
        status, output = await asyncio.get_running_loop().run_in_executor(
            self.thinker.executor, ai_turn, request.transcript_json, request.level, request.seed or None, budget
        )
        if status:
            error = output["error"]
            await abort(context, Refusal(error["code"], error["message"]))
        return ai_pb2.ChooseTurnReply(actions_json=json.dumps(output))
