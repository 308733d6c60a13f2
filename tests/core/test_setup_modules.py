"""setup.py finds every game's compiled modules by pattern: a new game folder needs no line there."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from exochess.variants import all_variants

SETUP = Path(__file__).resolve().parents[2] / "setup.py"


def load_setup() -> ModuleType:
    if not SETUP.exists():
        pytest.skip("no setup.py beside the tests (an installed package)")
    spec = importlib.util.spec_from_file_location("exochess_setup", SETUP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not __main__: nothing is built
    return module


def test_every_registered_game_is_compiled() -> None:
    setup = load_setup()
    compiled = set(setup.COMPILED_MODULES)
    for variant in all_variants():
        folder = f"src/exochess/variants/{variant.name}"
        assert f"{folder}/rules.py" in compiled
        assert f"{folder}/evaluation.py" in compiled
    assert "src/exochess/board.py" in compiled and "src/exochess/engine/search.py" in compiled
    assert all((SETUP.parent / path).exists() for path in compiled)
    assert len(compiled) == len(setup.COMPILED_MODULES)


def test_a_new_game_folder_is_found_without_editing_setup(tmp_path: Path) -> None:
    setup = load_setup()
    game = tmp_path / "src" / "exochess" / "variants" / "newgame"
    game.mkdir(parents=True)
    for name in ("__init__.py", "rules.py", "evaluation.py", "annotations.py"):
        (game / name).write_text("")
    assert setup.game_modules(str(tmp_path)) == [
        "src/exochess/variants/newgame/evaluation.py",
        "src/exochess/variants/newgame/rules.py",
    ]
