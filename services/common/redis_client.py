"""The one way the services connect to Redis: a pool that makes a caller wait for a free
connection rather than fail. redis-py's default pool holds 100 connections and refuses the
101st ("Too many connections"), which a replica playing hundreds of games at once reaches."""

from __future__ import annotations

import redis.asyncio as redis

from .settings import Settings


def connect(config: Settings) -> redis.Redis:
    pool = redis.BlockingConnectionPool.from_url(
        config.redis_url, max_connections=config.redis_max_connections, timeout=config.redis_pool_wait_seconds
    )
    return redis.Redis(connection_pool=pool)
