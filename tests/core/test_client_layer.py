"""``exochess.client`` is a client of the site's HTTP API: it never imports the site's package
(issue 47), so a bot needs neither FastAPI nor SQLAlchemy."""

from __future__ import annotations

import ast
from pathlib import Path

import exochess.client

CLIENT = Path(exochess.client.__file__).parent


def test_the_client_imports_nothing_of_the_web_package() -> None:
    wrong = []
    for path in CLIENT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            wrong += [f"{path.name}:{node.lineno} {n}" for n in names if n.startswith("exochess.web")]
    assert wrong == []


def test_the_bot_command_imports_no_web_module() -> None:
    source = (Path(exochess.client.__file__).parents[1] / "cli" / "bot.py").read_text(encoding="utf-8")
    assert "exochess.web" not in source
