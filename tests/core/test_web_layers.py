"""The web site's packages form layers: each imports only its own package and those below it.

From the bottom up (each package's docstring says the same):

0. the foundation, modules at the top of :mod:`exochess.web`: ``domain`` (the service's
   words and errors) and ``metrics`` (one owner of every Prometheus metric);
1. ``storage`` (the database) and ``limits`` (the rate limits), side by side;
2. ``compute`` (CPU work, engine pool) and ``live`` (websocket hub, Redis pub/sub, presence),
   side by side: neither imports the other;
3. ``accounts``: users, sessions, ratings;
4. ``game``: the live game;
5. ``social``: lobby and chat; ``puzzles``: puzzles served, judged and rated (side by side);
6. ``http``: middleware, limits, errors, languages, templates, the routes' dependencies;
7. ``routes`` and ``settings`` (read where a process starts, passed down), side by side; then
   ``app`` (the factory that assembles everything) and the package itself.

Every import counts, those inside functions too: an import deferred to call time still makes
the lower layer depend on the upper one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import exochess.web

WEB = Path(exochess.web.__file__).parent
RANK = {
    "domain": 0,
    "metrics": 0,
    "storage": 1,
    "limits": 1,
    "compute": 2,
    "live": 2,
    "accounts": 3,
    "game": 4,
    "social": 5,
    "puzzles": 5,
    "http": 6,
    "routes": 7,
    "settings": 7,
    "app": 8,
    "__init__": 9,
}
"""The layer of each package (or foundation module) of :mod:`exochess.web`."""


def part_of(dotted: str) -> str:
    """The package or top-level module of ``exochess.web`` that a dotted name belongs to."""
    rest = dotted.removeprefix("exochess.web").lstrip(".")
    return rest.split(".")[0] if rest else "__init__"


def web_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of each import of a module of :mod:`exochess.web` in a file."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("exochess.web"):
            if node.module == "exochess.web":
                found += [(node.lineno, f"exochess.web.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("exochess.web.")]
    return found


def test_every_module_of_the_site_belongs_to_a_layer() -> None:
    parts = {
        part_of("exochess.web." + ".".join(p.relative_to(WEB).with_suffix("").parts))
        for p in WEB.rglob("*.py")
    }
    assert parts <= set(RANK), parts - set(RANK)
    for package in (
        "storage",
        "limits",
        "compute",
        "live",
        "accounts",
        "game",
        "social",
        "puzzles",
        "http",
        "routes",
    ):
        init = WEB / package / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"{package} has no docstring"


def test_each_package_imports_only_itself_and_lower_layers() -> None:
    wrong: list[str] = []
    for path in sorted(WEB.rglob("*.py")):
        relative = path.relative_to(WEB).with_suffix("")
        own = part_of("exochess.web." + ".".join(relative.parts))
        for line, module in web_imports(path):
            target = part_of(module)
            if target != own and RANK[target] >= RANK[own]:
                wrong.append(
                    f"{relative}.py:{line} ({own}, layer {RANK[own]}) imports {module} (layer {RANK[target]})"
                )
    assert not wrong, "\n".join(wrong)
