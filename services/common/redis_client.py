"""The one way the services connect to Redis: a pool that makes a caller wait for a free
connection rather than fail. redis-py's default pool holds 100 connections and refuses the
101st ("Too many connections"), which a replica playing hundreds of games at once reaches."""

from __future__ import annotations

from typing import cast

import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.driver_info import DriverInfo
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .settings import Settings

# After Redis restarts, every pooled connection is stale and fails once: a call tries again on
# a fresh one (three times, 50 ms to 0.5 s apart) instead of answering "unavailable". Writes
# that could land twice are compare-and-set scripts on the game's seq, so a repeat is refused.
_RETRY = {
    "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
    "retry_on_error": [RedisConnectionError, RedisTimeoutError],
}
# What each connection tells Redis of its library (CLIENT SETINFO), looked up once. A pool made
# from a URL has none, and every connection it makes then looks the version up in the installed
# packages' metadata: 0.4 ms (1 ms and more on a busy machine) per connection, which held the
# gateway's loop 0.4 s while 1,000 sockets said hello at once and its pool grew (boxedin abuse,
# idle from 10 addresses). 0.01 ms with it.
DRIVER = DriverInfo()


def connect(config: Settings) -> redis.Redis:
    if config.redis_cluster:
        # redis-py's cluster client speaks every command the services use (each Lua script
        # names keys of one slot); it routes each to the node that holds its keys.
        cluster = redis.RedisCluster.from_url(
            config.redis_url, max_connections=config.redis_max_connections, driver_info=DRIVER
        )
        return cast(redis.Redis, cluster)
    pool = redis.BlockingConnectionPool.from_url(
        config.redis_url,
        max_connections=config.redis_max_connections,
        timeout=config.redis_pool_wait_seconds,
        driver_info=DRIVER,
        **_RETRY,
    )
    return redis.Redis(connection_pool=pool)
