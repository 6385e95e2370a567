"""The services' JSON log lines: a field passed in ``extra`` never hides the line's own."""

from __future__ import annotations

import json
import logging

from boxedin.common.logs import JsonFormatter


def test_an_extra_field_named_like_a_line_field_is_kept_beside_it() -> None:
    record = logging.LogRecord("boxedin.ai", logging.WARNING, __file__, 1, "a turn failed", None, None)
    record.level = "easy"
    record.game = "g_1"
    line = json.loads(JsonFormatter("ai").format(record))
    assert (line["level"], line["level_"], line["game"], line["service"]) == ("warning", "easy", "g_1", "ai")
