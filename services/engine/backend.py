"""Chooses the engine's core: the Cython-compiled module, or the same source as plain Python.

The compiled core is the default. ``BOXEDIN_ENGINE=python`` selects the plain-Python build, which
is also what tests compare the compiled one against, move by move.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Literal

Backend = Literal["compiled", "python"]
_SOURCE = Path(__file__).with_name("_core.py")


class BackendUnavailable(RuntimeError):
    """The compiled core was asked for but has not been built."""


@cache
def load(kind: Backend) -> ModuleType:
    if kind == "compiled":
        module = importlib.import_module("boxedin.engine._core")
        if not str(module.__file__).endswith((".so", ".pyd")):
            raise BackendUnavailable(
                "the compiled engine is not built: run `pip install -e .` (or the README's setup)"
            )
        return module
    if kind == "python":
        name = "boxedin.engine._core_python"
        spec = importlib.util.spec_from_file_location(name, _SOURCE)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    raise ValueError(f"unknown engine backend {kind!r}: use 'compiled' or 'python'")


def default_backend() -> Backend:
    """The backend named by BOXEDIN_ENGINE, else the compiled one when it is built."""
    wanted = os.environ.get("BOXEDIN_ENGINE", "")
    if wanted in ("compiled", "python"):
        return wanted  # type: ignore[return-value]
    if wanted:
        raise ValueError(f"BOXEDIN_ENGINE={wanted!r}: use 'compiled' or 'python'")
    try:
        load("compiled")
    except BackendUnavailable:
        return "python"
    return "compiled"


def core(kind: Backend | None = None) -> ModuleType:
    return load(kind or default_backend())
