"""Loopback ports for the processes of one machine: a free one to hand out, and whether one is
free to listen on."""

from __future__ import annotations

import socket

# Ports free_port has handed out. The kernel picks a free port at random and a stack's services
# bind theirs only once started, so two calls could name the same port (measured: one stack of
# seven ports in 800) and the second service would fail to listen.
_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A loopback port nothing listens on now and no earlier call in this process returned."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a server could listen on ``host:port`` now. Binds as every server of the stack does,
    with SO_REUSEADDR (uvicorn through asyncio, gRPC, Redis, prometheus_client): a port whose
    last connections are in TIME_WAIT is free, one something listens on is not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True
