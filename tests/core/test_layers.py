"""Layers point down: the core never imports the registry of games.

The registry (:mod:`exochess.variants`) imports every game, and the games import the
core; a core module importing the registry would close that circle.  The core reaches
a game by name through :func:`exochess.variant.resolve_variant` only, which imports
the registry at call time.  Front ends (command line, engine protocol, rules pages,
web site) list the games and may import the registry.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import exochess

PACKAGE = Path(exochess.__file__).parent
FRONT_ENDS = ("__init__.py", "cli/", "engine/protocol.py", "rulesdoc/", "variants/", "web/")
"""Modules allowed to import the registry (the package's own re-export, and the front ends)."""


def registry_imports(path: Path) -> list[tuple[int, str]]:
    """(line, function or ``<module>``) of each import of :mod:`exochess.variants` in a module."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else where
            names: list[str] = []
            if isinstance(child, ast.ImportFrom) and child.module:
                names = [child.module, *(f"{child.module}.{a.name}" for a in child.names)]
            elif isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            if isinstance(child, ast.ImportFrom | ast.Import) and any(
                n == "exochess.variants" or n.startswith("exochess.variants.") for n in names
            ):
                found.append((child.lineno, where))
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), "<module>")
    return found


def core_modules() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.relative_to(PACKAGE).as_posix().startswith(FRONT_ENDS)
    ]


def test_the_core_reaches_the_registry_only_through_resolve_variant() -> None:
    modules = core_modules()
    assert PACKAGE / "board.py" in modules and PACKAGE / "engine" / "search.py" in modules
    found = {
        f"{path.relative_to(PACKAGE)}:{line} in {where}"
        for path in modules
        for line, where in registry_imports(path)
    }
    assert len(found) == 1 and next(iter(found)).startswith("variant.py:"), found
    assert next(iter(found)).endswith(" in resolve_variant"), found


def test_the_engine_tools_stay_out_of_the_package() -> None:
    """``exochess_lab`` (matches, SPRT, records) sits above ``exochess``: only the command line
    (``exochess match``) imports it, so the engine, the protocol and the site never load it."""
    importers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            )
            if any(n == "exochess_lab" or n.startswith("exochess_lab.") for n in names):
                importers.append(path.relative_to(PACKAGE).as_posix())
    assert importers and all(p.startswith("cli/") for p in importers), importers
    assert not (PACKAGE / "engine" / "match.py").exists()


def test_the_tournament_library_stands_alone() -> None:
    """``exochess.tournament`` (pairing and standings) is pure: it imports only the standard
    library, its pairing libraries and itself, never the site, the engine or the games, so the
    web layer builds on it and not the other way round."""
    allowed = ("exochess.tournament", "networkx", "caissify_pairings")
    found = []
    for path in sorted((PACKAGE / "tournament").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue  # relative: inside the package
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            )
            found += [
                f"{path.name}: {name}"
                for name in names
                if not name.startswith(allowed)
                and (name.startswith("exochess") or name.split(".")[0] not in sys.stdlib_module_names)
            ]
    assert (PACKAGE / "tournament" / "swiss.py").exists()
    assert not found, found
