"""Which build runs: the mypyc-compiled modules or the pure-Python sources.

``make test`` runs the suite on both builds and says which one it expects in
``EXOCHESS_EXPECT_BUILD``, so a compiled run that silently fell back to the sources fails
here.  The other tests start fresh interpreters, since the choice is made once per process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import ClassVar

import pytest

import exochess
from exochess import _build
from exochess.engine import search
from exochess.variants.fugue import rules as fugue_rules

PACKAGE_DIR = Path(exochess.__file__).parent
# The directory that holds the package under test (the source tree or build/compiled).
PACKAGE_PARENT = str(PACKAGE_DIR.parent)

PROBE = (
    "import sys, exochess\n"
    "from exochess import _build\n"
    "import exochess.engine.search\n"
    "print(exochess.BUILD, len(_build.compiled_modules()))\n"
    "from exochess.perft import perft\n"
    "print(perft(exochess.Board('interweave'), 2))\n"
)


def run_python(
    code: str, *, pure: str | None, pythonpath: str = PACKAGE_PARENT
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with ``EXOCHESS_PURE=pure`` (unset for None)."""
    env = {k: v for k, v in os.environ.items() if k != _build.PURE_VARIABLE}
    env["PYTHONPATH"] = pythonpath
    if pure is not None:
        env[_build.PURE_VARIABLE] = pure
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False, timeout=120
    )


def has_extensions(directory: Path) -> bool:
    return any(path.name.endswith(tuple(EXTENSION_SUFFIXES)) for path in directory.rglob("*"))


def test_the_expected_build_runs() -> None:
    expected = os.environ.get("EXOCHESS_EXPECT_BUILD")
    if expected is None:
        pytest.skip("EXOCHESS_EXPECT_BUILD is set by make test")
    assert expected == exochess.BUILD
    if expected == "compiled":
        # The hot modules of every layer came from mypyc, not only the board.
        assert _build.is_compiled(exochess.board)
        assert _build.is_compiled(fugue_rules)
        assert _build.is_compiled(search)
        assert "exochess.variants.interweave.rules" in _build.compiled_modules()
    else:
        assert _build.compiled_modules() == []


def test_build_matches_the_modules_loaded() -> None:
    assert ("compiled" if _build.compiled_modules() else "pure") == exochess.BUILD
    assert ("compiled" if has_extensions(PACKAGE_DIR) else "pure") == exochess.BUILD


@pytest.mark.parametrize("value", ["1", "yes"])
def test_pure_variable_forces_the_sources(value: str) -> None:
    result = run_python(PROBE, pure=value)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["pure", "0", "888"]


def test_pure_variable_zero_or_unset_keeps_the_default() -> None:
    expected = "compiled" if has_extensions(PACKAGE_DIR) else "pure"
    for value in (None, "0", ""):
        result = run_python(PROBE, pure=value)
        assert result.returncode == 0, result.stderr
        build, count, perft = result.stdout.split()
        assert build == expected
        assert (int(count) > 0) == (expected == "compiled")
        assert perft == "888"


def test_both_builds_count_the_same_moves() -> None:
    code = (
        "import exochess\nfrom exochess.perft import perft\n"
        "print([perft(exochess.Board(v.name), 2) for v in exochess.all_variants()])\n"
    )
    default, pure = run_python(code, pure=None), run_python(code, pure="1")
    assert default.returncode == 0 and pure.returncode == 0, default.stderr + pure.stderr
    assert default.stdout == pure.stdout


def test_version_names_the_build() -> None:
    exe = shutil.which("exochess", path=str(Path(sys.executable).parent))
    assert exe is not None
    env = {k: v for k, v in os.environ.items() if k != _build.PURE_VARIABLE}
    env["PYTHONPATH"] = PACKAGE_PARENT
    default = subprocess.run([exe, "--version"], env=env, capture_output=True, text=True, check=True)
    env[_build.PURE_VARIABLE] = "1"
    pure = subprocess.run([exe, "--version"], env=env, capture_output=True, text=True, check=True)
    assert pure.stdout == f"exochess {exochess.__version__} (pure Python)\n"
    name = "compiled with mypyc" if has_extensions(PACKAGE_DIR) else "pure Python"
    assert default.stdout == f"exochess {exochess.__version__} ({name})\n"


def test_a_broken_extension_falls_back_to_the_sources(tmp_path: Path) -> None:
    """An extension module that does not load (here: not a shared library at all) leaves
    the package on its sources with a warning, not an ImportError."""
    shutil.copytree(PACKAGE_DIR, tmp_path / "exochess", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    (tmp_path / "exochess" / f"board{EXTENSION_SUFFIXES[0]}").write_bytes(b"not a shared library")
    result = run_python(PROBE, pure=None, pythonpath=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["pure", "0", "888"]
    assert "RuntimeWarning: exochess: the compiled modules do not load" in result.stderr
    # Forcing the sources never touches the broken file: no warning.
    forced = run_python(PROBE, pure="1", pythonpath=str(tmp_path))
    assert forced.stdout.split() == ["pure", "0", "888"]
    assert forced.stderr == ""


def test_games_defined_outside_the_package_subclass_the_compiled_classes() -> None:
    """A game written in plain Python (a plugin, a test) subclasses the compiled Variant and
    Evaluator; the compiled constructors read the subclass's class attributes."""
    from exochess.engine.evaluate import Evaluator
    from exochess.variant import Variant
    from exochess.variants import register_variant, unregister_variant

    class Corner(Variant):
        name = "corner-test"
        title = "Corner"
        width = 5
        height = 4
        piece_letters = "KR"
        royal = "K"
        starting_fen = "k4/5/5/R3K w"

    class CornerEvaluator(Evaluator):
        values: ClassVar[dict[str, int]] = {"K": 0, "R": 480}

    game = register_variant(Corner)
    try:
        assert exochess.find_variant("Corner-Test") is game
        assert (game.geometry.width, game.geometry.height) == (5, 4)
        assert game.codes == {"K": 1, "k": -1, "R": 2, "r": -2}
        board = exochess.Board(game, fen=Corner.starting_fen)
        assert board.fen() == "k4/5/5/R3K w"
        # Piece codes are 1 (K) and 2 (R); an unlisted letter is worth default_value (300).
        assert CornerEvaluator(game).value_of[2] == 480
        assert Evaluator(game).value_of[2] == 300
    finally:
        unregister_variant("corner-test")
