"""`python -m boxedin.gateway`: runs the gateway with uvicorn."""

from __future__ import annotations

import uvicorn
from prometheus_client import start_http_server

from boxedin.common.gc_pauses import settle_gc
from boxedin.common.logs import setup_logging
from boxedin.common.settings import settings

from .app import create_app
from .client_frames import MAX_READ_BYTES
from .drain import DrainingServer
from .http_guard import guarded_protocols, quiet_uvicorn_logs, raise_descriptor_limit
from .limits import GatewayLimits


def main() -> None:
    config = settings()
    setup_logging("gateway", config.log_level)
    quiet_uvicorn_logs()
    descriptors = raise_descriptor_limit()
    app = create_app(config)
    limits: GatewayLimits = app.state.limits
    # The rest are kept for /healthz, Redis, gRPC and the first connections of new players.
    limits.addresses.max_held = max(1, descriptors - config.descriptor_reserve)
    http, ws = guarded_protocols(limits.addresses, limits.log)
    settle_gc()
    if config.gateway_metrics_port:
        # Apart from the public port, which an Ingress exposes to everyone.
        try:
            start_http_server(config.gateway_metrics_port, addr=config.metrics_host)
        except OSError as exc:
            where = f"{config.metrics_host}:{config.gateway_metrics_port}"
            raise SystemExit(f"gateway: cannot serve metrics on {where}: {exc.strerror}") from None
    server = DrainingServer(
        uvicorn.Config(
            app,
            host=config.gateway_host,
            port=config.gateway_port,
            log_config=None,
            # The client's address is worked out by the app (forwarded.py, BOXEDIN_TRUSTED_PROXIES)
            # for HTTP and websockets alike; uvicorn's own reading (FORWARDED_ALLOW_IPS, loopback
            # by default) would believe a header the trusted proxies never wrote.
            proxy_headers=False,
            forwarded_allow_ips="",
            # Larger messages are not read: the connection is closed with 1009 (client_frames.py, sizes).
            ws_max_size=MAX_READ_BYTES,
            # Each connection counted against its address from its accept (http_guard.py); a ping
            # gone unanswered closes with 4408 (keepalive.py).
            http=http,
            ws=ws,
            ws_ping_interval=config.ws_ping_interval_seconds,
            ws_ping_timeout=config.ws_ping_timeout_seconds,
            timeout_graceful_shutdown=int(config.shutdown_grace_seconds),
        ),
        app.state.drain,
    )
    server.run()


if __name__ == "__main__":
    main()
