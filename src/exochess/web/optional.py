"""Access to the parts of exochess that other layers provide (engine, PGN, rules pages, SVG).

The web site works with whatever has landed: each helper says whether its
module exists, and the site degrades openly (no computer levels 1-8 without
the engine, a short rules summary without :mod:`exochess.rulesdoc`...).
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType


def _module(name: str) -> ModuleType | None:
    try:
        if importlib.util.find_spec(name) is None:
            return None
    except (ImportError, ValueError):
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def engine() -> ModuleType | None:
    """:mod:`exochess.engine` if it provides ``best_move``."""
    mod = _module("exochess.engine")
    return mod if mod is not None and hasattr(mod, "best_move") else None


def has_engine() -> bool:
    return engine() is not None


def pgn() -> ModuleType | None:
    """:mod:`exochess.pgn` if present."""
    return _module("exochess.pgn")


def svg() -> ModuleType | None:
    """:mod:`exochess.svg` if it provides ``piece_svg`` (the piece glyphs of the rules diagrams)."""
    mod = _module("exochess.svg")
    return mod if mod is not None and hasattr(mod, "piece_svg") else None


def rulesdoc() -> ModuleType | None:
    """:mod:`exochess.rulesdoc` if it provides ``render_html``."""
    mod = _module("exochess.rulesdoc")
    return mod if mod is not None and hasattr(mod, "render_html") else None
