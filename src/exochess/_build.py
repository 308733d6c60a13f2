"""Which build of exochess runs: the modules compiled by mypyc, or the pure-Python sources.

A compiled install holds, beside each hot module's ``.py`` file, an extension module
built by mypyc from that same file (``board.cpython-311-x86_64-linux-gnu.so``), and
Python's path finder prefers the extension.  The package imports this module before
anything else, and it decides once per process:

- ``EXOCHESS_PURE=1`` in the environment: the sources, always.  A path hook for the
  package's own directories finds only source and bytecode files, so no extension of
  exochess is ever loaded; other packages are not affected.
- otherwise the extensions when they are there and load; when one fails to load (a
  partial or broken install), the package forgets what it imported so far and falls
  back to the sources, with a :class:`RuntimeWarning`.

:data:`BUILD` says which one won; ``exochess --version`` prints it.  Importing this
module imports the core (:mod:`exochess.board` and the games), which the package
does right after anyway.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from collections.abc import Mapping
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    SourceFileLoader,
    SourcelessFileLoader,
)
from types import ModuleType

PURE_VARIABLE = "EXOCHESS_PURE"
"""The environment variable that forces the pure-Python build when set to anything but 0."""

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# Imported to decide: the core, and through the registry the three games' rules.
_PROBES = ("exochess.board", "exochess.variants")


def pure_requested(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the environment asks for the pure-Python build."""
    return environ.get(PURE_VARIABLE, "").strip() not in ("", "0")


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from an extension module rather than Python source."""
    spec = module.__spec__
    return spec is not None and isinstance(spec.loader, ExtensionFileLoader)


def compiled_modules() -> list[str]:
    """The names of the exochess modules imported so far from extension modules."""
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith("exochess.") and module is not None and is_compiled(module)
    )


def _inside_package(path: str) -> bool:
    full = os.path.abspath(path)
    return full == PACKAGE_DIR or full.startswith(PACKAGE_DIR + os.sep)


def _source_finder(path: str) -> FileFinder:
    """Path hook: a finder without the extension loader for exochess's directories."""
    if not _inside_package(path):
        raise ImportError("not a directory of exochess")  # the next hook takes it
    return FileFinder(path, (SourceFileLoader, SOURCE_SUFFIXES), (SourcelessFileLoader, BYTECODE_SUFFIXES))


def use_sources() -> None:
    """Load every exochess module imported from now on from its Python source."""
    if _source_finder not in sys.path_hooks:
        sys.path_hooks.insert(0, _source_finder)
    # Finders already made for the package's directories would still load extensions.
    for path in [p for p in sys.path_importer_cache if _inside_package(p)]:
        del sys.path_importer_cache[path]


def _has_extensions() -> bool:
    suffixes = tuple(EXTENSION_SUFFIXES)
    return any(name.endswith(suffixes) for _dir, _subdirs, names in os.walk(PACKAGE_DIR) for name in names)


def _forget_submodules() -> None:
    for name in [n for n in sys.modules if n.startswith("exochess.") and n != __name__]:
        del sys.modules[name]


def _select() -> str:
    if pure_requested():
        use_sources()
    elif _has_extensions():
        try:
            for name in _PROBES:
                importlib.import_module(name)
        except ImportError as error:
            _forget_submodules()
            use_sources()
            warnings.warn(
                f"exochess: the compiled modules do not load ({error}); using the pure-Python build",
                RuntimeWarning,
                stacklevel=2,
            )
    for name in _PROBES:
        importlib.import_module(name)
    return "compiled" if is_compiled(sys.modules["exochess.board"]) else "pure"


BUILD: str = _select()
"""``"compiled"`` when the core runs from mypyc's extension modules, else ``"pure"``."""
