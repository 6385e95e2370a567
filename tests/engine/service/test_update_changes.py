"""Updates carry only what changed (docs/protocol.md, "The update frame"), and a client that
applies them has the game exactly: random games in every mode and every overlap rule (against
the computer, two players at one device, online between two devices whose connections drop and
come back, practice; some with a move clock) are played through
two engine replicas on a Redis of the test's own (so that updates are made both from the state a
replica kept and from one it computed again), with reads of the game between. After every update,
the state built from the updates equals the whole state the engine computed for the same seq: by
the Python applier (boxedin.common.delta) here, and by the web client's (web/src/network/delta.ts) in
Vitest, on the same games."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from boxedin.common import delta
from boxedin.common.keys import Keys
from boxedin.engine.rules import MODES, Overlap
from boxedin.engine.service.server import EngineService
from boxedin.engine.service.store import GameStore
from boxedin.gateway.server_frames import Update, server_frame
from boxedin.tools.reports.update_sizes import PlayedGame, played_game
from boxedin.v1 import common_pb2

WEB = Path(__file__).resolve().parents[3] / "web"


def every_mode_and_rule(rng: random.Random) -> list[common_pb2.GameSetup]:
    """Every mode once, and every overlap rule once on one of the modes with squares of many
    sizes; the opponent, who goes first and the clock chosen at random."""
    multi = [mode for mode in MODES.values() if mode.rules.has_overlap]
    pairs = [(mode, "") for mode in MODES.values()] + [
        (multi[i % len(multi)], rule.id) for i, rule in enumerate(Overlap)
    ]
    setups = []
    for mode, rule in pairs:
        if mode.practice:
            setups.append(common_pb2.GameSetup(mode=mode.id, opponent="practice", seed=f"seed {rng.random()}"))
            continue
        opponent = rng.choice(["ai", "local", "online"])
        setups.append(
            common_pb2.GameSetup(
                mode=mode.id, overlap=rule, opponent=opponent, level="normal" if opponent == "ai" else "",
                first=rng.choice([1, 2]), clock_seconds=rng.choice([0, 0, 30]),
            )
        )  # fmt: skip
    return setups


async def play_every_mode_and_rule(redis_url: str) -> list[tuple[common_pb2.GameSetup, PlayedGame]]:
    client = aioredis.Redis.from_url(redis_url)
    keys = Keys("test-update-changes:")
    replicas = [EngineService(GameStore(client, keys)) for _ in range(2)]
    rng = random.Random("update changes")
    try:
        return [(setup, await played_game(replicas, setup, rng, switch=0.2)) for setup in every_mode_and_rule(rng)]
    finally:
        await client.aclose()


def _carried(changes: dict[str, Any], field: str) -> int:
    """How many items of the list ``field`` an update's changes hold."""
    return len(changes.get("set", {}).get(field, ())) + sum(
        len(put) for _, _, put in changes.get("splice", {}).get(field, ())
    )


def digest(state: dict[str, Any]) -> str:
    """The SHA-256 of the state's JSON with sorted keys, as web/test/network/delta.test.ts computes it."""
    text = json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_state_built_from_updates_is_the_engines_after_every_update(redis_url: str, tmp_path: Path) -> None:
    played = asyncio.run(play_every_mode_and_rule(redis_url))
    fixture = []
    count = 0
    for setup, game in played:
        label = f"{setup.mode}/{setup.overlap or '-'}/{setup.opponent}"
        state = json.loads(game.first_state)
        updates, digests = [], []
        for update_json, state_json in game.updates:
            frame = server_frame(update_json)
            assert isinstance(frame, Update), label
            update = json.loads(update_json)
            assert "game" not in update, label
            # Never the history or the board again: the entry and the edge an action added (a
            # list of up to four items goes whole, which is shorter than a splice of it).
            assert _carried(update["changes"], "history") <= 4 and _carried(update["changes"], "edges") <= 4, update
            whole = json.loads(state_json)
            state = delta.apply(state, update["changes"])
            assert state == whole, f"{label}: seq {update['seq']} differs after {update['changes']}"
            updates.append({"seq": update["seq"], "changes": update["changes"]})
            digests.append(digest(whole))
        assert state["over"], label
        count += len(updates)
        fixture.append(
            {"setup": label, "first_state": json.loads(game.first_state), "updates": updates, "digests": digests}
        )
    assert {setup.mode for setup, _ in played} == set(MODES)
    assert {setup.overlap for setup, _ in played} >= {rule.id for rule in Overlap}
    games_file = tmp_path / "games.json"
    games_file.write_text(json.dumps(fixture))
    npx = shutil.which("npx")
    assert npx is not None, "the web client's check needs Node.js 20 (npx)"
    checked = subprocess.run(
        [npx, "vitest", "run", "test/network/delta.test.ts"],
        cwd=WEB, capture_output=True, text=True, timeout=120,
        env={**os.environ, "BOXEDIN_DELTA_GAMES": str(games_file)},
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout[-4000:] + checked.stderr[-4000:]
    said = re.search(r"checked (\d+) updates of (\d+) games", checked.stdout + checked.stderr)
    assert said is not None and said.groups() == (str(count), str(len(fixture))), checked.stdout[-2000:]
