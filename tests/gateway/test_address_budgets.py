"""The budgets of one client address (docs/protocol.md, Limits, Budgets per address), on the
gateway's own bookkeeping with a clock the test moves; over real sockets in
test_budgets_over_the_wire.py."""

from __future__ import annotations

import logging
import sys

from boxedin.common.logs import ThrottleLines
from boxedin.gateway.budgets import AddressBudgets, Bucket, BudgetSettings, client_address

HOME, OTHER = "203.0.113.7", "198.51.100.9"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Socket:
    """A websocket as the budgets see it: when it was last active, and whether it was closed."""

    def __init__(self, active_at: float) -> None:
        self.active_at = active_at
        self.closed = False

    def close_idle(self) -> None:
        self.closed = True


def budgets(clock: Clock, **limits: float) -> AddressBudgets:
    return AddressBudgets(BudgetSettings(**limits), clock)  # type: ignore[arg-type]


def test_new_connections_beyond_the_burst_are_refused_until_the_address_slows_down() -> None:
    clock = Clock()
    book = budgets(clock, connects_burst=3, connects_per_second=2.0)
    assert [book.connect(HOME) for _ in range(4)] == [None, None, None, "connect_rate"]
    # Two a second, but the refused one counted too: one second to get one more.
    clock.now += 0.75
    assert book.connect(HOME) == "connect_rate"
    clock.now += 1.0
    assert book.connect(HOME) is None
    assert book.connect(HOME) == "connect_rate"


def test_another_address_has_budgets_of_its_own() -> None:
    clock = Clock()
    book = budgets(clock, connects_burst=1, connections=1)
    assert book.connect(HOME) is None
    assert book.connect(HOME) == "connect_rate"
    assert book.connect(OTHER) is None


def test_a_connection_closed_for_its_flood_makes_its_address_wait_to_reconnect() -> None:
    clock = Clock()
    book = budgets(clock, connects_burst=10, connects_per_second=1.0, too_fast_cost=10)
    assert book.connect(HOME) is None
    book.too_fast(HOME)  # its 4429
    assert book.connect(HOME) == "connect_rate"
    clock.now += 2
    assert book.connect(HOME) == "connect_rate", "still paying for the flood"
    clock.now += 15
    assert book.connect(HOME) is None


def test_connections_count_from_the_accept_until_they_end() -> None:
    clock = Clock()
    book = budgets(clock, connections=2)
    assert book.connect(HOME) is None  # headers not in yet: counted all the same
    assert book.connect(HOME) is None
    assert book.connect(HOME) == "too_many_connections"
    book.disconnect(HOME)
    assert book.connect(HOME) is None
    assert book.held == 2


def test_at_the_cap_the_connection_idle_longest_makes_room() -> None:
    clock = Clock()
    book = budgets(clock, connections=2, idle_after_seconds=30)
    older, newer = Socket(clock.now), Socket(clock.now + 10)
    for socket in (older, newer):
        assert book.connect(HOME) is None
        book.websocket_opened(HOME, socket)
    clock.now += 20
    assert book.connect(HOME) == "too_many_connections", "nobody idle yet"
    clock.now += 25  # older idle 45 s, newer 35 s
    assert book.connect(HOME) is None
    assert (older.closed, newer.closed) == (True, False)


def test_beyond_the_idle_share_the_connection_idle_longest_is_closed() -> None:
    clock = Clock()
    book = budgets(clock, idle_connections=2, idle_after_seconds=30)
    sockets = [Socket(clock.now + n) for n in range(3)]
    for socket in sockets:
        book.websocket_opened(HOME, socket)
    clock.now += 60
    playing = Socket(clock.now)
    book.websocket_opened(HOME, playing)
    assert [s.closed for s in sockets] == [True, False, False]
    assert not playing.closed


def test_a_socket_active_lately_is_never_closed_for_being_idle() -> None:
    clock = Clock()
    book = budgets(clock, idle_connections=1, idle_after_seconds=30)
    first, second = Socket(clock.now), Socket(clock.now)
    book.websocket_opened(HOME, first)
    book.websocket_opened(HOME, second)
    book.websocket_opened(HOME, Socket(clock.now))
    assert not first.closed and not second.closed


def test_frames_of_all_an_addresses_connections_share_one_budget() -> None:
    clock = Clock()
    book = budgets(clock, frames_burst=5, frames_per_second=10.0)
    assert [book.frame(HOME) for _ in range(6)] == [True] * 5 + [False]
    assert book.frame(OTHER)
    clock.now += 0.05  # half a frame's refill: still in debt for the refused one
    assert not book.frame(HOME)


def test_actions_beyond_the_budget_are_refused_then_the_connection_is_closed() -> None:
    clock = Clock()
    book = budgets(clock, actions_burst=2, actions_per_second=1.0)
    answers = [book.action(HOME) for _ in range(5)]
    assert answers == [True, True, False, None, None]


def test_near_the_descriptor_limit_only_an_address_holding_few_gets_in() -> None:
    clock = Clock()
    book = budgets(clock)
    book.max_held = 6
    assert all(book.connect(HOME) is None for _ in range(6))
    assert book.connect(HOME) == "descriptors"
    assert book.connect(OTHER) is None, "a new player still gets in, from the reserve"


def test_addresses_that_hold_nothing_and_owe_nothing_are_forgotten() -> None:
    clock = Clock()
    book = budgets(clock, connects_per_second=1000.0)
    for n in range(200):
        address = f"10.0.{n // 250}.{n % 250}"
        assert book.connect(address) is None
        book.disconnect(address)
    clock.now += 60
    for _ in range(70):
        book.connect(HOME)
        book.disconnect(HOME)
    assert set(book.addresses) == {HOME}


def test_a_bucket_owes_at_most_a_burst() -> None:
    clock = Clock()
    bucket = Bucket(3, 1.0, clock)
    for _ in range(100):
        bucket.take()
    assert bucket.exhausted and bucket.level == -3
    clock.now += 6
    assert bucket.take()


def test_the_client_address_is_the_peer_address() -> None:
    assert client_address(("127.0.0.5", 40000)) == "127.0.0.5"
    assert client_address(None) == ""


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_lines_a_client_causes_in_uvicorns_log_are_throttled_and_counted() -> None:
    logger = logging.getLogger("test.throttled.uvicorn")
    kept = Kept()
    logger.addHandler(kept)
    logger.propagate = False
    logger.setLevel(logging.INFO)  # as the services' logs are (setup_logging)
    throttle = ThrottleLines(per_window=2, window=1.0)
    logger.addFilter(throttle)
    try:
        for _ in range(500):
            try:
                b"\xff".decode()
            except UnicodeDecodeError:
                logger.exception("Invalid UTF-8 sequence received from client.")
            try:
                raise KeyError("a bug")
            except KeyError:
                logger.exception("Exception in ASGI application\n")
        logger.info("Started server process")
        assert throttle.limit is not None
        throttle.limit.window = 0.0001  # the window has passed: the next line says what was held back
        throttle.limit.flush()
    finally:
        logger.removeFilter(throttle)
        logger.removeHandler(kept)
    lines = [(r.getMessage(), r.levelno, bool(r.exc_info)) for r in kept.records]
    assert lines.count(("Invalid UTF-8 sequence received from client.", logging.INFO, False)) == 2
    assert lines.count(("Exception in ASGI application\n", logging.ERROR, True)) == 2
    assert ("Started server process", logging.INFO, False) in lines
    held = sorted(r.held_back for r in kept.records if r.getMessage() == "log lines held back")  # type: ignore[attr-defined]
    assert held == [498, 498]
    assert len(kept.records) == 7
    assert sys.exc_info() == (None, None, None)
