"""Every labelled counter a dashboard shows is exported for its known labels before anything
counts in them (issue 28: "Deadlines by outcome" said "No data" where it meant 0), by the module
that counts in it."""

from __future__ import annotations

import importlib
import typing

from prometheus_client import Counter

from boxedin.common import metrics
from boxedin.common.choices import LEVELS
from boxedin.common.reasons import REASONS
from boxedin.engine.actions import Action
from boxedin.engine.rules import MODES
from boxedin.gateway.client_frames import FRAME_TYPES
from boxedin.gateway.limits import CLOSE_CODES
from boxedin.matchmaker.server import ONLINE_MODES
from boxedin.stats.outcome import AGAINST

# The modules that count in them: each exports its own counters' children when it is imported.
OWNERS = (
    "boxedin.engine.service.server",
    "boxedin.engine.service.deadlines",
    "boxedin.ai.service.turns",
    "boxedin.gateway.session",
    "boxedin.gateway.connection",
    "boxedin.matchmaker.server",
    "boxedin.stats.counter",
)


def exported(counter: Counter) -> set[tuple[str, ...]]:
    for owner in OWNERS:
        importlib.import_module(owner)
    (family,) = counter.collect()
    return {tuple(sample.labels.values()) for sample in family.samples if sample.name.endswith("_total")}


def test_deadlines_by_outcome_are_exported_at_zero() -> None:
    assert exported(metrics.DEADLINES_FIRED) >= {("applied",), ("nothing_due",)}


def test_websocket_closes_are_exported_for_every_known_code() -> None:
    assert exported(metrics.WEBSOCKET_CLOSES) >= {(code,) for code in CLOSE_CODES}
    assert {"1000", "1006", "1012", "4408", "4429", "reset"} <= set(CLOSE_CODES)


def test_games_by_mode_and_opponent_are_exported_for_every_mode() -> None:
    for counter in (metrics.GAMES_CREATED, metrics.GAMES_FINISHED):
        found = exported(counter)
        for mode in MODES.values():
            opponents = ("practice",) if mode.practice else ("ai", "local", "online")
            assert {(mode.id, opponent) for opponent in opponents} <= found, mode.id
        assert ("custom", "local") in found


def test_refusals_ai_turns_and_online_games_are_exported_for_their_known_labels() -> None:
    assert exported(metrics.RULE_ERRORS) >= {(reason,) for reason in REASONS}
    assert exported(metrics.AI_TURNS) >= {(level,) for level in LEVELS}
    assert exported(metrics.COMPUTER_TURNS_TAKEN) >= {("read",), ("reclaimed",)}
    assert exported(metrics.ONLINE_GAMES_STARTED) >= {(m, via) for m in ONLINE_MODES for via in ("find_match", "room")}


def test_actions_frames_and_counted_games_are_exported_for_every_kind() -> None:
    # "Actions applied" by action and actor, client frames by type, games counted by opponent.
    actions = {kind.__name__.lower() for kind in typing.get_args(Action)}
    assert {"draw", "roll", "endturn", "undo", "timeout", "resume", "resign"} == actions
    assert exported(metrics.ACTIONS) >= {(a, actor) for a in actions for actor in ("human", "ai", "clock")}
    assert exported(metrics.WEBSOCKET_FRAMES) >= {(kind,) for kind in FRAME_TYPES}
    assert exported(metrics.STATS_COUNTED) >= {(against,) for against in AGAINST}
    assert exported(metrics.CELERY_TASKS) >= {("done",)}  # the only outcome it counts
