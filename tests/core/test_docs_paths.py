"""The docs name files that exist: a module moved or renamed must take its mentions along.

Checked: every path of a Python module of the package (``src/exochess/...py``,
``exochess/...py``, ``exochess_lab/...py`` or ``web/...py``) in README.md, CONTRIBUTING.md,
docs/*.md and docs/decisions/*.md; every relative link of those files; and docs/web.md's
"Modules" map, which must name each module of :mod:`exochess.web` by its path in the package,
and only modules that exist.  The CHANGELOG is left out: its released sections describe the tree
as it was.  A decision record keeps its history in words; a path in it must still resolve, or be
listed in :data:`HISTORICAL` with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
WEB = SRC / "exochess" / "web"
DOCS = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "decisions").glob("*.md")),
]

MODULE_PATH = re.compile(r"(?<![\w/.-])((?:src/)?exochess(?:_lab)?/[\w/]+\.py|web/[\w/]+\.py)\b")
"""A module's path as the docs write it; not the tail of a longer path (``tests/web/...``)."""

LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
"""The target of a Markdown link, without its anchor."""

HISTORICAL: dict[tuple[str, str], str] = {}
"""(doc, path) -> why a path that no longer exists may stay (a decision record's history)."""


def resolve(path: str) -> Path:
    """The file a module path of the docs names."""
    if path.startswith("src/"):
        return ROOT / path
    if path.startswith("web/"):
        return WEB / path.removeprefix("web/")
    return SRC / path


def mentions(pattern: re.Pattern[str]) -> list[tuple[str, int, str]]:
    """(doc, line, match) of each match of ``pattern`` in the docs."""
    found: list[tuple[str, int, str]] = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            found += [(str(doc.relative_to(ROOT)), number, m.group(1)) for m in pattern.finditer(line)]
    return found


def test_every_module_path_in_the_docs_exists() -> None:
    missing = [
        f"{doc}:{line}: {path}"
        for doc, line, path in mentions(MODULE_PATH)
        if not resolve(path).is_file() and (doc, path) not in HISTORICAL
    ]
    assert not missing, "paths that no longer exist:\n" + "\n".join(missing)


def test_historical_mentions_are_still_there() -> None:
    present = {(doc, path) for doc, _, path in mentions(MODULE_PATH)}
    assert set(HISTORICAL) <= present, set(HISTORICAL) - present


def test_every_relative_link_in_the_docs_resolves() -> None:
    broken: list[str] = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for match in LINK.finditer(line):
                target = match.group(1)
                external = "://" in target or target.startswith("mailto:")
                if not external and not (doc.parent / target).exists():
                    broken.append(f"{doc.relative_to(ROOT)}:{number}: {target}")
    assert not broken, "broken links:\n" + "\n".join(broken)


def web_modules() -> set[str]:
    """Every module of :mod:`exochess.web` a reader looks for, as a path in the package."""
    return {
        str(p.relative_to(WEB))
        for p in WEB.rglob("*.py")
        if p.name != "__init__.py" and "migrations" not in p.parts
    }


def modules_section() -> str:
    """docs/web.md's "Modules" section: the map of the package."""
    text = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    start = text.index("\n## Modules\n")
    return text[start : text.index("\n## ", start + 1)]


def test_web_md_maps_every_module_of_the_site() -> None:
    first_cells = [line.split("|")[1] for line in modules_section().splitlines() if line.startswith("| `")]
    named = {path for cell in first_cells for path in re.findall(r"`([\w/]+\.py)`", cell)}
    assert web_modules() - named == set(), "modules missing from docs/web.md"
    assert named - web_modules() == set(), "docs/web.md names modules that do not exist"


DOC_PATH = re.compile(r"(?<![\w/.-])(docs/[\w./-]+\.md)\b")
"""A document named by its path from the repository's root, in prose or a docstring."""


def test_every_document_named_by_path_exists() -> None:
    sources = [
        *DOCS,
        *sorted((SRC / "exochess").rglob("*.py")),
        *sorted((SRC / "exochess_lab").rglob("*.py")),
    ]
    missing: list[str] = []
    for source in sources:
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            missing += [
                f"{source.relative_to(ROOT)}:{number}: {m.group(1)}"
                for m in DOC_PATH.finditer(line)
                if not (ROOT / m.group(1)).is_file()
            ]
    assert not missing, "documents that do not exist:\n" + "\n".join(missing)
