"""Every file of web/src/generated/ is what scripts/gen_catalog.py writes from its Python source
now (the engine's modes, the shared facts, the server and client frames' models): change one, and this
fails until the files are generated again. Nothing else in web/src/generated/ is committed."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = ".venv/bin/python scripts/gen_catalog.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_catalog", ROOT / "scripts" / "gen_catalog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["rules.ts", "facts.ts", "frames.ts", "client_frames.ts"])
def test_the_committed_generated_file_matches_its_source(name: str) -> None:
    gen = _generator()
    target = gen.GENERATED / name
    assert target in gen.TARGETS
    assert target.read_text(encoding="utf-8") == gen.TARGETS[target](), f"web/src/generated/{name} is stale: run {RUN}"


def test_every_generated_file_is_a_target() -> None:
    gen = _generator()
    assert set(gen.GENERATED.iterdir()) == set(gen.TARGETS)


def test_a_changed_mode_shows_in_the_generated_text() -> None:
    from boxedin.engine import rules

    gen = _generator()
    original = rules.MODES["mini"]
    rules.MODES["mini"] = rules.Mode("mini", original.name, original.tagline, rules.RuleSet(4, 6))
    try:
        text = gen.render_rules()
    finally:
        rules.MODES["mini"] = original
    assert '{"id": "mini", "tagline": "Done in a minute or two", "boxes": 4, "die": 6,' in text
    assert text != (gen.GENERATED / "rules.ts").read_text(encoding="utf-8")


def test_the_facts_are_the_python_ones() -> None:
    from boxedin.common import choices, names, reasons
    from boxedin.matchmaker import codes

    text = _generator().render_facts()
    assert 'export const LEVELS: readonly Level[] = ["easy", "normal", "hard", "expert"];' in text
    assert f"export const CLOCKS: readonly number[] = {list(choices.CLOCKS)};" in text
    assert f'export const CODE_ALPHABET = "{codes.ALPHABET}";' in text
    assert f"export const NAME_MAX = {names.NAME_MAX};" in text
    for reason in reasons.CATALOGUE:
        assert f"  {reason.code}: " in text


def test_required_null_and_optional_fields_are_told_apart() -> None:
    """server_frames/'s two kinds of "nothing": always sent, maybe null (``T | null``), and
    left out when there is none (``field?: T``, never null)."""
    text = _generator().render_frames()
    assert "  winner: 0 | 1 | 2 | null;\n" in text
    assert "  saved: SavedSummary | null;\n" in text
    assert "  previews?: Record<string, EdgePreview>;\n" in text
    assert "  box_holders?: (1 | 2 | null)[];\n" in text
    assert "  reply_to?: string | number;\n" in text


def test_every_client_frame_type_is_generated() -> None:
    """client_frames.ts types every frame the gateway takes (client_frames.FRAME_TYPES), with the
    fields that may be left out optional."""
    from boxedin.gateway.client_frames import FRAME_TYPES

    text = _generator().render_client_frames()
    typed = set(re.findall(r'^  type: (.*);$', text, re.MULTILINE))
    assert {kind for line in typed for kind in re.findall(r'"(\w+)"', line)} == set(FRAME_TYPES)
    assert "  id?: string | number | null;\n" in text
    assert "  mode: string;\n  overlap?: string | null;\n" in text
