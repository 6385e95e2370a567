"""The one way the services open a gRPC channel to another: calls spread over every replica the
address resolves to (round_robin; in Kubernetes a dns:/// address of a headless Service), and a
call waits for a replica to be ready, up to its own deadline, rather than failing at once while
a restarted replica comes back. The servers end connections now and then (grpc_server.py) so that
clients find replicas added since. The engine's callers go through engine_router instead, which
sends each game's calls to one replica."""

from __future__ import annotations

import json

import grpc

from .service_auth import CallerCredentials

SERVICE_CONFIG = json.dumps(
    {
        "loadBalancingConfig": [{"round_robin": {}}],
        "methodConfig": [{"name": [{}], "waitForReady": True}],
    }
)
OPTIONS = [("grpc.service_config", SERVICE_CONFIG)]


def channel(address: str, caller: str, secret: str) -> grpc.aio.Channel:
    """A channel whose calls are made as the service ``caller`` (boxedin.common.service_auth)."""
    return grpc.aio.insecure_channel(address, options=OPTIONS, interceptors=[CallerCredentials(caller, secret)])
