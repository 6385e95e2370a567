"""`python -m boxedin.matchmaker`: runs the matchmaker service (Matchmaker and Presence)."""

from __future__ import annotations

import asyncio

import grpc

from boxedin.common.engine_router import engine_router
from boxedin.common.grpc_server import serve
from boxedin.common.logs import setup_logging
from boxedin.common.redis_client import connect
from boxedin.common.settings import settings
from boxedin.v1 import matchmaker_pb2_grpc

from .figures import WaitingFigures
from .queue import MatchQueue
from .rooms import Rooms
from .server import ONLINE_MODES, MatchmakerService, PresenceService


async def main() -> None:
    config = settings()
    setup_logging("matchmaker", config.log_level)
    client = connect(config)
    keys = config.keys()
    engine = await engine_router(config, "matchmaker")

    rooms = Rooms(client, keys, config.join_tries_per_device, config.join_tries_per_address)
    # A waiting player's place lapses after three of the gateways' rounds of keeping it.
    queue = MatchQueue(client, keys, 3 * config.online_keep_seconds)
    figures = WaitingFigures(queue, ONLINE_MODES)
    figures.start()

    def add(server: grpc.aio.Server) -> None:
        service = MatchmakerService(client, keys, engine, rooms, queue)
        matchmaker_pb2_grpc.add_MatchmakerServicer_to_server(service, server)
        matchmaker_pb2_grpc.add_PresenceServicer_to_server(PresenceService(client, keys, engine, queue), server)

    async def stop() -> None:
        await figures.stop()
        await engine.close()
        await client.aclose()

    await serve(
        "boxedin.v1.Matchmaker",
        "matchmaker",
        config.service_secret,
        config.matchmaker_address,
        config.matchmaker_metrics_port,
        add,
        config.shutdown_grace_seconds,
        stop,
        config.metrics_host,
    )


if __name__ == "__main__":
    asyncio.run(main())
