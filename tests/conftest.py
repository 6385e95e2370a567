"""Shared test setup: the folders tests import helpers from."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).parent
for folder in (TESTS, TESTS / "engine"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
