"""Compiles the engine's hot path with Cython; everything else is in pyproject.toml."""

from Cython.Build import cythonize
from setuptools import Extension, setup

CORE = Extension("boxedin.engine._core", ["services/engine/_core.py"])

setup(
    ext_modules=cythonize(
        [CORE],
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
