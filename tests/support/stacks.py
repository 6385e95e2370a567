"""Starting the service for tests: the real processes on loopback ports, each stack with a Redis
and a key prefix of its own, its logs under the test run's output folder."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

import redis

from boxedin.common.keys import Keys
from boxedin.gateway import identity
from boxedin.supervisor.launcher import Stack

TESTS = Path(__file__).resolve().parents[1]
OUTPUT = Path(os.environ.get("BOXEDIN_TEST_OUTPUT", TESTS.parent / "test-output"))
# The AI's moves are paced for people; tests only need them in order.
# Budgets per client address (docs/protocol.md, Limits) out of the way of a test that plays many
# devices from loopback, or one device as fast as it can: every one of them is this machine.
ROOMY_BUDGETS = {
    "BOXEDIN_ADDRESS_CONNECTS_BURST": "100000",
    "BOXEDIN_ADDRESS_CONNECTS_PER_SECOND": "100000",
    "BOXEDIN_ADDRESS_FRAMES_BURST": "1000000",
    "BOXEDIN_ADDRESS_FRAMES_PER_SECOND": "1000000",
    "BOXEDIN_ADDRESS_ACTIONS_BURST": "1000000",
    "BOXEDIN_ADDRESS_ACTIONS_PER_SECOND": "1000000",
    "BOXEDIN_IDLE_CONNECTIONS_PER_ADDRESS": "100000",
}
FAST_AI = {"BOXEDIN_AI_PAUSE_NORMAL_SECONDS": "0.05", "BOXEDIN_AI_PAUSE_FAST_SECONDS": "0.01"}
# Every stack's default: the actions of every player a test plays, all from loopback, are not
# one address's (a burst of 100, docs/protocol.md); the tests of that budget set their own.
LOOPBACK_ACTIONS = {k: v for k, v in ROOMY_BUDGETS.items() if k.startswith("BOXEDIN_ADDRESS_ACTIONS_")}


def make_stack(name: str, **options: object) -> Stack:
    shutil.rmtree(OUTPUT / "logs" / name, ignore_errors=True)
    return Stack.on_free_ports(
        f"test-{name}:",
        log_dir=OUTPUT / "logs" / name,
        extra_env={**FAST_AI, **LOOPBACK_ACTIONS, **options.pop("extra_env", {})},  # type: ignore[dict-item]
        **options,  # type: ignore[arg-type]
    )


def issued_device(stack: Stack) -> str:
    """A device token as the stack's gateways issue them, for a test that plays as a device
    through the engine and then looks at it through a gateway. The device key is made the way a
    gateway makes it, if no gateway has yet."""
    client = redis.Redis.from_url(str(stack.redis_url))
    try:
        name = Keys(stack.key_prefix).device_token_key()
        client.set(name, secrets.token_bytes(32), nx=True)
        key = client.get(name)
    finally:
        client.close()
    assert isinstance(key, bytes)
    return identity.issue(key)
