"""The settings: one class read from the environment where a process starts, its table in
docs/settings.md true to it, clear errors, and no other module reading the environment."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import exochess
from exochess.web.settings import SettingsError, limits_table, load_settings, settings_table

ROOT = Path(__file__).resolve().parents[2]
SRC = Path(exochess.__file__).parent


def _generated(doc: str, what: str) -> str:
    found = re.search(rf"<!-- {what} table: generated -->\n(.*?)<!-- end of {what} table -->", doc, re.S)
    assert found, f"docs/settings.md has no generated {what} table"
    return found.group(1)


def test_the_docs_table_every_setting_and_limit_as_the_code_declares_them() -> None:
    doc = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert _generated(doc, "settings") == settings_table(), "run: python -m exochess.web.settings"
    assert _generated(doc, "limits") == limits_table(), "run: python -m exochess.web.settings"


def test_settings_come_from_exochess_variables_and_options_override_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EXOCHESS_DB_THREADS", "3")
    monkeypatch.setenv("EXOCHESS_REDIS_URL", "")
    monkeypatch.setenv("EXOCHESS_TEST_TIMING", "2500")
    monkeypatch.setenv("EXOCHESS_DATABASE_URL", "sqlite:///from-env.sqlite")
    settings = load_settings(database_url="sqlite:///from-option.sqlite", redis_url=None)
    assert settings.db_threads == 3 and settings.redis_url is None
    assert settings.database_url == "sqlite:///from-option.sqlite"
    assert settings.timing().first_move_ms == 2500 and load_settings().timing().day_ms == 2500


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("EXOCHESS_DB_THREADS", "nonsense"),
        ("EXOCHESS_WS_PER_GAME", "0"),
        ("EXOCHESS_RATE_LIMITS", "gamez=5/minute"),
        ("EXOCHESS_LOBBY_GRACE_S", "-1"),
    ],
)
def test_a_value_that_cannot_be_used_is_named(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError, match=variable):
        load_settings()


def test_redis_modes_defaults_are_the_modules_own() -> None:
    pytest.importorskip("arq")
    from exochess.web import settings
    from exochess.web.game import jobs, sweep
    from exochess.web.live import presence

    assert (settings.QUEUE_LIMIT, settings.SWEEP_EVERY_S, settings.SWEEP_AFTER_S, settings.REFRESH_S) == (
        jobs.QUEUE_LIMIT,
        sweep.SWEEP_EVERY_S,
        sweep.SWEEP_AFTER_S,
        presence.REFRESH_S,
    )


def test_no_module_reads_the_environment_for_a_setting() -> None:
    """Only the settings class reads ``EXOCHESS_*``; the CLI writes the variables for the
    processes it starts (uvicorn's workers, ``exochess cluster``'s children)."""
    allowed = {
        "_build.py",  # EXOCHESS_PURE: which build of the package to import, before any setting
        "cli/serve.py",
        "cli/cluster.py",  # they export settings to child processes
        "web/metrics.py",  # PROMETHEUS_MULTIPROC_DIR, prometheus_client's own variable
    }
    readers = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("environ", "getenv")
                and isinstance(node.value, ast.Name)
                and node.value.id == "os"
            ):
                readers.append(f"{relative}:{node.lineno}")
    assert readers == [], readers
