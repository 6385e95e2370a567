# mypy's view of Cython's pure-Python shadow module `cython` (see [tool.mypy] in pyproject.toml):
# at run time a cython.py that re-exports Cython.Shadow, with no stub of its own; Cython ships
# Cython/Shadow.pyi, which this stub re-exports whole.
from Cython.Shadow import *  # noqa: F403

__version__: str
