"""The chart's Redis as it runs: the command, arguments, environment and probes the chart renders
for its Redis StatefulSet, run as they are (but on a free loopback port and a folder of the test)
with Debian's redis-server and redis-cli.

The password from the Secret is required of every client and is the one the services' URL
carries; maxmemory and noeviction are in force; the readiness probe fails while the AOF loads
(Redis's own `key-load-delay` slows the loading down so it is seen), while Redis refuses writes
(MISCONF) and on a wrong password, while the liveness probe, lenient, passes in the first two.
"""

from __future__ import annotations

import base64
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from chart_render import FULLNAME, Rendered, container, env_of

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = [
    pytest.mark.stack,
    pytest.mark.skipif(not shutil.which("redis-server") or not shutil.which("redis-cli"), reason="no redis-server"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class ChartRedis:
    """The chart's Redis container, rendered, made to run here."""

    command: list[str]
    args: list[str]
    ready: list[str]
    alive: list[str]
    password: str
    url: str
    folder: Path
    port: int

    def start(self, *extra: str) -> subprocess.Popen[bytes]:
        env = {"PATH": "/usr/bin:/bin", "REDISCLI_AUTH": self.password}
        log = (self.folder / "redis.log").open("ab")
        return subprocess.Popen([*self.command, *self.args, *extra], env=env, stdout=log, stderr=subprocess.STDOUT)

    def probe(self, command: list[str], password: str | None = None) -> int:
        env = {"PATH": "/usr/bin:/bin", "REDISCLI_AUTH": self.password if password is None else password}
        return subprocess.run(command, env=env, capture_output=True, timeout=10, check=False).returncode

    def client(self, password: str | None = None) -> redis.Redis:
        return redis.Redis.from_url(self.url if password is None else f"redis://:{password}@127.0.0.1:{self.port}/0")


def made_to_run_here(rendered: Rendered, folder: Path) -> ChartRedis:
    (statefulset,) = rendered.of("StatefulSet")
    server = container(statefulset, "redis")
    port = free_port()
    local = {"6379": str(port), "/data": str(folder)}

    def here(text: str) -> str:
        return text.replace("/tmp/redis-auth.conf", str(folder / "redis-auth.conf")).replace("-p 6379", f"-p {port}")

    (secret,) = [obj for obj in rendered.of("Secret") if obj["metadata"]["name"] == f"{FULLNAME}-redis-auth"]
    password = base64.b64decode(secret["data"]["redis-password"]).decode()
    # The services' URL as Kubernetes expands it, pointed here.
    url = env_of(rendered.deployments()["engine"])["BOXEDIN_REDIS_URL"]
    url = url.replace("$(BOXEDIN_CHART_REDIS_PASSWORD)", password).replace(
        f"{FULLNAME}-redis:6379", f"127.0.0.1:{port}"
    )
    return ChartRedis(
        command=[here(part) for part in server["command"]],
        args=[local.get(arg, arg) for arg in server["args"]],
        ready=[here(part) for part in server["readinessProbe"]["exec"]["command"]],
        alive=[here(part) for part in server["livenessProbe"]["exec"]["command"]],
        password=password,
        url=url,
        folder=folder,
        port=port,
    )


@pytest.fixture
def chart_redis(default: Rendered, tmp_path: Path) -> Iterator[ChartRedis]:
    yield made_to_run_here(default, tmp_path)


def wait_until(what: str, check: Callable[[], bool], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_the_chart_redis_requires_its_password_and_keeps_to_maxmemory(chart_redis: ChartRedis) -> None:
    process = chart_redis.start()
    try:
        wait_until("Redis to be ready", lambda: chart_redis.probe(chart_redis.ready) == 0)
        assert chart_redis.probe(chart_redis.alive) == 0
        # The URL the services are given works; without the password, or with another, nothing.
        client = chart_redis.client()
        assert client.ping() is True
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=chart_redis.port).ping()
        with pytest.raises(redis.AuthenticationError):
            chart_redis.client("not-the-password").ping()
        assert chart_redis.probe(chart_redis.ready, password="not-the-password") != 0
        # The rendered limits are in force: 80% of 2Gi, nothing evicted, protected mode on.
        args = chart_redis.args
        assert client.config_get("maxmemory") == {"maxmemory": args[args.index("--maxmemory") + 1]}
        assert client.config_get("maxmemory") == {"maxmemory": "1717986918"}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        assert client.config_get("protected-mode") == {"protected-mode": "yes"}
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        # The password file is the server's alone.
        assert ((chart_redis.folder / "redis-auth.conf").stat().st_mode & 0o077) == 0
        client.close()
    finally:
        stop(process)


def test_readiness_fails_while_the_aof_loads_and_liveness_does_not(chart_redis: ChartRedis) -> None:
    process = chart_redis.start()
    try:
        wait_until("Redis to be ready", lambda: chart_redis.probe(chart_redis.ready) == 0)
        client = chart_redis.client()
        with client.pipeline(transaction=False) as pipe:
            for n in range(4000):
                pipe.set(f"game:{n}", "x" * 200)
            pipe.execute()
        # The AOF's base is rewritten as RDB, whose loading key-load-delay slows down.
        client.bgrewriteaof()
        wait_until("the AOF rewrite", lambda: client.info("persistence")["aof_rewrite_in_progress"] == 0)
        client.close()
    finally:
        stop(process)

    # 4000 keys at 1 ms each: a few seconds of loading, with events served every 1 KiB.
    process = chart_redis.start("--key-load-delay", "1000", "--loading-process-events-interval-bytes", "1024")
    try:
        seen_loading = False

        def loading_seen() -> bool:
            nonlocal seen_loading
            ready, alive = chart_redis.probe(chart_redis.ready), chart_redis.probe(chart_redis.alive)
            if ready != 0 and alive == 0:
                info = subprocess.run(
                    ["redis-cli", "-p", str(chart_redis.port), "info", "persistence"],
                    env={"PATH": "/usr/bin:/bin", "REDISCLI_AUTH": chart_redis.password},
                    capture_output=True,
                    text=True,
                    timeout=10,
                    check=False,
                ).stdout
                seen_loading = seen_loading or "loading:1" in info
            return seen_loading

        wait_until("a probe while the AOF loads", loading_seen)
        # Then ready, with every game back.
        wait_until("Redis to be ready after loading", lambda: chart_redis.probe(chart_redis.ready) == 0, timeout=60)
        assert chart_redis.probe(chart_redis.alive) == 0
        client = chart_redis.client()
        assert client.dbsize() == 4000
        client.close()
    finally:
        stop(process)


def test_readiness_fails_while_redis_refuses_writes_and_liveness_does_not(chart_redis: ChartRedis) -> None:
    """A Redis whose snapshot could not be written refuses every write (MISCONF) and PING with it:
    not ready, but alive (a restart would not mend a full or gone disk)."""
    process = chart_redis.start()
    try:
        wait_until("Redis to be ready", lambda: chart_redis.probe(chart_redis.ready) == 0)
        client = chart_redis.client()
        client.set("game:1", "x")
        # Snapshots on (the chart has the AOF only), then the data folder gone (Redis works in it):
        # the next snapshot cannot be written.
        client.config_set("save", "3600 1")
        shutil.rmtree(chart_redis.folder)
        client.bgsave()
        wait_until("the snapshot to fail", lambda: client.info("persistence")["rdb_last_bgsave_status"] == "err")
        with pytest.raises(redis.ResponseError, match="MISCONF"):
            client.set("game:2", "x")
        assert chart_redis.probe(chart_redis.ready) != 0
        assert chart_redis.probe(chart_redis.alive) == 0
        # Once Redis takes writes again (here: snapshots off), ready again.
        client.config_set("save", "")
        wait_until("Redis to be ready again", lambda: chart_redis.probe(chart_redis.ready) == 0)
        assert client.set("game:2", "x")
        client.close()
    finally:
        stop(process)
