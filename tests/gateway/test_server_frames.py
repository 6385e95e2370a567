"""The server frames' models (services/gateway/server_frames/) against what they describe: the game
states the engine produces in random whole games of every mode and overlap rule, the frames
docs/protocol.md shows, and the web client's types generated from them (web/src/generated/frames.ts,
by scripts/gen_catalog.py) against json-schema-to-typescript's reading of the same schema, compiled with
TypeScript. No running service is needed; the last test needs web/node_modules (scripts/setup)
and fails, not skips, without it."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from boxedin.common import delta
from boxedin.engine.actions import Resign
from boxedin.engine.game import Game
from boxedin.engine.rules import MODES, Mode, Overlap
from boxedin.engine.session import online
from boxedin.engine.view import game_view
from boxedin.gateway import server_frames
from boxedin.gateway.server_frames import (
    Ack,
    Error,
    GameState,
    Pong,
    Saved,
    SavedSummary,
    State,
    Update,
    Welcome,
    server_frame,
)

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
PROTOCOL = ROOT / "docs" / "protocol.md"
ACTIONS: TypeAdapter[Any] = TypeAdapter(server_frames.UpdateAction)

# --- game states of random whole games ------------------------------------------------------------

LEVEL_NAMES = {"easy": "Easy", "normal": "Normal", "hard": "Hard", "expert": "Expert"}


def _every_mode_and_rule() -> list[tuple[str, str | None]]:
    rules: list[str | None] = [rule.id for rule in Overlap]
    return [
        (mode_id, rule) for mode_id, mode in MODES.items() for rule in (rules if mode.rules.has_overlap else [None])
    ]


def _service_fields(mode: Mode, rng: random.Random) -> dict[str, Any]:
    """What the engine service puts beside the engine's view, chosen as a player could."""
    opponent = rng.choice(["practice", "local"] if mode.practice else ["ai", "local", "online"])
    level = rng.choice(list(LEVEL_NAMES)) if opponent == "ai" else None
    second = {
        "ai": {"name": f"AI ({LEVEL_NAMES[level or 'normal']})", "kind": "ai"},
        "practice": {"name": "Computer", "kind": "practice"},
        "local": {"name": "Player 2", "kind": "human"},
        "online": {"name": "Bob", "kind": "human"},
    }[opponent]
    first = {"name": {"local": "Player 1", "online": "Ann"}.get(opponent, "You"), "kind": "human"}
    return {
        "opponent": opponent,
        "level": level,
        "clock": 0 if mode.practice or opponent == "online" else rng.choice([0, 10, 20, 30, 60]),
        "ai_speed": rng.choice(["normal", "fast"]),
        "seed": f"seed-{rng.randrange(1000)}" if mode.practice or rng.random() < 0.5 else None,
        "players": [first, second],
    }


def _state(game: Game, game_id: str, seq: int, fields: dict[str, Any], *, previews: bool) -> dict[str, Any]:
    clock = fields["clock"]
    state = {
        "game": game_id,
        "seq": seq,
        **fields,
        "ai_thinking": not game.over and fields["opponent"] in ("ai", "practice") and game.to_move == 2,
        "clock_remaining_ms": (clock * 1000) // (seq % 3 + 1) if clock and not game.over else None,
        "online": _online_view(game, seq) if fields["opponent"] == "online" else None,
    }
    state.update(game_view(game, previews=previews))
    return state


def _online_view(game: Game, seq: int) -> dict[str, Any] | None:
    """The engine's online object for a game at ``seq``: a Find Match game with Bob away now and
    then, and once it is over, rematch asks."""
    _, record = online.new_online_game(
        [("a" * 64, "Ann"), ("b" * 64, "Bob")], mode="mini", overlap="", via="find_match", move_limit=120, grace=90
    )
    now = record.created + 1
    online.set_connected(record, 1, True, now)
    online.set_connected(record, 2, seq % 4 != 0, now)
    if game.over:
        online.settle_after_end(record)
        assert record.online_state is not None
        record.online_state.rematch = [seq % 2 == 0, False]
    return online.view(record, game, now)


def _check_state(state: dict[str, Any], action: dict[str, Any] | None) -> None:
    """The state frame carrying the state validates, and its JSON is exactly the engine's: no
    field added, none dropped, null kept null; so does an update after ``action`` that sets it
    all (an update carries only what changed: tests/engine/service/test_update_changes.py)."""
    text = json.dumps({"type": "state", "seq": state["seq"], "game": state})
    model = server_frame(text)
    assert isinstance(model, State) and isinstance(model.game, GameState)
    assert json.loads(model.to_json()) == json.loads(text)
    if action is not None:
        update = {"type": "update", "seq": state["seq"], "action": action, "changes": delta.changes({}, state)}
        assert isinstance(server_frame(json.dumps(update)), Update)


def _mini_state() -> dict[str, Any]:
    """A fresh Mini game's state, to break."""
    return _state(
        Game.from_mode(MODES["mini"]), "g_1", 0, _service_fields(MODES["mini"], random.Random(1)), previews=True
    )


def _random_step(game: Game, rng: random.Random, resign_at: int, step: int) -> dict[str, Any]:
    """Applies one random legal action; returns it as an update's ``action`` shows it."""
    mover = game.to_move
    assert mover is not None
    r = rng.random()
    if step == resign_at:
        game.apply(Resign(mover))
        return {"resign": True, "by": mover}
    if r < 0.02:
        game.resume()
        return {"resume": True}
    if r < 0.04:
        return {"visibility": rng.random() < 0.5}  # changes the clock only, not the game
    if game.phase == "roll":
        if r < 0.06:
            game.timeout()
            return {"timeout": True, "by": mover}
        game.roll(rng.randint(1, game.rules.die or 1))
        return {"roll": game.current_roll, "by": mover}
    if r < 0.08 and game.can_undo:
        game.undo()
        return {"undo": True, "by": mover}
    if r < 0.12 and game.can_end_turn:
        game.end_turn()
        return {"end_turn": True, "by": mover}
    if r < 0.13:
        game.timeout()
        return {"timeout": True, "by": mover}
    edge = game.geo.edges[rng.choice(game.position.open_edge_list())]
    game.draw(edge)
    return {"draw": list(edge.to_json()), "by": mover}


@pytest.mark.parametrize(("mode_id", "overlap"), _every_mode_and_rule())
def test_engine_game_states_validate(mode_id: str, overlap: str | None) -> None:
    rng = random.Random(f"outgoing/{mode_id}/{overlap}")
    mode = MODES[mode_id]
    game = Game.from_mode(mode, Overlap.from_id(overlap) if overlap else None, first=rng.choice([1, 2]))
    fields = _service_fields(mode, rng)
    edges = mode.rules.edge_count
    checkpoints = set(rng.sample(range(1, edges), min(3, edges - 1)))
    resign_at = rng.randrange(edges) if rng.random() < 0.3 else -1  # some games end in resignation
    game_id = f"g_{mode_id}"
    _check_state(_state(game, game_id, 0, fields, previews=True), None)
    seq = 0
    while not game.over:
        action = _random_step(game, rng, resign_at, seq)
        seq += 1
        ACTIONS.validate_python(action)
        if seq in checkpoints or game.over:
            # Previews: today in every game; soon only in practice games. Both are valid.
            _check_state(_state(game, game_id, seq, fields, previews=True), action)
            if not mode.practice:
                _check_state(_state(game, game_id, seq, fields, previews=False), action)
    final = GameState.model_validate(_state(game, game_id, seq, fields, previews=True))
    assert final.over and final.phase == "over" and final.to_move is None and final.previews is None
    assert final.winner in (0, 1, 2)
    assert (final.box_holders is not None) == (overlap == "territory")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"colour": "red"}, "Extra inputs are not permitted"),  # a field the protocol does not name
        ({"level": "impossible"}, "level"),
        ({"to_move": True}, "to_move"),  # a player is 1 or 2, not a bool
        ({"winner": False}, "winner"),
        ({"previews": None}, "left out when there is none"),  # absent, never null
        ({"edges": [["h", 0, 0, 3]]}, "edges"),
    ],
)
def test_a_game_state_off_the_protocol_is_refused(change: dict[str, Any], problem: str) -> None:
    state = {**_mini_state(), **change}
    with pytest.raises(ValidationError, match=problem):
        GameState.model_validate(state)


def test_a_required_null_field_cannot_be_left_out() -> None:
    state = _mini_state()
    del state["winner"]
    with pytest.raises(ValidationError, match="winner"):
        GameState.model_validate(state)


# --- the frames the gateway builds ----------------------------------------------------------------

DEVICE = "q1W2e3R4t5Y6u7I8o9P0a1S2d3F4g5H6"
SUMMARY = {"game": "g_7f3a", "mode": "classic", "overlap": None, "opponent": "ai", "level": "normal",
           "scores": [3, 5], "round": 4, "updated": 1795000000.1}  # fmt: skip


def _compact(frame: dict[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"))


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (
            lambda: Welcome.build(DEVICE, SavedSummary.model_validate(SUMMARY), 1795000000.123),
            {"type": "welcome", "device": DEVICE, "saved": SUMMARY, "server_time": 1795000000.123},
        ),
        (
            lambda: Welcome.build(DEVICE, None, 1795000000.123, reply_to="c1"),
            {"type": "welcome", "device": DEVICE, "saved": None, "server_time": 1795000000.123, "reply_to": "c1"},
        ),
        (lambda: Saved.build(None), {"type": "saved", "saved": None}),
        (lambda: Saved.build(None, reply_to=4), {"type": "saved", "saved": None, "reply_to": 4}),
        (
            lambda: Error.build("bad_message", "the frame is not valid JSON"),
            {"type": "error", "code": "bad_message", "message": "the frame is not valid JSON"},
        ),
        (
            lambda: Error.build("hello_first", "say hello first", reply_to=7),
            {"type": "error", "code": "hello_first", "message": "say hello first", "reply_to": 7},
        ),
        (
            lambda: Error.build("stale", "the game has moved on", reply_to="c9", seq=41),
            {"type": "error", "code": "stale", "message": "the game has moved on", "reply_to": "c9", "seq": 41},
        ),
        (
            lambda: Error.build("busy", "try again", seq=0),
            {"type": "error", "code": "busy", "message": "try again", "seq": 0},
        ),
        (lambda: Ack.build("c12"), {"type": "ack", "reply_to": "c12"}),
        (lambda: Pong.build(), {"type": "pong"}),
        (lambda: Pong.build(3), {"type": "pong", "reply_to": 3}),
    ],
)
def test_gateway_frames_serialise_as_the_protocol_shows(build: Any, expected: dict[str, Any]) -> None:
    built = build()  # built here, not at collection: a broken model fails this test, not the file
    assert built.to_json() == _compact(expected)
    assert server_frame(built.to_json()) == built


def test_the_examples_of_the_protocol_match() -> None:
    """docs/protocol.md's own examples: the saved-game summary (its ``id`` made a string) round
    trips exactly, and the welcome frame has the fields in the order shown."""
    text = PROTOCOL.read_text()
    welcome = re.search(r'^\{"type": "welcome", .*\}$', text, re.MULTILINE)
    assert welcome, "docs/protocol.md no longer shows a welcome frame"
    built = json.loads(Welcome.build(DEVICE, None, 1.0).to_json())
    assert re.findall(r'"(\w+)":', welcome.group(0)) == list(built)
    found = re.search(r"A saved-game summary: `(\{.*?\})`", text, re.DOTALL)
    assert found, "docs/protocol.md no longer shows a saved-game summary"
    example = json.loads(re.sub(r'"game": id\b', '"game": "g_7f3a"', found.group(1)))
    assert example == SUMMARY
    assert SavedSummary.model_validate(example).to_json() == _compact(example)
    update = re.search(r'^```json\n(\{"type": "update".*?)^```', text, re.MULTILINE | re.DOTALL)
    assert update, "docs/protocol.md no longer shows an update frame"
    assert isinstance(server_frame(update.group(1)), Update)


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "welcome", "device": DEVICE, "server_time": 1.0},  # saved is null, never absent
        {"type": "error", "code": "stale", "message": "m", "seq": None},  # seq is absent, never null
        {"type": "ack", "reply_to": 1.5},
        {"type": "pong", "extra": 1},
        {"type": "hello"},
        {"type": "update", "seq": 1, "action": {"roll": 3}},  # no "by"
        {"type": "update", "seq": 1, "action": {"resume": True, "by": 1}},
        {"type": "update", "seq": 1, "action": {"fly": True, "by": 1}},
        {"type": "update", "seq": 1, "action": {"draw": ["d", 0, 0], "by": 1}},
        {"type": "update", "seq": 1, "action": {"draw": ["h", 0, 0], "by": 1}, "reply_to": 1},  # answers no one
    ],
)
def test_frames_off_the_protocol_are_refused(frame: dict[str, Any]) -> None:
    if frame["type"] == "update":
        frame = {**frame, "changes": {"set": {"seq": 1}}}
    with pytest.raises(ValidationError):
        server_frame(frame)


@pytest.mark.parametrize(
    "changes",
    [
        None,  # an update carries changes, never the whole state (below)
        {"replace": {"seq": 1}},
        {"drop": "previews"},
        {"splice": {"history": [[0, 0]]}},
        {"splice": {"history": [[-1, 0, []]]}},
        {"patch": {"previews": {"set": []}}},
    ],
)
def test_update_changes_off_the_protocol_are_refused(changes: dict[str, Any] | None) -> None:
    frame: dict[str, Any] = {"type": "update", "seq": 1, "action": {"visibility": False}}
    frame |= {"game": _mini_state()} if changes is None else {"changes": changes}
    with pytest.raises(ValidationError):
        server_frame(frame)


def test_state_and_update_frames_are_taken() -> None:
    state = _mini_state()
    assert isinstance(server_frame({"type": "state", "seq": 0, "game": state, "reply_to": "x"}), State)
    assert isinstance(
        server_frame({"type": "update", "seq": 1, "changes": {"set": {"seq": 1}}, "action": {"visibility": False}}),
        Update,
    )


# --- web/src/generated/frames.ts against the models ----------------------------------------------------------


def _web_tool(relative: str) -> Path:
    """A tool of web/node_modules, which scripts/setup installs (as the browser tests need
    web/dist): missing, the test fails saying how to get it, rather than skipping."""
    if shutil.which("node") is None:
        pytest.fail(
            "frames.ts check: no `node` on PATH (the web client needs Node.js 20: apt-get install nodejs npm)"
        )
    tool = WEB / "node_modules" / ".bin" / relative
    if not tool.exists():
        pytest.fail(f"frames.ts check: {tool} is missing: run scripts/setup (or `cd web && npm ci`)")
    return tool


def _for_json2ts(node: Any, *, named: bool = False) -> Any:
    """Pydantic's schema (draft 2020-12) as json-schema-to-typescript reads it: tuples as
    ``items`` lists (it does not know ``prefixItems``), and titles only on the models, so that
    fields do not become named aliases."""
    if isinstance(node, list):
        return [_for_json2ts(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "prefixItems":
            out["items"] = _for_json2ts(value)
            out["additionalItems"] = False
        elif key == "title" and not named:
            continue
        elif key in ("$defs", "properties"):
            out[key] = {name: _for_json2ts(sub, named=key == "$defs") for name, sub in value.items()}
        else:
            out[key] = _for_json2ts(value)
    return out


def _check_source(frames_ts: Path, types_ts: Path, models: list[str]) -> str:
    """TypeScript that compiles only when every model's type in ``frames_ts`` (what
    scripts/gen_catalog.py writes) is the one json-schema-to-typescript makes of the same
    schema, and web/src/network/types.ts takes every server frame."""
    lines = [
        f'import type * as F from "{frames_ts.with_suffix("").as_posix()}";',
        f'import type * as T from "{types_ts.with_suffix("").as_posix()}";',
        'import type * as G from "./generated";',
        "",
        "// Identical types: optional fields count too (mutual assignability alone would let an",
        "// optional field go missing on one side). The two assignments before each give tsc's",
        "// readable reason when the types differ.",
        "type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends (<X>() => X extends B ? 1 : 2) ? true : false;",
        "",
    ]
    for i, name in enumerate([*models, "ServerFrame"]):
        generated, ours = f"G.{name}", f"F.{name}"
        lines += [
            f"// {name}",
            f"declare const g{i}: {generated};",
            f"declare const t{i}: {ours};",
            f"export const models_to_types_{i}: {ours} = g{i}; // {name}: frames.ts refuses what the models allow",
            f"export const types_to_models_{i}: {generated} = t{i}; // {name}: frames.ts allows what the models refuse",
            f"export const same_{i}: Equal<{generated}, {ours}> = true; // {name}: not identical (optional fields?)",
        ]
    lines += [
        "declare const frame: F.ServerFrame;",
        "export const every_frame: T.ServerFrame = frame; // types.ts must take every server frame",
        "",
    ]
    return "\n".join(lines)


def test_the_generated_web_types_agree_with_the_models(tmp_path: Path) -> None:
    json2ts, tsc = _web_tool("json2ts"), _web_tool("tsc")
    schema = _for_json2ts(server_frames.server_frame_schema())
    schema["title"] = "ServerFrame"
    (tmp_path / "schema.json").write_text(json.dumps(schema, indent=1))
    generated = subprocess.run(
        [str(json2ts), "-i", "schema.json", "-o", "generated.ts", "--no-format", "--bannerComment", ""],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert generated.returncode == 0, f"json2ts failed:\n{generated.stdout}{generated.stderr}"
    check = tmp_path / "check.ts"
    models = list(server_frames.server_frame_schema()["$defs"])
    frames_ts, types_ts = WEB / "src" / "generated" / "frames.ts", WEB / "src" / "network" / "types.ts"
    check.write_text(_check_source(frames_ts, types_ts, models))
    config = {
        "compilerOptions": {
            "strict": True, "noEmit": True, "target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler",
            "isolatedModules": True, "skipLibCheck": True, "types": [],
        },
        "files": ["check.ts"],
    }  # fmt: skip
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    compiled = subprocess.run(
        [str(tsc), "-p", "tsconfig.json", "--pretty", "false"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if compiled.returncode != 0:
        source = check.read_text().splitlines()
        report = []
        for line in (compiled.stdout + compiled.stderr).splitlines():
            report.append(line)
            where = re.match(r"check\.ts\((\d+),\d+\)", line)
            if where:
                report.append(f"    at: {source[int(where.group(1)) - 1].strip()}")
        pytest.fail(
            "web/src/generated/frames.ts and the server frames of services/gateway/server_frames/ differ "
            f"(generated types and check in {tmp_path}):\n" + "\n".join(report),
            pytrace=False,
        )
