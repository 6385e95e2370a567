"""The load client's own event loop (boxedin.tools.load.own_stack): its garbage collector stays off
while it measures, and a stall of its loop is counted and, with --stall-stacks, written down with
where the loop was held. A slow action the client itself made slow is not the stack's."""

from __future__ import annotations

import asyncio
import gc
import json
import time
from pathlib import Path
from typing import Any

from boxedin.common import event_loop
from boxedin.tools.load.own_stack import _watched_load


async def _held_load(seen: dict[str, Any]) -> dict[str, Any]:
    seen["collecting"] = gc.isenabled()
    time.sleep(0.12)  # holds the loop: the watch wakes late
    await asyncio.sleep(0.05)  # the watch's tick runs and counts the stall
    return {}


def test_the_client_collects_no_garbage_while_it_measures_and_logs_where_its_loop_was_held(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}
    log = tmp_path / "load-client.log"
    result = event_loop.run(_watched_load(_held_load(seen), log))
    assert seen["collecting"] is False and gc.isenabled()
    assert sum(result["client_stalls"].values()) >= 1
    records = [json.loads(line) for line in log.read_text().splitlines()]
    held = [record for record in records if record["message"] == "event loop held"]
    assert held and any("_held_load" in record["stack"] for record in held), records
