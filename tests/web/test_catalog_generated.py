"""The web client's copy of the engine's modes (web/src/generated/rules.ts) is what
scripts/gen_catalog.py writes from services/engine/rules.py now: change a mode, and this fails
until the file is generated again."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_catalog", ROOT / "scripts" / "gen_catalog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_catalogue_matches_the_engine() -> None:
    gen = _generator()
    committed = gen.TARGET.read_text(encoding="utf-8")
    assert committed == gen.render(), "web/src/generated/rules.ts is stale: run .venv/bin/python scripts/gen_catalog.py"


def test_a_changed_mode_shows_in_the_generated_text() -> None:
    from boxedin.engine import rules

    gen = _generator()
    original = rules.MODES["mini"]
    rules.MODES["mini"] = rules.Mode("mini", original.name, original.tagline, rules.RuleSet(4, 6))
    try:
        text = gen.render()
    finally:
        rules.MODES["mini"] = original
    assert '{"id": "mini", "boxes": 4, "die": 6,' in text
    assert text != gen.TARGET.read_text(encoding="utf-8")
