"""Build hook: compile the hot modules with mypyc when a C compiler is present.

The metadata lives in pyproject.toml; this file only decides the extension modules.
mypyc turns the listed modules (the same sources the pure package ships) into one
shared C library plus a small extension module per source file, installed beside the
``.py`` files.  ``exochess/_build.py`` picks the build at import time: the extension
modules when they load, the sources when they are missing, fail to load or
``EXOCHESS_PURE=1`` is set.

A pure wheel is built instead when

- ``EXOCHESS_PURE_BUILD=1`` is set,
- the install is editable (``pip install -e``): compiled modules in the source tree
  would shadow every later edit of the ``.py`` files,
- mypyc, a C compiler or Python's C headers are missing,
- the generated C code does not compile or link on this machine (the build then drops
  the extension modules and says why, instead of failing the install).

mypyc's own errors (code it cannot compile) do fail the build: they are bugs of the
sources, which CI must see.
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
import sysconfig
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

# The core, every game's move generator and evaluation, and the search: the code that runs
# once per node.  Everything else (CLI, formats, web) stays interpreted.  The games are found
# by pattern (one folder per game, docs/adding-a-game.md): a new game's rules.py and
# evaluation.py are compiled without a line here.
CORE_MODULES = [
    "src/exochess/compiled.py",
    "src/exochess/errors.py",
    "src/exochess/geometry.py",
    "src/exochess/move.py",
    "src/exochess/rawmove.py",
    "src/exochess/outcome.py",
    "src/exochess/zobrist.py",
    "src/exochess/fen.py",
    "src/exochess/variant.py",
    "src/exochess/board.py",
    "src/exochess/perft.py",
]
GAME_PATTERNS = ["src/exochess/variants/*/rules.py", "src/exochess/variants/*/evaluation.py"]
ENGINE_MODULES = [
    "src/exochess/engine/evaluate/base.py",
    "src/exochess/engine/limits.py",
    "src/exochess/engine/tt.py",
    "src/exochess/engine/search.py",
]


def game_modules(root: str = ".") -> list[str]:
    """Every game's ``rules.py`` and ``evaluation.py`` (paths relative to ``root``), sorted."""
    found = {
        os.path.relpath(path, root).replace(os.sep, "/")
        for pattern in GAME_PATTERNS
        for path in glob.glob(os.path.join(root, pattern))
    }
    return sorted(found)


COMPILED_MODULES = [*CORE_MODULES, *game_modules(os.path.dirname(os.path.abspath(__file__))), *ENGINE_MODULES]


# The setuptools commands that build extension modules.  The others (metadata for pip,
# editable_wheel for ``pip install -e``) need no compiler and get no extensions.
BUILD_COMMANDS = {"bdist_wheel", "build", "build_ext", "install"}


def _pure_reason() -> str | None:
    """Why this build stays pure Python, or None to compile."""
    if os.environ.get("EXOCHESS_PURE_BUILD", "") not in ("", "0"):
        return "EXOCHESS_PURE_BUILD is set"
    if "editable_wheel" in sys.argv:
        return "editable install"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    if not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        return "no Python.h (install Python's development headers)"
    return None


class BuildExtOrPure(build_ext):
    """``build_ext`` that leaves the package pure when the C code does not build."""

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, ExecError, PlatformError) as error:
            print(
                f"exochess: pure Python build (the compiled modules do not build: {error})", file=sys.stderr
            )
            # A half-built set would only make the package fall back at every import.
            for path in self.get_outputs():
                if os.path.exists(path):
                    os.remove(path)
            self.extensions = []


def ext_modules() -> list[Any]:
    """The mypyc extension modules, or none for a pure build."""
    if not BUILD_COMMANDS & set(sys.argv[1:]):
        return []
    reason = _pure_reason()
    if reason is not None:
        print(f"exochess: pure Python build ({reason})", file=sys.stderr)
        return []
    from mypyc.build import mypycify

    # One group: a single shared library holds all compiled code, so calls between the
    # compiled modules are direct C calls; its fixed name keeps the wheel's file list stable.
    return mypycify(COMPILED_MODULES, opt_level="3", group_name="exochess_native")


# setuptools runs this file as __main__ (pip, ``python setup.py``); a test imports it to read
# the module list without building anything.
if __name__ == "__main__":
    setup(ext_modules=ext_modules(), cmdclass={"build_ext": BuildExtOrPure})
