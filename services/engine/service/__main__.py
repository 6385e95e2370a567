"""`python -m boxedin.engine.service`: runs the engine service."""

from __future__ import annotations

import asyncio

import redis.asyncio as redis

from boxedin.common.grpc_server import serve
from boxedin.common.logs import setup_logging
from boxedin.common.settings import settings
from boxedin.v1 import engine_pb2_grpc

from .server import EngineService
from .store import GameStore


async def main() -> None:
    config = settings()
    setup_logging("engine", config.log_level)
    client = redis.Redis.from_url(config.redis_url)
    service = EngineService(GameStore(client, config.key_prefix, config.updates_kept), config.ai_address)

    async def stop() -> None:
        await service.close()
        await client.aclose()

    await serve(
        "boxedin.v1.Engine",
        config.engine_address,
        config.engine_metrics_port,
        lambda server: engine_pb2_grpc.add_EngineServicer_to_server(service, server),
        config.shutdown_grace_seconds,
        stop,
    )


if __name__ == "__main__":
    asyncio.run(main())
