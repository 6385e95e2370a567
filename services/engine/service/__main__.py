"""`python -m boxedin.engine.service`: runs the engine service."""

from __future__ import annotations

from boxedin.common import event_loop
from boxedin.common.grpc_server import serve
from boxedin.common.logs import setup_logging
from boxedin.common.redis_client import connect
from boxedin.common.settings import settings
from boxedin.v1 import engine_pb2_grpc

from .act_port import ActPort, bind_host
from .deadlines import DeadlineLoop
from .server import EngineService
from .store import GameStore


async def main() -> None:
    config = settings()
    setup_logging("engine", config.log_level)
    client = connect(config)
    store = GameStore(client, config.keys(), config.updates_kept)
    service = EngineService(
        store,
        move_limit=config.move_limit_seconds,
        grace=config.online_grace_seconds,
        lease=config.online_lease_seconds,
        settle=config.online_settle_seconds,
        copies=config.engine_game_copies,
    )
    service.figures.claim_idle_seconds = config.ai_claim_idle_seconds
    act_port = ActPort(service, config.service_secret)
    if config.engine_act_port >= 0:
        await act_port.start(bind_host(config.engine_address), config.engine_act_port)
    deadlines = DeadlineLoop(service, config.deadline_poll_seconds)
    deadlines.start()
    service.figures.start()

    async def stop() -> None:
        await deadlines.stop()
        await service.figures.stop()
        store.close()
        await client.aclose()

    await serve(
        "boxedin.v1.Engine",
        "engine",
        config.service_secret,
        config.engine_address,
        config.engine_metrics_port,
        lambda server: engine_pb2_grpc.add_EngineServicer_to_server(service, server),
        config.shutdown_grace_seconds,
        stop,
        config.metrics_host,
        act_port.stop,
    )


if __name__ == "__main__":
    event_loop.run(main())
