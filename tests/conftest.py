"""Shared test setup: the folders tests import helpers from, and the running service.

``live_stack`` starts the real thing on loopback ports, as `boxedin up` does: a Redis of its own
(so no test ever touches a Redis it did not start), the engine and AI services, a Celery worker
and two gateway replicas serving the built web client. One stack serves the whole session; tests
that stop processes start their own.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
# support/: helpers every folder uses; engine/, stats/, deploy/, ai/: helpers their tests and others share.
for folder in (TESTS / "support", TESTS / "engine", TESTS / "stats", TESTS / "deploy", TESTS / "ai"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from boxedin.supervisor.launcher import Stack  # noqa: E402

from stacks import ROOMY_BUDGETS, make_stack  # noqa: E402

# A test that reaches any of these starts real processes (a Redis, the services): it is a
# whole-stack test, as the modules that start stacks of their own say with ``pytestmark``.
STACK_FIXTURES = frozenset({"redis_url", "live_stack", "live_gateway"})


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """A run of the pure tests alone (``-m "not stack"``) spreads over the machine's cores with
    pytest-xdist: they share nothing (no stack, no port, no Redis). A run with whole-stack tests
    is spread only when asked (``scripts/test`` asks for two processes, each file in one, and runs
    the tests marked ``alone`` after them by themselves). ``-n`` given on the command line (``-n 0``:
    one process) wins."""
    if (
        config.getoption("markexpr", "") == "not stack"
        and config.pluginmanager.hasplugin("xdist")
        and config.getoption("numprocesses", None) is None
        and not hasattr(config, "workerinput")
    ):
        config.option.numprocesses = "auto"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if STACK_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.stack)


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A Redis of the module's own (started for it: its tests may empty it), for tests that talk
    to Redis without the services."""
    stack = Stack()
    stack.start_redis()
    try:
        yield str(stack.redis_url)
    finally:
        stack.stop()


@pytest.fixture(scope="session")
def live_stack() -> Iterator[Stack]:
    # Every test of the session plays from 127.0.0.1 on this one stack: together they are far
    # beyond one address's budgets, which tests of their own stacks look at.
    stack = make_stack("session", gateway_replicas=2, extra_env=ROOMY_BUDGETS)
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()


@pytest.fixture(scope="session")
def live_gateway(live_stack: Stack) -> str:
    """The base URL (http://127.0.0.1:PORT) of a gateway serving the web client."""
    return live_stack.url()
