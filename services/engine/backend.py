"""Chooses the engine's core: the Cython-compiled module, or the same source as plain Python.

The compiled core is the default. ``BOXEDIN_ENGINE=python`` selects the plain-Python build, which
is also what tests compare the compiled one against, move by move. Compiled modules that work on
the core's C layout (the AI's playout policies, ``boxedin.ai.playout``) come in the same two
builds, through ``load_build``, and a position is handled by the build of its own core.
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
    """A compiled module (the core, or one built on it) was asked for but has not been built."""


def load(kind: Backend) -> ModuleType:
    return load_build("boxedin.engine._core", _SOURCE, kind)


@cache
def load_build(module: str, source: Path, kind: Backend) -> ModuleType:
    """One build of a Cython pure-Python module of the package: the compiled ``module``, or its
    ``source`` run as plain Python (imported as ``module`` + ``_python``)."""
    if kind == "compiled":
        loaded = importlib.import_module(module)
        if not str(loaded.__file__).endswith((".so", ".pyd")):
            raise BackendUnavailable(
                f"the compiled {module} is not built: run `pip install -e .` (or the README's setup)"
            )
        return loaded
    if kind == "python":
        name = f"{module}_python"
        spec = importlib.util.spec_from_file_location(name, source)
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded
        spec.loader.exec_module(loaded)
        return loaded
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
