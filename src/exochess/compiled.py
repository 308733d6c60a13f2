"""Whether the hot modules run compiled by mypyc: asked by the few places where the two builds
want different code (the same result, each form the cheaper one in its build).

setup.py compiles every hot module, this one included, as one group (one shared library), and
``_build.py`` loads either all of them compiled or all from source, so this module's answer
holds for every module that asks it.  (:data:`exochess._build.BUILD` says the same for the
running process, but it is decided by importing the core, which the core cannot wait for.)
"""

from __future__ import annotations

from types import FunctionType
from typing import Final


def _probe() -> None:
    """Only its type is used: compiled by mypyc, a module's functions are not Python functions."""


COMPILED: Final = not isinstance(_probe, FunctionType)
"""True when this code runs from mypyc's extension modules, False from the Python sources."""
