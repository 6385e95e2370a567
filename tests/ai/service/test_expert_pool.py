"""Expert's evaluation on the Celery worker pool, and in-process when no worker answers: either
way within its time budget (0.7 s a turn), and either way counted for the operator."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from boxedin.supervisor.launcher import Stack

from stacks import make_stack
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
# Alone: it holds Expert's turns to their think budget (scripts/test runs it after the rest).
pytestmark = [pytest.mark.stack, pytest.mark.alone]


def ai_metrics(stack: Stack) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{stack.metrics_ports['ai']}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def play_against_expert(stack: Stack) -> None:
    browser = Browser(stack.url())
    try:
        browser.hello()
        browser.new_game(mode="standard", opponent="ai", level="expert", first=2, ai_speed="fast")
        browser.play_to_the_end(timeout=240)
    finally:
        browser.close()


def expert_think_times(metrics: dict) -> tuple[float, float, float]:
    """Expert turns in all, turns within 0.8 s and turns within 1 s. The budget is 0.7 s; the
    rest is room for a machine shared with the test's own services and the browser tests."""
    labels = (("level", "expert"),)
    total = metrics[("boxedin_ai_think_seconds_count", labels)]

    def within(limit: str) -> float:
        return metrics[("boxedin_ai_think_seconds_bucket", (("le", limit), ("level", "expert")))]

    return total, within("0.8"), within("1.0")


def test_expert_uses_the_worker_pool_within_its_budget(live_stack: Stack) -> None:
    play_against_expert(live_stack)
    metrics = ai_metrics(live_stack)
    total, within_budget, within_a_second = expert_think_times(metrics)
    assert total >= 3 and within_a_second == total and within_budget >= 0.9 * total
    # Turns decided exactly (the endgame solver) or with one candidate need no playouts.
    assert metrics[("boxedin_expert_tasks_total", (("outcome", "done"),))] >= 2
    # The pool answered: at most one turn (a worker still busy with the last turn's task on a
    # loaded machine) was played out in-process.
    assert metrics[("boxedin_expert_fallbacks_total", ())] <= 1


@pytest.fixture
def stack_without_workers() -> Iterator[Stack]:
    own = make_stack("no-workers", worker=False)
    try:
        own.start()
        yield own
    finally:
        own.stop()


def test_expert_falls_back_to_thinking_in_process_when_no_worker_answers(
    stack_without_workers: Stack,
) -> None:
    play_against_expert(stack_without_workers)
    metrics = ai_metrics(stack_without_workers)
    total, within_budget, within_a_second = expert_think_times(metrics)
    assert total >= 3 and within_a_second == total and within_budget >= 0.9 * total
    assert metrics[("boxedin_expert_fallbacks_total", ())] >= 1
