"""A running gateway fuzzed with frames drawn from the frame grammar (boxedin.tools.fuzzing)
closes no connection but the documented ones, answers every frame with a documented frame,
changes no game it refused a frame for and keeps its memory flat; `boxedin fuzz` runs the same."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from boxedin.cli import main as boxedin
from boxedin.common.reasons import CLIENT_CODES, REASONS
from boxedin.gateway import client_frames
from boxedin.supervisor.launcher import Stack
from boxedin.tools.fuzzing import checks
from boxedin.tools.fuzzing import run as fuzzing

from stacks import ROOMY_BUDGETS, make_stack

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

PROTOCOL = Path(__file__).parents[2] / "docs" / "protocol.md"
FUZZ_FRAMES = 5000
# The gateway's resident memory may grow this much over the fuzz run, after a warm-up: a leak of a
# few kilobytes a frame would not pass it.
RSS_SLACK_KIB = 8 * 1024


# The fuzz sends as fast as the gateway answers, and some of its connections never say hello: the
# limits on one client (docs/protocol.md, Limits) are raised out of its way.
UNLIMITED = {
    "BOXEDIN_FRAME_CREDITS": "1000000",
    "BOXEDIN_FRAME_CREDITS_PER_SECOND": "1000000",
    "BOXEDIN_HELLO_TIMEOUT_SECONDS": "3600",
    "BOXEDIN_IDLE_TIMEOUT_SECONDS": "3600",
    **ROOMY_BUDGETS,
}


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    """A stack of its own: the fuzzed frames open rooms and Find Match games that other tests'
    figures should not see, and the memory read is of a gateway nobody else loads."""
    started = make_stack("fuzz", worker=False, extra_env=UNLIMITED)
    try:
        started.start()
        yield started
    finally:
        started.stop()


def _documented_errors() -> set[str]:
    """The codes in the first column of docs/protocol.md's Errors tables."""
    codes: set[str] = set()
    for section in re.split(r"^#+ ", PROTOCOL.read_text(), flags=re.M):
        if section.startswith("Errors"):
            for row in re.findall(r"^\| (`[^|]*) \|", section, flags=re.M):
                codes.update(re.findall(r"`(\w+)`", row))
    return codes


def test_the_protocol_documents_exactly_the_catalogue_of_error_codes() -> None:
    """docs/protocol.md's Errors tables name every code the catalogue has for a client, and no
    other; the fuzz command takes the same codes."""
    documented = _documented_errors()
    assert len(documented) > 30
    assert documented == CLIENT_CODES
    assert documented <= checks.DOCUMENTED_ERRORS


def test_the_same_wifi_errors_are_in_the_catalogue() -> None:
    """The codes docs/protocol.md's Same Wi-Fi section lists for its error frames."""
    section = PROTOCOL.read_text().split("Errors (`error` frames):", 1)[1].split("\n\n", 1)[0]
    codes = set(re.findall(r"`(\w+)`", section)) - {"lan_let_in", "lan_cancel"}
    assert {"bad_address", "nobody_waiting"} <= codes <= set(REASONS)


def test_fuzzed_frames_break_nothing(stack: Stack) -> None:
    pid = stack.processes["gateway"].pid
    documented = frozenset(_documented_errors())  # any other error code is a violation
    summary = asyncio.run(
        fuzzing.run(stack.url(), FUZZ_FRAMES, connections=8, pid=pid, warmup=500, documented=documented)
    )
    report = "\n".join(summary.lines())
    print(report)
    assert summary.violations == [], report
    assert summary.sent == FUZZ_FRAMES
    # Every client frame type was sent, and both documented closes happened.
    assert set(summary.kinds) == set(client_frames.FRAME_TYPES), report
    assert summary.closes["1007"] and summary.closes["1009"] + summary.closes["1009 (seen as a reset)"], report
    assert not summary.limited and not summary.errors["too_fast"], report
    assert summary.held_seq[0] == summary.held_seq[1] >= 0
    assert summary.rss_kib is not None and summary.rss_kib[1] - summary.rss_kib[0] <= RSS_SLACK_KIB, report
    assert stack.died() is None


def test_the_fuzz_command(stack: Stack, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fuzz", "--frames", "300", "--warmup", "0", "--connections", "4", "--rate", "0", "--seed", "16"]
    assert stack.log_dir is not None
    gateway = [
        "--url",
        stack.url(),
        "--pid",
        str(stack.processes["gateway"].pid),
        "--log",
        str(stack.log_dir / "gateway.log"),
    ]
    assert boxedin([*args, *gateway]) == 0
    out = capsys.readouterr().out
    assert "frames sent: 300 " in out and "gateway RSS: " in out and out.rstrip().endswith("violations: 0")
    assert re.search(r"gateway log: \d+ lines while fuzzing \(\d+\.\d a second\)", out), out
