"""Each fact the services and the web client share is written once, by its owner, and copied
only by scripts/gen_catalog.py into web/src/generated/: the AI levels and the clocks
(boxedin.common.choices), the reason codes (boxedin.common.reasons), the room-code alphabet
(boxedin.matchmaker.codes), the name limit (boxedin.common.names), the device token's pattern
(boxedin.common.devices), the modes' taglines (boxedin.engine.rules) and the settings' defaults
(boxedin.common.settings). The tree is searched for a second definition, as the keys test
(tests/engine/session/test_seats.py) searches it for Redis keys."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from boxedin.common import choices, devices, names, reasons
from boxedin.common.settings import Settings
from boxedin.engine.rules import MODES
from boxedin.matchmaker import codes

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "web" / "src" / "generated"
SERVICES = ROOT / "services"


def _sources() -> list[Path]:
    """The product's own sources: the Python package (not its generated protos), the web
    client's TypeScript (not its generated files) and the scripts."""
    python = [path for path in SERVICES.rglob("*.py") if "v1" not in path.relative_to(SERVICES).parts]
    web = [path for path in (ROOT / "web" / "src").rglob("*.ts") if GENERATED not in path.parents]
    scripts = [path for path in (ROOT / "scripts").iterdir() if path.is_file()]
    return sorted(python + web + scripts)


def _where(pattern: str) -> set[str]:
    """The sources (relative paths) that match ``pattern``."""
    found = re.compile(pattern)
    return {path.relative_to(ROOT).as_posix() for path in _sources() if found.search(path.read_text(encoding="utf-8"))}


def _quoted(value: str) -> str:
    return f"[\"']{re.escape(value)}[\"']"


def test_the_ai_levels_are_listed_once() -> None:
    listed = r"\s*[,|]\s*".join(_quoted(level) for level in choices.LEVELS)
    assert _where(listed) == {"services/common/choices.py"}
    named = "|".join(f"{_quoted(level)}\\s*:\\s*{_quoted(name)}" for level, name in choices.LEVEL_NAMES.items())
    assert _where(named) == set()


def test_the_clocks_are_listed_once() -> None:
    listed = r"\s*,\s*".join(str(seconds) for seconds in choices.CLOCKS)
    assert _where(r"[\[(]" + listed + r"[\])]") == {"services/common/choices.py"}


def _code_collections(path: Path) -> list[int]:
    """Lines of the collections that define codes: a table keyed by three or more of them (their
    statuses, their sentences), or a set, list or tuple of eight or more. A few named together
    for what they mean to one module (the refusals after which a turn is over) are not one."""
    known = set(reasons.REASONS)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        found = []
        for node in ast.walk(ast.parse(text)):
            items: list[ast.expr | None] = []
            least = 8
            if isinstance(node, ast.Set | ast.List | ast.Tuple):
                items = list(node.elts)
            elif isinstance(node, ast.Dict):
                items, least = list(node.keys), 3
            strings = {item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)}
            if len(strings & known) >= least:
                found.append(node.lineno)
        return found
    return [
        text.count("\n", 0, match.start()) + 1
        for match in re.finditer(r"[\[{(][^\[\]{}()]*[\]})]", text)
        if len(set(re.findall(r"[\"'](\w+)[\"']\s*:", match.group(0))) & known) >= 3
        or len(set(re.findall(r"[\"'](\w+)[\"']", match.group(0))) & known) >= 8
    ]


def test_the_reason_codes_are_listed_once() -> None:
    """Only the catalogue (boxedin.common.reasons) holds the codes with their statuses and
    sentences; a module that needs some of them names each, one that needs all takes the
    catalogue's."""
    found = {path.relative_to(ROOT).as_posix(): lines for path in _sources() if (lines := _code_collections(path))}
    assert found == {}  # the catalogue itself is a tuple of Reason values, not of strings
    assert len(reasons.REASONS) == len(reasons.CATALOGUE)  # no code twice in it


@pytest.mark.parametrize(
    ("fact", "owner"),
    [
        (re.escape(codes.ALPHABET), "services/matchmaker/codes.py"),
        (re.escape(devices.DEVICE_TOKEN.pattern.strip("^$")), "services/common/devices.py"),
        (rf"\bNAME_MAX\s*=\s*{names.NAME_MAX}\b", "services/common/names.py"),
        (rf"\bLENGTH\s*=\s*{codes.LENGTH}\b", "services/matchmaker/codes.py"),
    ],
    ids=["room-code alphabet", "device token", "name limit", "room-code length"],
)
def test_a_shared_fact_is_written_by_its_owner_only(fact: str, owner: str) -> None:
    assert _where(fact) == {owner}


def test_the_taglines_are_the_engines() -> None:
    for mode in MODES.values():
        if not mode.practice:
            assert _where(re.escape(f'"{mode.tagline}"')) == {"services/engine/rules.py"}, mode.id


def test_practice_is_read_from_the_catalogue() -> None:
    assert _where(r"startsWith\([\"']practice_") == set()


def test_the_settings_defaults_are_written_in_settings_only() -> None:
    """The launcher's ports and the connection limits start from Settings' own defaults."""
    (launcher,) = SERVICES.rglob("launcher.py")  # wherever the supervisor lives
    repeated = {
        launcher: ["key_prefix", "gateway_port"],
        SERVICES / "gateway" / "limits.py": [
            "send_queue_frames", "send_stall_seconds", "frame_credits", "frame_credits_per_second",
            "hello_timeout_seconds", "idle_timeout_seconds",
        ],
    }  # fmt: skip
    for source, fields in repeated.items():
        text = source.read_text(encoding="utf-8")
        for name in fields:
            default = Settings.model_fields[name].default
            assert not re.search(rf"\b{name}: \w+ = {re.escape(repr(default))}\n", text), (source, name)
            assert re.search(rf"\b{name}: \w+ = default\(\"{name}\"\)", text), (source, name)
    text = launcher.read_text(encoding="utf-8")
    for address in ("engine_address", "ai_address", "stats_address", "matchmaker_address"):
        port = str(Settings.model_fields[address].default).rsplit(":", 1)[1]
        assert f"= {port}\n" not in text, address
