"""A real Debian nginx in front of gateways of a test's stack (boxedin.tools.nginx: the chart's
Ingress configuration), and gateways started for it on a running stack's backends."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from boxedin.supervisor.launcher import Stack, free_port
from boxedin.tools.nginx import Nginx, nginx_binary


def start_gateways(stack: Stack, env: dict[str, str], count: int = 2) -> list[str]:
    """``count`` more gateways of ``stack`` (its Redis and services), with settings of their
    own; their process names, once all are ready."""
    kept = dict(stack.extra_env)
    stack.extra_env.update(env)
    try:
        names = [stack.start_gateway(free_port()) for _ in range(count)]
    finally:
        stack.extra_env = kept
    for name in names:
        stack.wait_ready(stack.gateways[name], only=name)
    return names


@contextlib.contextmanager
def nginx_in_front(stack: Stack, gateways: list[str]) -> Iterator[Nginx]:
    """nginx on a loopback port of its own passing every request to ``gateways``; skipped where
    nginx is not installed (scripts/setup --browser installs it)."""
    if nginx_binary() is None:
        pytest.skip("nginx is not installed (scripts/setup --browser installs Debian's nginx-light)")
    nginx = Nginx(free_port(), [stack.gateways[name] for name in gateways])
    nginx.start()
    try:
        yield nginx
    finally:
        nginx.stop()
