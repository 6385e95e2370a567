"""`python -m boxedin.ai.service`: runs the AI service: the computer turns from the work streams
and the gRPC calls."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from boxedin.common.engine_router import engine_router
from boxedin.common.grpc_server import serve
from boxedin.common.logs import setup_logging
from boxedin.common.metrics import EXPERT_POOL_ENABLED
from boxedin.common.redis_client import connect
from boxedin.common.settings import settings
from boxedin.v1 import ai_pb2_grpc

from .reviews import Reviews
from .server import AiService
from .thinking import Thinker, start_worker
from .turns import TurnPlayer

# Processes choosing turns (the players are CPU-bound; Expert spreads over Celery too).
CHOOSERS = 2


async def main() -> None:
    config = settings()
    setup_logging("ai", config.log_level)
    client = connect(config)
    EXPERT_POOL_ENABLED.set(1 if config.use_celery else 0)

    def make_executor() -> ProcessPoolExecutor:
        # Worker processes choose the turns; "spawn" keeps them free of the event loop's state.
        # They end with this service, however it ends.
        return ProcessPoolExecutor(
            max_workers=CHOOSERS,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=start_worker,
            initargs=(os.getpid(),),
        )

    thinker = Thinker(config, make_executor)
    engine = await engine_router(config, "ai")
    turns = TurnPlayer(config, client, engine, thinker)
    reviews = Reviews(config, client, engine)
    # The processes that choose turns start now, not when the first turn comes: a game begun
    # then would wait for them. Not awaited: turns taken meanwhile wait in the pool, and a
    # restarted AI is ready (and takes its dead self's turns) as soon as it can read them.
    warming = asyncio.create_task(thinker.warm(CHOOSERS))
    await turns.start()

    async def stop() -> None:
        warming.cancel()
        await turns.stop()
        await asyncio.gather(asyncio.to_thread(thinker.shutdown), asyncio.to_thread(reviews.shutdown))
        await engine.close()
        await client.aclose()

    await serve(
        "boxedin.v1.Ai",
        "ai",
        config.service_secret,
        config.ai_address,
        config.ai_metrics_port,
        lambda server: ai_pb2_grpc.add_AiServicer_to_server(AiService(config, thinker, reviews), server),
        config.shutdown_grace_seconds,
        stop,
        config.metrics_host,
    )


if __name__ == "__main__":
    asyncio.run(main())
