"""Finds the packages and compiles the hot paths with Cython; everything else is in pyproject.toml.

The package boxedin is the folder services/ (package-dir in pyproject.toml): every folder under it
with an __init__.py is a package of it, found here rather than listed, so a new one (or the
generated boxedin.v1) cannot be left out of a wheel. Each module of COMPILED_MODULES is written in
Cython's pure-Python mode, so the same source also runs as plain Python. Add a module there to
compile it.
"""

import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

COMPILED_MODULES = {
    "boxedin.engine._core": "services/engine/_core.py",
    "boxedin.ai._playout": "services/ai/_playout.py",
    "boxedin.ai._solver": "services/ai/_solver.py",
    "boxedin.ai._dice_search": "services/ai/_dice_search.py",
    "boxedin.ai._dice_table": "services/ai/_dice_table.py",
}

# Cython finds a .pxd by its module's dotted name (boxedin/engine/_core.pxd: a module's own
# augmenting .pxd as well as one it cimports), but the package boxedin is the folder services/.
# The include folder holds a link boxedin -> services, made here; without it Cython would skip
# _core.pxd silently.
ROOT = Path(__file__).resolve().parent
CYTHON_INCLUDE = ROOT / "build" / "cython-include"


def cython_include() -> str:
    link = CYTHON_INCLUDE / "boxedin"
    target = os.path.relpath(ROOT / "services", CYTHON_INCLUDE)
    if not (link.is_symlink() and os.readlink(link) == target):
        CYTHON_INCLUDE.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target, target_is_directory=True)
    return str(CYTHON_INCLUDE)


# boxedin, and boxedin.X for every package X of services/ (engine, engine.service, v1, ...).
PACKAGES = ["boxedin", *(f"boxedin.{name}" for name in find_packages(str(ROOT / "services")))]

setup(
    packages=PACKAGES,
    ext_modules=cythonize(
        [Extension(name, [path]) for name, path in COMPILED_MODULES.items()],
        include_path=[cython_include()],
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
