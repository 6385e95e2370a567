"""The Same Wi-Fi tests: helpers beside them (lanplay), and the browser tests' own helpers."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
for folder in (HERE, HERE.parent / "web"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
