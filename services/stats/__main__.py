"""`python -m boxedin.stats`: runs the stats service: counting finished games from the streams,
and the gRPC calls."""

from __future__ import annotations

import asyncio

from boxedin.common.grpc_server import serve
from boxedin.common.logs import setup_logging
from boxedin.common.redis_client import connect
from boxedin.common.settings import settings
from boxedin.v1 import stats_pb2_grpc

from .counter import GameCounter
from .server import StatsService
from .store import StatsStore


async def main() -> None:
    config = settings()
    setup_logging("stats", config.log_level)
    client = connect(config)
    keys = config.keys()
    store = StatsStore(client, keys)
    counter = GameCounter(client, keys, store, config.stats_claim_idle_seconds)
    await counter.start()

    async def stop() -> None:
        await counter.stop()
        await client.aclose()

    await serve(
        "boxedin.v1.Stats",
        "stats",
        config.service_secret,
        config.stats_address,
        config.stats_metrics_port,
        lambda server: stats_pb2_grpc.add_StatsServicer_to_server(StatsService(store), server),
        config.shutdown_grace_seconds,
        stop,
        config.metrics_host,
    )


if __name__ == "__main__":
    asyncio.run(main())
