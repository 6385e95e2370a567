"""Compiles the hot paths with Cython; everything else is in pyproject.toml.

Each module below is written in Cython's pure-Python mode, so the same source also runs as plain
Python. Add a module here to compile it.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

COMPILED_MODULES = {
    "boxedin.engine._core": "services/engine/_core.py",
    "boxedin.ai._solver": "services/ai/_solver.py",
    "boxedin.ai._dice_search": "services/ai/_dice_search.py",
    "boxedin.ai._dice_table": "services/ai/_dice_table.py",
}

setup(
    ext_modules=cythonize(
        [Extension(name, [path]) for name, path in COMPILED_MODULES.items()],
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
