"""`python -m boxedin.ai.service`: runs the AI service."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import redis.asyncio as redis

from boxedin.common.grpc_server import serve
from boxedin.common.logs import setup_logging
from boxedin.common.settings import settings
from boxedin.v1 import ai_pb2_grpc

from .server import AiService


async def main() -> None:
    config = settings()
    setup_logging("ai", config.log_level)
    client = redis.Redis.from_url(config.redis_url)

    def make_executor() -> ProcessPoolExecutor:
        # Worker processes choose the turns; "spawn" keeps them free of the event loop's state.
        return ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn"))

    service = AiService(config, client, make_executor)

    async def stop() -> None:
        await service.close()
        service.executor.shutdown(wait=False, cancel_futures=True)
        await client.aclose()

    await serve(
        "boxedin.v1.Ai",
        config.ai_address,
        config.ai_metrics_port,
        lambda server: ai_pb2_grpc.add_AiServicer_to_server(service, server),
        config.shutdown_grace_seconds,
        stop,
    )


if __name__ == "__main__":
    asyncio.run(main())
